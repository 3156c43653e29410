package source_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// The remote references of a run are one kustomize-build finding, at the
// first, counting the references and the repositories they name and
// pointing at the others; one the configuration suppresses leaves the
// count; the editor server (WholeUnits) has each file's own.
func TestUncheckedFoldedOncePerRun(t *testing.T) {
	dir := t.TempDir()
	refs := map[string]string{
		"a": "https://github.com/fluxcd/flux2/releases/download/v2.7.5/install.yaml",
		"b": "github.com/metal3-io/ip-address-manager/config/default?ref=main",
		"c": "https://raw.githubusercontent.com/fluxcd/flux2/v2.4.0/manifests/openshift/scc.yaml",
		"d": "https://example.com/x/install.yaml",
	}
	for k, ref := range refs {
		if err := os.MkdirAll(filepath.Join(dir, k), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, k, "kustomization.yaml"), []byte("resources:\n- "+ref+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	suppressD := func(ds []diag.Diagnostic) []diag.Diagnostic {
		return slices.DeleteFunc(ds, func(d diag.Diagnostic) bool { return strings.HasSuffix(d.File, "d/kustomization.yaml") })
	}
	res := run(t, []string{dir}, source.Options{Suppress: suppressD})
	got := find(res.Diagnostics, rules.KustomizeBuildRule, "")
	if len(got) != 1 {
		t.Fatalf("want one kustomize-build finding; got%s", dump(res.Diagnostics))
	}
	d := got[0]
	want := "3 remote references into 2 sources are not downloaded (fluxcd/flux2, metal3-io/ip-address-manager); webhooklint builds offline, " +
		"so their kustomizations' files are linted alone; vendor them, or lint `kustomize build | webhooklint -`"
	if !strings.HasSuffix(d.File, "a/kustomization.yaml") || d.Line != 2 || d.Severity != diag.Warning || d.Message != want {
		t.Errorf("want the count at a/kustomization.yaml:2, a warning:\n%s\ngot%s", want, dump(got))
	}
	var rel []string
	for _, r := range d.Related {
		rel = append(rel, filepath.Base(filepath.Dir(r.File))+":"+itoa(r.Line)+" "+r.Message)
	}
	wantRel := []string{`b:2 remote reference "` + refs["b"] + `"`, `c:2 remote reference "` + refs["c"] + `"`}
	if !slices.Equal(rel, wantRel) {
		t.Errorf("related: got %q, want %q", rel, wantRel)
	}

	whole := run(t, []string{dir}, source.Options{WholeUnits: true})
	each := find(whole.Diagnostics, rules.KustomizeBuildRule, "")
	if len(each) != 4 || len(each[0].Related) != 0 || !strings.HasPrefix(each[0].Message, "remote reference ") {
		t.Errorf("with WholeUnits, want each reference's own warning; got%s", dump(each))
	}
}
