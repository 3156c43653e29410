package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/rules"
)

func TestPositionsPointAtValuesKeysAndParents(t *testing.T) {
	src := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: positions
webhooks:
- name: "check.example.com"
  rules:
  - operations: [CREATE, "UPDATE"]
    apiGroups: [""]
`
	f := Parse("p.yaml", []byte(src))
	if len(f.Docs) != 1 || f.Docs[0].Config == nil {
		t.Fatalf("want one webhook configuration, got %+v", f.Docs)
	}
	d := f.Docs[0]
	cases := []struct {
		path  string
		atKey bool
		want  diag.Span
	}{
		{"webhooks[0].name", false, diag.Span{Line: 6, Column: 9, EndLine: 6, EndColumn: 28}},
		{"webhooks[0].name", true, diag.Span{Line: 6, Column: 3, EndLine: 6, EndColumn: 7}},
		{"webhooks[0].rules[0].operations[1]", false, diag.Span{Line: 8, Column: 26, EndLine: 8, EndColumn: 34}},
		{"webhooks[0].rules[0].operations[0]", false, diag.Span{Line: 8, Column: 18, EndLine: 8, EndColumn: 24}},
		// A missing field resolves to its parent's key.
		{"webhooks[0].rules[0].apiVersions", false, diag.Span{Line: 8, Column: 5, EndLine: 9, EndColumn: 20}},
		{"webhooks[0].sideEffects", false, diag.Span{Line: 6, Column: 3, EndLine: 9, EndColumn: 20}},
		{"metadata.name", false, diag.Span{Line: 4, Column: 9, EndLine: 4, EndColumn: 18}},
	}
	for _, c := range cases {
		if got := d.Locate(c.path, c.atKey); got != c.want {
			t.Errorf("Locate(%q, atKey=%v) = %+v, want %+v", c.path, c.atKey, got, c.want)
		}
	}
}

func TestDocumentsListsAndOtherKinds(t *testing.T) {
	src := `---
# comment-only documents are not counted
---
apiVersion: v1
kind: Service
metadata: {name: hooks, namespace: system}
spec:
  selector: {app: hooks}
  ports: [{port: 443, targetPort: 9443}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfigurationList
items:
- metadata: {name: one}
  webhooks: []
- metadata: {name: two}
---
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: hooks, namespace: system}
  spec:
    template:
      metadata:
        labels: {app: hooks}
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingWebhookConfiguration
  metadata: {name: three}
`
	f := Parse("l.yaml", []byte(src))
	if len(f.Diagnostics) != 0 {
		t.Fatalf("unexpected diagnostics: %v", f.Diagnostics)
	}
	var got []string
	for _, d := range f.Docs {
		got = append(got, strings.Join([]string{d.Kind, d.Name}, "/"))
	}
	want := "Service/hooks MutatingWebhookConfiguration/one MutatingWebhookConfiguration/two Deployment/hooks ValidatingWebhookConfiguration/three"
	if strings.Join(got, " ") != want {
		t.Fatalf("documents = %v, want %s", got, want)
	}
	if f.Docs[0].Index != 0 || f.Docs[1].Index != 1 || f.Docs[1].Item != 0 || f.Docs[2].Item != 1 || f.Docs[4].Index != 2 {
		t.Errorf("wrong document/item indexes: %+v", f.Docs)
	}
	inv := Inventory([]*File{f})
	if len(inv.Services) != 1 || inv.Services[0].Spec.Selector["app"] != "hooks" {
		t.Errorf("service not in inventory: %+v", inv.Services)
	}
	if len(inv.Workloads) != 1 || inv.Workloads[0].PodLabels["app"] != "hooks" || inv.Workloads[0].Object.Namespace != "system" {
		t.Errorf("workload not in inventory: %+v", inv.Workloads)
	}
	if len(inv.Configs) != 3 {
		t.Errorf("configs = %d, want 3", len(inv.Configs))
	}
}

func TestJSONInput(t *testing.T) {
	src := "{\n\t\"apiVersion\": \"admissionregistration.k8s.io/v1\",\n\t\"kind\": \"ValidatingWebhookConfiguration\",\n\t\"metadata\": {\"name\": \"j\"},\n\t\"webhooks\": [{\"name\": \"a.b.c\", \"timeoutSeconds\": \"3\"}]\n}\n"
	f := Parse("j.json", []byte(src))
	if len(f.Docs) != 1 {
		t.Fatalf("docs = %d", len(f.Docs))
	}
	ds := f.Docs[0].Diagnostics
	if len(ds) != 1 || ds[0].Line != 5 || ds[0].Rule != rules.SchemaRule {
		t.Fatalf("want one schema error on line 5, got %+v", ds)
	}
}

func TestEmptyAndNonManifestInputsAreQuiet(t *testing.T) {
	for _, src := range []string{"", "\n\n", "# only a comment\n", "---\n---\n", "key: value\n", "- a\n- b\n", "plain scalar\n"} {
		f := Parse("e.yaml", []byte(src))
		if len(f.Diagnostics) != 0 || len(f.Docs) > 1 || (len(f.Docs) == 1 && f.Docs[0].Config != nil) {
			t.Errorf("%q: diagnostics %v docs %v", src, f.Diagnostics, f.Docs)
		}
	}
}

func TestAliasBombIsBounded(t *testing.T) {
	var b strings.Builder
	// fieldsV1 is decoded by its own JSON decoder, so the YAML under it is
	// expanded in full: the one place in a webhook configuration where
	// aliases can multiply.
	b.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: bomb\n  managedFields:\n  - fieldsV1:\n")
	b.WriteString("      a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("      a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	f := Parse("bomb.yaml", []byte(b.String()))
	if len(f.Docs) != 1 {
		t.Fatalf("docs = %d", len(f.Docs))
	}
	found := false
	for _, d := range f.Docs[0].Diagnostics {
		if strings.Contains(d.Message, "alias bomb") {
			found = true
		}
	}
	if !found {
		t.Fatalf("alias bomb not reported: %+v", f.Docs[0].Diagnostics)
	}
}

func TestOversizedFileIsReported(t *testing.T) {
	f := Parse("big.yaml", make([]byte, MaxFileSize+1))
	if len(f.Diagnostics) != 1 || !strings.Contains(f.Diagnostics[0].Message, "larger than 64 MiB") {
		t.Fatalf("got %+v", f.Diagnostics)
	}
}

func TestSeparatorsFollowKubernetes(t *testing.T) {
	got := splitDocuments([]byte("a: 1\n--- # c\nb: 2\n---x\nc: 3\n---\n"))
	if len(got) != 3 || got[1].firstLine != 3 || string(got[1].data) != "b: 2\n---x\nc: 3\n" {
		t.Fatalf("chunks = %+v", got)
	}
}

func TestPathStringsMatchFieldPath(t *testing.T) {
	want := field.NewPath("webhooks").Index(2).Child("objectSelector", "matchLabels").Key("app.kubernetes.io/name").String()
	got := fieldpath.Key(fieldpath.Field(fieldpath.Field(fieldpath.Index(fieldpath.Field("", "webhooks"), 2), "objectSelector"), "matchLabels"), "app.kubernetes.io/name")
	if got != want {
		t.Fatalf("decoder path %q, field.Path %q", got, want)
	}
}

func TestMistypedValueLeavesFieldUnset(t *testing.T) {
	f := Parse("t.yaml", []byte("apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: t}\nwebhooks:\n- name: a.b.c\n  timeoutSeconds: \"ten\"\n  reinvocationPolicy: [IfNeeded]\n"))
	w := f.Docs[0].Config.Webhooks[0]
	if w.TimeoutSeconds != nil {
		t.Errorf("timeoutSeconds = %d, want unset after a type error", *w.TimeoutSeconds)
	}
	if w.ReinvocationPolicy != nil {
		t.Errorf("reinvocationPolicy = %q, want unset after a type error", *w.ReinvocationPolicy)
	}
	if len(f.Docs[0].Diagnostics) != 2 {
		t.Errorf("want two schema errors, got %+v", f.Docs[0].Diagnostics)
	}
}

func TestMaxYAML11BoolIsLongestKey(t *testing.T) {
	longest := 0
	for k := range yaml11Bools {
		longest = max(longest, len(k))
	}
	if longest != maxYAML11Bool {
		t.Errorf("maxYAML11Bool = %d, the longest YAML 1.1 bool is %d bytes", maxYAML11Bool, longest)
	}
}

// Options.Alone gives ParseJobs' documents and diagnostics, without the
// cross-object data of objects nobody judges; an alias keeps the data
// read, since reading it may be what exhausts the budget.
func TestParseAlone(t *testing.T) {
	for _, name := range []string{"alone/plain/backend.yaml", "alone/plain/webhook.yaml"} {
		data, err := os.ReadFile(filepath.Join("../testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		full, alone := ParseJobs(name, data, 1), ParseWith(name, data, Options{Alone: true})
		if !reflect.DeepEqual(full.Diagnostics, alone.Diagnostics) || len(full.Docs) != len(alone.Docs) {
			t.Fatalf("%s: Alone differs: %v vs %v", name, alone.Diagnostics, full.Diagnostics)
		}
		for i, d := range full.Docs {
			a := alone.Docs[i]
			if a.Kind != d.Kind || a.Name != d.Name || a.Line != d.Line || !reflect.DeepEqual(a.Diagnostics, d.Diagnostics) {
				t.Errorf("%s: document %d differs", name, i)
			}
			if judged := d.Config != nil; judged != (a.Config != nil) || judged != alone.HasJudged() {
				t.Errorf("%s: document %d: judged %v, alone %v, HasJudged %v", name, i, judged, a.Config != nil, alone.HasJudged())
			}
			if d.Config == nil && (a.Positions != nil || a.cross != nil) {
				t.Errorf("%s: %s kept the positions of its causes", name, a.Kind)
			}
		}
		if got, want := MayHoldJudged(data), full.HasJudged(); got != want {
			t.Errorf("%s: MayHoldJudged %v, want %v", name, got, want)
		}
	}
	// A kind spelled with an escape hides from the text, not from the
	// parse: the file is parsed in full, its Deployment's data kept.
	bundle, err := os.ReadFile("../testdata/alone/escaped-bundle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if MayHoldJudged(bundle) {
		t.Fatal("the fixture names its kind plainly")
	}
	if alone, full := ParseWith("b.yaml", bundle, Options{Alone: true}), ParseJobs("b.yaml", bundle, 1); !alone.HasJudged() || !reflect.DeepEqual(alone, full) {
		t.Error("a file whose kind hides behind an escape was parsed alone")
	}
	aliased, err := os.ReadFile("../testdata/alone/aliased.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d := ParseWith("aliased.yaml", aliased, Options{Alone: true}).Docs[0]; d.inventory().service == nil {
		t.Error("an aliased document was not read: reading it is what could exhaust its budget")
	}
}

// A .json file that names no apiVersion or kind is no object: JSON with
// comments (a tsconfig.json, kargo's and envoyproxy/ai-gateway's docs
// sites) is not a syntax error; one that names them is.
func TestJSONWithoutObjectNoSyntaxError(t *testing.T) {
	tsconfig := "{\n  // This file is not used in compilation.\n  \"extends\": \"@docusaurus/tsconfig\",\n  \"compilerOptions\": {\"baseUrl\": \".\",},\n}\n"
	if f := Parse("site/tsconfig.json", []byte(tsconfig)); len(f.Diagnostics) != 0 || len(f.Docs) != 0 {
		t.Errorf("tsconfig.json: want nothing; got %v", f.Diagnostics)
	}
	if f := Parse("site/tsconfig.yaml", []byte(tsconfig)); len(f.Diagnostics) == 0 {
		t.Errorf("the same text in a .yaml file: want its syntax error")
	}
	object := "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Service\",,\n}\n"
	if f := Parse("svc.json", []byte(object)); len(f.Diagnostics) != 1 || f.Diagnostics[0].Rule != rules.YAMLSyntaxRule {
		t.Errorf("svc.json: want its syntax error; got %v", f.Diagnostics)
	}
}
