package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// A place inside a matchCondition expression maps to the file column for
// every way YAML writes a string.
func TestLocateWithin(t *testing.T) {
	const head = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: x\nwebhooks:\n- name: a.example.com\n  matchConditions:\n  - name: c\n    expression: "
	for _, tc := range []struct {
		name, value string
		line, col   int // of "spec" in object.spec.containers
	}{
		{"plain", `request.name != "x" && object.spec.containers.size() > 0`, 9, 47},
		{"single", `'request.name != ''x'' && object.spec.containers.size() > 0'`, 9, 50},
		{"double", `"request.name != \"x\" && object.spec.containers.size() > 0"`, 9, 50},
		{"double-escape", `"request.name != \"x\" &&\n\t object.spec.containers.size() > 0"`, 9, 54},
		{"double-multiline", "\"request.name != \\\"x\\\" &&\n      object.spec.containers.size() > 0\"", 10, 14},
		{"literal", "|\n      request.name != \"x\" &&\n        object.spec.containers.size() > 0", 11, 16},
		{"folded-comment", ">- # a comment\n      request.name != \"x\" &&\n      object.spec.containers.size() > 0", 11, 14},
		{"plain-multiline", "request.name != \"x\" &&\n      object.spec.containers.size() > 0", 10, 14},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Parse("x.yaml", []byte(head+tc.value+"\n"))
			if len(f.Docs) != 1 || f.Docs[0].Config == nil {
				t.Fatalf("not parsed: %+v", f.Diagnostics)
			}
			d := f.Docs[0]
			expr := d.Config.Webhooks[0].MatchConditions[0].Expression
			from := len([]rune(expr[:strings.Index(expr, "spec")]))
			sp := rules.SpanOf(expr, from, from+len("spec"))
			r, ok := d.LocateWithin("webhooks[0].matchConditions[0].expression", sp.Start, sp.End)
			if !ok {
				t.Fatal("not located")
			}
			if r.Line != tc.line || r.Column != tc.col || r.EndColumn != tc.col+4 {
				t.Errorf("got %d:%d-%d, want %d:%d-%d", r.Line, r.Column, r.EndColumn, tc.line, tc.col, tc.col+4)
			}
		})
	}
}

// A document parsed from a file on disk does not hold its text: pointing
// inside an expression reads it again, with the same result as the held
// text, and gives up once the file has changed.
func TestLocateWithinReadsAgain(t *testing.T) {
	data, err := os.ReadFile("../testdata/rules/match-conditions/server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "server.yaml")
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	held, again := ParseJobs(name, data, 1), ParseWith(name, data, Options{OnDisk: true})
	type at struct {
		r  diag.Span
		ok bool
	}
	var want []at
	for i, d := range held.Docs {
		if d.Config == nil || len(d.Config.Webhooks) == 0 || len(d.Config.Webhooks[0].MatchConditions) == 0 {
			continue
		}
		a := again.Docs[i]
		if a.src != nil || a.within == nil {
			t.Fatalf("document %d holds its text", i)
		}
		path := "webhooks[0].matchConditions[0].expression"
		r, ok := d.LocateWithin(path, 2, 5)
		if !ok {
			t.Fatalf("document %d: nothing located in %s", i, path)
		}
		if r2, ok2 := a.LocateWithin(path, 2, 5); r2 != r || !ok2 {
			t.Errorf("document %d: read again %+v %v, held %+v", i, r2, ok2, r)
		}
		want = append(want, at{r, ok})
	}
	if len(want) == 0 {
		t.Fatal("no document with matchConditions")
	}
	if err := os.WriteFile(name, append([]byte("# changed\n"), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range again.Docs {
		if d.within == nil {
			continue
		}
		if r, ok := d.LocateWithin("webhooks[0].matchConditions[0].expression", 2, 5); ok {
			t.Errorf("located %+v in a changed file", r)
		}
	}
}
