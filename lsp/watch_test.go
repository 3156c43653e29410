package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// watchRepo writes a repository with a base under ws/base and returns its
// folder and the base's webhook file. An overlay that sets namespace
// kube-system (written by the tests) gives the base's Service reference a
// finding it does not have alone.
func watchRepo(t *testing.T) (dir, file string) {
	dir = t.TempDir()
	testkit.WriteTree(t, dir, map[string]string{
		".git/HEAD":                  "ref: refs/heads/main\n",
		"ws/base/kustomization.yaml": "resources:\n- app.yaml\n",
		"ws/base/app.yaml":           monoAppYAML("app-0", 5),
	})
	return dir, filepath.Join(dir, "ws", "base", "app.yaml")
}

// writeOverlay writes folder/kustomization.yaml reading the base, in
// namespace ns.
func writeOverlay(t *testing.T, dir, folder, ns string) string {
	t.Helper()
	base, err := filepath.Rel(filepath.Join(dir, folder), filepath.Join(dir, "ws", "base"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, folder, "kustomization.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("namespace: "+ns+"\nresources:\n- "+filepath.ToSlash(base)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fileFindings is what the server would show for file linted now, from
// scratch: the command line naming it, every finding of its units.
func fileFindings(t *testing.T, file string) []string {
	t.Helper()
	res, err := source.Lint([]string{file}, nil, "", lint.Options{Settings: rules.DefaultSettings()}, source.Options{WholeUnits: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return editorView(res.Diagnostics, file, data)
}

// relint makes the server lint the file again and returns the
// diagnostics it then shows: two edits, the webhook's timeout out of range
// and back (a server publishes only what changed), each waited for.
func relint(t *testing.T, c *client, file string, version int) []diagnostic {
	t.Helper()
	uri := pathURI(file)
	for i, change := range [][2]string{{"timeoutSeconds: 5", "timeoutSeconds: 31"}, {"timeoutSeconds: 31", "timeoutSeconds: 5"}} {
		edit(t, c, file, version+i, change[0], change[1])
		c.wait("the diagnostics of the edit", func() bool { return c.versions[uri] >= version+i })
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.diags[uri]
}

// With a client that watches the files, the discovery index is kept
// between edits and read again only where a reported change touched it:
// a kustomization created on disk is seen once the client reports it (and
// not before), changed and deleted likewise.
func TestWatchedChangesOnDisk(t *testing.T) {
	dir, file := watchRepo(t)
	c := startServer(t)
	c.initialize(dir)
	c.wait("the file watchers' registration", func() bool { return c.registered })
	openFile(t, c, file)
	alone := fileFindings(t, file)
	if got := shown(relint(t, c, file, 2)); !slices.Equal(got, alone) {
		t.Fatalf("%s alone:\n got %q\nwant %q", file, got, alone)
	}

	overlay := writeOverlay(t, dir, "other", "kube-system")
	withOverlay := fileFindings(t, file)
	if slices.Equal(withOverlay, alone) {
		t.Fatalf("the overlay changes nothing in %s: %q", file, alone)
	}
	if got := shown(relint(t, c, file, 4)); !slices.Equal(got, alone) {
		t.Errorf("a kustomization created without an event, with a client that watches: got %q, want what the server saw before, %q", got, alone)
	}
	c.diskChanged(fileCreated, filepath.Dir(overlay), overlay)
	if got := shown(relint(t, c, file, 6)); !slices.Equal(got, withOverlay) {
		t.Errorf("a kustomization created, with its event:\n got %q\nwant %q", got, withOverlay)
	}

	writeOverlay(t, dir, "other", "app-0")
	inAppNamespace := fileFindings(t, file)
	c.diskChanged(fileChanged, overlay)
	if got := shown(relint(t, c, file, 8)); !slices.Equal(got, inAppNamespace) {
		t.Errorf("a kustomization changed, with its event:\n got %q\nwant %q", got, inAppNamespace)
	}

	if err := os.RemoveAll(filepath.Dir(overlay)); err != nil {
		t.Fatal(err)
	}
	c.diskChanged(fileDeleted, filepath.Dir(overlay))
	if got := shown(relint(t, c, file, 10)); !slices.Equal(got, alone) {
		t.Errorf("a kustomization's folder deleted, with its event:\n got %q\nwant %q", got, alone)
	}
}

// A client that cannot watch files, or will not, reports nothing: a
// kustomization created on disk is seen at the next edit, as before.
func TestUnwatchedChangesOnDisk(t *testing.T) {
	for _, tc := range []struct {
		name             string
		dynamic, refuses bool
	}{
		{name: "no dynamic registration"},
		{name: "registration refused", dynamic: true, refuses: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, file := watchRepo(t)
			c := startServer(t)
			c.mu.Lock()
			c.refuse = tc.refuses
			c.mu.Unlock()
			c.initializeWatching(dir, tc.dynamic)
			if tc.dynamic {
				c.wait("the file watchers' registration", func() bool { return c.registered })
			}
			seesUnreportedOverlay(t, c, dir, file, "a kustomization created without an event")
		})
	}
}

// What the watchers do not cover is still checked on every edit: a
// kustomization created, without an event, in the repository but outside
// the workspace folder (ws) is seen at the next edit.
func TestWatchedOutsideWorkspaceFolder(t *testing.T) {
	dir, file := watchRepo(t)
	c := startServer(t)
	c.initialize(filepath.Join(dir, "ws"))
	c.wait("the file watchers' registration", func() bool { return c.registered })
	seesUnreportedOverlay(t, c, dir, file, "a kustomization created outside the workspace folder, without an event")
}

// seesUnreportedOverlay opens file, checks its findings are those of the
// file linted alone, then creates a kustomization reading it without
// telling the server (what) and checks the next edit shows the findings
// of file linted with it, as the command line would now.
func seesUnreportedOverlay(t *testing.T, c *client, dir, file, what string) {
	t.Helper()
	openFile(t, c, file)
	alone := fileFindings(t, file)
	if got := shown(relint(t, c, file, 2)); !slices.Equal(got, alone) {
		t.Fatalf("%s alone:\n got %q\nwant %q", file, got, alone)
	}
	writeOverlay(t, dir, "other", "kube-system")
	want := fileFindings(t, file)
	if got := shown(relint(t, c, file, 4)); !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
