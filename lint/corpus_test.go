package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// realCorpusDir is the shared real-world corpus beside the checkout; the
// server's verdict on each of its webhook configurations is recorded in
// testdata/corpus/verdicts.jsonl by hack/record-corpus-verdicts.sh.
var realCorpusDir = filepath.Join("..", "..", "shared", "corpus", "real")

func docKey(file string, doc, item int) string { return fmt.Sprintf("%s#%d#%d", file, doc, item) }

// TestCorpusAgreesWithServer lints every file of the real-world corpus and
// holds webhooklint's errors to the API server's verdicts: no error where
// the server accepts, and the server's field paths where it rejects.
func TestCorpusAgreesWithServer(t *testing.T) {
	if _, err := os.Stat(realCorpusDir); err != nil {
		t.Skip("shared corpus not present beside the checkout")
	}
	verdicts := map[string]*verdict{}
	for _, v := range testkit.ReadJSONLines[verdict](t, filepath.Join("..", "testdata", "corpus", "verdicts.jsonl")) {
		item := -1
		if v.Item != nil {
			item = *v.Item
		}
		verdicts[docKey(v.File, v.Doc, item)] = &v
	}
	files, _ := filepath.Glob(filepath.Join(realCorpusDir, "*"))
	var parsed []*manifest.File
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, manifest.Parse(filepath.Base(name), data))
	}
	// Each file is linted on its own: the server judged documents one by one.
	seen := 0
	for _, f := range parsed {
		res := LintUnit(Unit{Files: []*manifest.File{f}}, Options{})
		for _, d := range f.Docs {
			if d.Config == nil {
				continue
			}
			v := verdicts[docKey(f.Name, d.Index, d.Item)]
			if v == nil || v.Kind != d.Kind || v.Name != d.Name {
				t.Errorf("%s doc %d item %d (%s %q): no matching verdict recorded (%+v)", f.Name, d.Index, d.Item, d.Kind, d.Name, v)
				continue
			}
			seen++
			checkAgainstVerdict(t, f.Name, d, v, serverErrors(res.Diagnostics, d))
		}
	}
	if seen != len(verdicts) {
		t.Errorf("matched %d of %d recorded verdicts", seen, len(verdicts))
	}
}

// serverErrors are the error diagnostics of one document. An error always
// claims that the API server rejects the object; what it accepts but that
// hurts is at most a warning.
func serverErrors(ds []diag.Diagnostic, d *manifest.Document) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, dg := range ds {
		// A placeholder finding, whatever severity the user gave it, stands
		// for the rejection of the value it names.
		if (dg.Severity != diag.Error && dg.Rule != rules.PlaceholderRule) || dg.Object == nil || dg.Object.Kind != d.Kind || dg.Object.Name != d.Name || dg.File != d.File {
			continue
		}
		if dg.Line >= d.Line {
			out = append(out, dg)
		}
	}
	return out
}

func checkAgainstVerdict(t *testing.T, file string, d *manifest.Document, v *verdict, errs []diag.Diagnostic) {
	t.Helper()
	where := fmt.Sprintf("%s doc %d (%s %q)", file, d.Index, d.Kind, d.Name)
	switch {
	case d.APIVersion == rules.V1beta1:
		// Not served at all: the apply fails ("no matches for kind"), and
		// unserved-api-version must say so as an error. The content is
		// linted with v1beta1 defaults, which the server cannot judge.
		if v.Accepted || !strings.Contains(v.Message, "no matches for kind") {
			t.Errorf("%s: the server's verdict on a v1beta1 object is %q, not \"no matches for kind\"", where, v.Message)
		}
		if !slices.ContainsFunc(errs, func(e diag.Diagnostic) bool { return e.Rule == rules.UnservedAPIVersionRule }) {
			t.Errorf("%s: the server does not serve v1beta1, but webhooklint reports no %s error", where, rules.UnservedAPIVersionRule)
		}
		return
	case v.Accepted:
		for _, e := range errs {
			t.Errorf("%s: the server accepts it, but webhooklint reports %s:%d: %s [%s]", where, e.File, e.Line, e.Message, e.Rule)
		}
	case strings.Contains(v.Message, "cannot be handled as"):
		// A decoding failure: the server stops before validation and
		// names no field.
		if !slices.ContainsFunc(errs, func(e diag.Diagnostic) bool { return e.Rule == rules.SchemaRule || e.Rule == rules.PlaceholderRule }) {
			t.Errorf("%s: the server cannot decode it (%s), webhooklint reports no schema error", where, v.Message)
		}
	default:
		want := map[string]bool{}
		for _, c := range v.Causes {
			want[swapServiceField(c.Field, c.Reason)] = true
		}
		got := map[string]bool{}
		for _, e := range errs {
			got[e.Path] = true
		}
		for p := range want {
			if !got[p] {
				t.Errorf("%s: the server rejects %s, webhooklint does not", where, p)
			}
		}
		for p := range got {
			if !want[p] {
				t.Errorf("%s: webhooklint reports an error at %q that the server does not", where, p)
			}
		}
	}
}
