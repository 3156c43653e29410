package lint_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// corpusDir is the shared real-world corpus beside the checkout; the
// server's verdict on each of its webhook configurations is recorded in
// testdata/corpus/verdicts.jsonl by hack/record-corpus-verdicts.sh.
var corpusDir = filepath.Join("..", "..", "shared", "corpus", "real")

type verdict struct {
	File       string  `json:"file"`
	Doc        int     `json:"doc"`
	Item       *int    `json:"item"`
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Name       string  `json:"name"`
	Accepted   bool    `json:"accepted"`
	Stage      string  `json:"stage"`
	Message    string  `json:"message"`
	Causes     []cause `json:"causes"`
}

type cause struct {
	Field, Reason, Message string
}

func readVerdicts(t *testing.T, path string) map[string]*verdict {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	out := map[string]*verdict{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		v := &verdict{}
		if err := json.Unmarshal(sc.Bytes(), v); err != nil {
			t.Fatal(err)
		}
		item := -1
		if v.Item != nil {
			item = *v.Item
		}
		out[docKey(v.File, v.Doc, item)] = v
	}
	return out
}

func docKey(file string, doc, item int) string { return fmt.Sprintf("%s#%d#%d", file, doc, item) }

// serviceRef folds the two fields the server confuses (it reports a missing
// service name on .namespace and the other way round; webhooklint names the
// right one).
var serviceRef = regexp.MustCompile(`clientConfig\.service\.(name|namespace)$`)

func normalizePath(p string) string {
	return serviceRef.ReplaceAllString(p, "clientConfig.service.{name,namespace}")
}

// TestCorpusAgreesWithServer lints every file of the real-world corpus and
// holds webhooklint's errors to the API server's verdicts: no error where
// the server accepts, and the server's field paths where it rejects.
func TestCorpusAgreesWithServer(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skip("shared corpus not present beside the checkout")
	}
	verdicts := readVerdicts(t, filepath.Join("..", "testdata", "corpus", "verdicts.jsonl"))
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*"))
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
		res := lint.Files([]*manifest.File{f}, lint.Options{})
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
		// Not served at all; unserved-api-version says so, and the content
		// is linted with v1beta1 defaults, which the server cannot judge.
		return
	case v.Accepted:
		for _, e := range errs {
			t.Errorf("%s: the server accepts it, but webhooklint reports %s:%d: %s [%s]", where, e.File, e.Line, e.Message, e.Rule)
		}
	case strings.Contains(v.Message, "cannot be handled as"):
		// A decoding failure: the server stops before validation and
		// names no field.
		if !slices.ContainsFunc(errs, func(e diag.Diagnostic) bool { return e.Rule == manifest.RuleSchema || e.Rule == rules.PlaceholderRule }) {
			t.Errorf("%s: the server cannot decode it (%s), webhooklint reports no schema error", where, v.Message)
		}
	default:
		want := map[string]bool{}
		for _, c := range v.Causes {
			want[normalizePath(c.Field)] = true
		}
		got := map[string]bool{}
		for _, e := range errs {
			got[normalizePath(e.Path)] = true
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
