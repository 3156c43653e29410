package gitops

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// recorder keeps the signatures of the reads made while it is installed.
type recorder struct {
	mu   sync.Mutex
	sigs map[string]string
}

func (r *recorder) Recording() bool { return true }

func (r *recorder) Record(op overlay.Op, path, sig string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if op == overlay.OpRead {
		r.sigs[path] = sig
	}
}

// The Git configuration is an input like any file: reading the remotes
// records it (in a worktree, through its .git file and commondir), and
// changing a remote's URL changes its signature, so that what was
// computed from the old URL is not reused.
func TestRemoteURLsRecorded(t *testing.T) {
	main := t.TempDir()
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(main, ".git", "config")
	write(config, "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:example/fleet.git\n")
	wt := t.TempDir()
	gitDir := filepath.Join(main, ".git", "worktrees", "wt")
	write(filepath.Join(wt, ".git"), "gitdir: "+gitDir+"\n")
	write(filepath.Join(gitDir, "commondir"), "../..\n")

	for _, root := range []string{main, wt} {
		r := &recorder{sigs: map[string]string{}}
		remove := overlay.AddRecorder(r)
		repo := OpenRepository(root, nil)
		remove()
		if !repo.Is("https://github.com/example/fleet") {
			t.Fatalf("%s: remotes %v, want github.com/example/fleet", root, repo.URLs)
		}
		var read string
		for p := range r.sigs {
			if filepath.Base(p) == "config" {
				read = p
			}
		}
		if read == "" {
			t.Fatalf("%s: the Git configuration was read unrecorded; recorded %v", root, slices.Sorted(func(y func(string) bool) {
				for p := range r.sigs {
					if !y(p) {
						return
					}
				}
			}))
		}
		if got := overlay.Sign(overlay.OpRead, config); read != config || got != r.sigs[read] {
			t.Fatalf("%s: recorded %s as %s, want %s as %s", root, read, r.sigs[read], config, got)
		}
	}
	before := overlay.Sign(overlay.OpRead, config)
	write(config, "[remote \"origin\"]\n\turl = git@github.com:example/other.git\n")
	if OpenRepository(main, nil).Is("https://github.com/example/fleet") {
		t.Fatal("the old remote still matches")
	}
	if overlay.Sign(overlay.OpRead, config) == before {
		t.Fatal("a new remote URL left the configuration's signature as it was")
	}
}
