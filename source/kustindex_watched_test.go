package source

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// The index Watched keeps is what a walk of the tree gives now, after
// each change it is told of: folders and kustomizations created in new
// folders, a kustomization edited, a folder becoming a chart and back, a
// folder removed. A change it is not told of inside the watched folders
// is not seen; one outside them is.
func TestWatchedIndexFollowsReportedChanges(t *testing.T) {
	root := testkit.Repo(t, map[string]string{
		"ws/a/kustomization.yaml":         "resources:\n- app.yaml\n",
		"ws/a/app.yaml":                   "kind: ConfigMap\n",
		"ws/a/b/kustomization.yaml":       "resources:\n- ../\n",
		"ws/a/b/deep/kustomization.yml":   "resources:\n- ../\n",
		"ws/c/Kustomization":              "resources: []\n",
		"ws/chart/Chart.yaml":             "name: chart\n",
		"ws/chart/sub/kustomization.yaml": "resources: []\n",
		"ws/.hidden/kustomization.yaml":   "resources: []\n",
		"outside/kustomization.yaml":      "resources:\n- ../ws/a\n",
	})
	ws := filepath.Join(root, "ws")
	w := NewWatched([]string{ws})
	check := func(what string) {
		t.Helper()
		gotFound, gotCharts := w.scopeFolders(root, 2)
		wantFound, wantCharts := walkKustomizations(root, 2, true, nil)
		if !reflect.DeepEqual(gotFound, wantFound) || !reflect.DeepEqual(gotCharts, wantCharts) {
			t.Errorf("%s:\n got %+v %q\nwant %+v %q", what, gotFound, gotCharts, wantFound, wantCharts)
		}
	}
	write := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		testkit.WriteFile(t, p, text)
		return p
	}
	remove := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	changed := func(paths ...string) {
		for _, p := range paths {
			w.Changed(p)
		}
	}
	check("first walk")

	p := write("ws/a/b/new/deeper/kustomization.yaml", "resources: []\n")
	changed(filepath.Join(ws, "a", "b", "new"), filepath.Dir(p), p)
	check("a kustomization in new folders")

	changed(write("ws/a/kustomization.yaml", "resources:\n- app.yaml\n- other.yaml\n"))
	check("a kustomization edited")

	changed(write("ws/a/b/Chart.yaml", "name: b\n"))
	check("a folder made a chart")

	changed(remove("ws/a/b/Chart.yaml"))
	check("a chart made a folder again")

	changed(remove("ws/a"))
	check("a folder removed")

	before, _ := w.scopeFolders(root, 2)
	write("ws/unreported/kustomization.yaml", "resources: []\n")
	if got, _ := w.scopeFolders(root, 2); !reflect.DeepEqual(got, before) {
		t.Errorf("a change inside the watched folders that nobody reported was seen: %+v", got)
	}
	changed(filepath.Join(ws, "unreported"))
	check("the change reported")

	write("elsewhere/kustomization.yaml", "resources: []\n")
	check("a kustomization created outside the watched folders, not reported")
}
