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

// A GitRepository of this repository's URL that names another branch
// than the one checked out, or the one flux-system syncs, is another tree
// (flux2-multi-tenancy's tenant branch): its Kustomization is not built
// from this checkout. The branch checked out, or one nothing contradicts
// (a detached HEAD, no flux-system branch), is this checkout.
func TestGitRepositoryBranch(t *testing.T) {
	const url = "https://github.com/example/fleet"
	entry := func(branch string) string {
		return "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: team, namespace: apps}\n" +
			"spec: {url: " + url + ", ref: {branch: " + branch + "}}\n---\n" +
			"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: team, namespace: apps}\n" +
			"spec: {path: ./, sourceRef: {kind: GitRepository, name: team}}\n"
	}
	for _, c := range []struct {
		head, fluxSystem, branch string
		self                     bool
	}{
		{"ref: refs/heads/main", "", "team", false},
		{"ref: refs/heads/main", "", "main", true},
		{"ref: refs/heads/feature", "main", "main", true},
		{"ref: refs/heads/feature", "main", "team", false},
		{"0123456789abcdef0123456789abcdef01234567", "", "team", true},
		{"0123456789abcdef0123456789abcdef01234567", "main", "team", false},
	} {
		root := t.TempDir()
		files := map[string]string{".git/HEAD": c.head + "\n", "team.yaml": entry(c.branch)}
		if c.fluxSystem != "" {
			files["flux-system.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\n" +
				"spec: {url: " + url + ", ref: {branch: " + c.fluxSystem + "}}\n"
		}
		var names []string
		for name, text := range files {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if filepath.Ext(p) == ".yaml" {
				names = append(names, p)
			}
		}
		slices.Sort(names)
		read := func(f string) []byte { data, _ := os.ReadFile(f); return data }
		var e *Entry
		for _, x := range Find(names, read, Options{Repo: OpenRepository(root, []string{url})}) {
			if x.Name == "team" {
				e = x
			}
		}
		if e == nil {
			t.Fatalf("%+v: no Kustomization team found", c)
		}
		if self := e.Remote == ""; self != c.self {
			t.Errorf("HEAD %q, flux-system on %q, GitRepository on %q: built from this checkout %v, want %v (remote %q)", c.head, c.fluxSystem, c.branch, self, c.self, e.Remote)
		}
	}
}
