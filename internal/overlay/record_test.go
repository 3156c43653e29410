package overlay

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

type testRecorder struct {
	mu  sync.Mutex
	log []string
	sig map[string]string
}

func (r *testRecorder) Recording() bool { return true }

func (r *testRecorder) Record(op Op, path, sig string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, string(rune('0'+op))+" "+path)
	r.sig[string(rune('0'+op))+" "+path] = sig
}

// Every reader records what it read with the signature Sign gives for
// it; a change to what was read changes the signature.
func TestRecordedSignatures(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(file, "one")
	write(filepath.Join(dir, "sub", "b.yaml"), "two")
	r := &testRecorder{sig: map[string]string{}}
	remove := AddRecorder(r)
	_, _ = ReadFile(file)
	_, _ = ReadDiskFile(file)
	if f, _, err := Open(file); err == nil {
		_, _ = io.ReadAll(f)
		_ = f.Close()
	}
	_, _ = Stat(filepath.Join(dir, "missing"))
	_, _ = ReadDir(dir)
	_ = WalkDir(dir, func(string, fs.DirEntry, error) error { return nil })
	_, _ = Glob(filepath.Join(dir, "*.yaml"))
	Note(OpTree, dir)
	remove()
	_, _ = ReadFile(file) // not recorded: removed

	want := map[string]Op{file: OpRead, filepath.Join(dir, "missing"): OpStat, dir: OpList, filepath.Join(dir, "sub"): OpList}
	for p, op := range want {
		if _, ok := r.sig[string(rune('0'+op))+" "+p]; !ok {
			t.Errorf("no record of op %d on %s in %q", op, p, r.log)
		}
	}
	if n := len(r.log); n != 9 {
		t.Errorf("%d records, want 9: %q", n, r.log)
	}
	check := func(changed bool) {
		t.Helper()
		for k, sig := range r.sig {
			op, p := Op(k[0]-'0'), k[2:]
			if now := Sign(op, p); (now != sig) != (changed && op != OpStat && p != filepath.Join(dir, "sub")) {
				t.Errorf("op %d on %s: recorded %q, now %q (changed: %v)", op, p, sig, now, changed)
			}
		}
	}
	check(false)
	// One more file in dir: its listing, its tree and a.yaml's content
	// (rewritten) change; the missing path and sub do not.
	write(file, "three")
	write(filepath.Join(dir, "c.yaml"), "four")
	check(true)
	if Sign(OpVolatile, "clock") == "volatile" {
		t.Error("a volatile input checks as unchanged")
	}
}
