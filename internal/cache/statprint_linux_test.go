package cache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// A fingerprint taken from an open folder or file is the one a stat of
// its path gives, through a link too: the discovery index stores the
// first and LookupInputs compares it with the second.
func TestFdPrintIsPathPrint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "kustomization.yaml")
	if err := os.WriteFile(file, []byte("resources: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		op    overlay.Op
		flags int
	}{
		{dir, overlay.OpEntries, syscall.O_DIRECTORY},
		{link, overlay.OpEntries, syscall.O_DIRECTORY},
		{file, overlay.OpRead, 0},
	} {
		fd, err := syscall.Open(c.path, syscall.O_RDONLY|syscall.O_CLOEXEC|c.flags, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, gotNewest, ok := FdPrint(fd)
		_ = syscall.Close(fd)
		want, wantNewest, wantOK := fingerprint(c.op, c.path)
		if !ok || !wantOK || got != want || !gotNewest.Equal(wantNewest) {
			t.Errorf("%s: FdPrint %q %v %v, a stat of the path %q %v %v", c.path, got, gotNewest, ok, want, wantNewest, wantOK)
		}
	}
	if _, _, ok := FdPrint(-1); ok {
		t.Error("FdPrint(-1): a fingerprint of no descriptor")
	}
}

// StoreInputs keeps the fingerprint a caller took from the open file
// rather than stat its path again, unless the file was racy then.
func TestStoreInputsKeepsCallersPrint(t *testing.T) {
	file := filepath.Join(t.TempDir(), "kustomization.yaml")
	if err := os.WriteFile(file, []byte("resources: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	key := []byte("index")
	for _, c := range []struct {
		newest time.Time
		want   string
	}{
		{time.Unix(0, 0), "the caller's"},
		{time.Now(), ""}, // racy: none kept
	} {
		ch := Open(dir, true, nil, os.Stderr)
		ch.StoreInputs(key, time.Now(), []Input{{Op: overlay.OpRead, Path: file, Sig: overlay.Sign(overlay.OpRead, file),
			Stat: "the caller's", Newest: c.newest}}, []byte("the index"))
		e, ok := ch.read(entryName(ch.inputsSalt, key))
		ch.Close()
		if !ok || len(e.Inputs) != 1 || e.Inputs[0].Stat != c.want {
			t.Errorf("newest %v: stored %+v, want the fingerprint %q", c.newest, e, c.want)
		}
	}
}
