package lint

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

// TestPackedFields fails when diag.Diagnostic gains a field that neither
// pack copies nor packable checks: such a field would be lost by a unit's
// findings.
func TestPackedFields(t *testing.T) {
	known := []string{
		// Copied into a packed finding.
		"Span", "Severity", "Rule", "Message", "Path", "Object", "Webhook", "Related", "DependsOnOverlay",
		// Checked by packable: set, the finding is kept whole.
		"Origin", "Units", "Fixes", "Unchecked",
	}
	typ := reflect.TypeFor[diag.Diagnostic]()
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !slices.Contains(known, name) {
			t.Errorf("diag.Diagnostic.%s is new: pack it or keep a finding that sets it whole (packable)", name)
		}
	}
	span := reflect.TypeFor[diag.Span]()
	for i := range span.NumField() {
		if name := span.Field(i).Name; !slices.Contains([]string{"File", "Line", "Column", "EndLine", "EndColumn"}, name) {
			t.Errorf("diag.Span.%s is new: pack it", name)
		}
	}
}

// TestPackRoundTrip packs findings of every shape and unpacks them: each
// comes back as it was, in its order, and only the plain ones are packed.
func TestPackRoundTrip(t *testing.T) {
	obj := &diag.Object{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration", Name: "a"}
	at := diag.Span{File: "a.yaml", Line: 3, Column: 5, EndLine: 3, EndColumn: 9}
	plain := diag.Diagnostic{Span: at, Severity: diag.Warning, Rule: "timeout-too-long", Message: "m", Path: "webhooks[0].timeoutSeconds", Object: obj, Webhook: "w"}
	with := func(change func(*diag.Diagnostic)) diag.Diagnostic {
		d := plain
		change(&d)
		return d
	}
	ds := []diag.Diagnostic{
		with(func(d *diag.Diagnostic) { d.Origin = "patch.yaml" }), // whole before the first packed
		plain,
		with(func(d *diag.Diagnostic) { d.File = "b.yaml" }),
		with(func(d *diag.Diagnostic) { d.Line = math.MaxInt32 + 1 }),
		with(func(d *diag.Diagnostic) { d.Related = []diag.Related{{Message: "webhook"}} }),
		with(func(d *diag.Diagnostic) { d.EndColumn = math.MinInt32 - 1 }),
		with(func(d *diag.Diagnostic) { d.Units = []string{"kustomize build a"} }),
		with(func(d *diag.Diagnostic) { d.Severity, d.Object, d.Webhook, d.Path = diag.Error, nil, "", "" }),
		with(func(d *diag.Diagnostic) { d.Severity, d.DependsOnOverlay = diag.Info, true }),
		with(func(d *diag.Diagnostic) { d.Fixes = []diag.Fix{{}} }),
		with(func(d *diag.Diagnostic) { d.Unchecked = &diag.Unchecked{Noun: "chart"} }), // whole after the last
	}
	p := pack("a.yaml", ds)
	if len(p.findings) != 4 || !slices.Equal(p.wholeAt, []int{0, 1, 1, 2, 2, 4, 4}) {
		t.Errorf("packed %d, kept whole before %v; want 4, [0 1 1 2 2 4 4]", len(p.findings), p.wholeAt)
	}
	got := p.appendTo([]diag.Diagnostic{plain})
	if want := append([]diag.Diagnostic{plain}, ds...); !reflect.DeepEqual(got, want) {
		t.Errorf("unpacked:\n%+v\nwant\n%+v", got, want)
	}
	if got[2].Object != obj {
		t.Error("a packed finding's object is a copy, not the document's")
	}
	if p := pack("a.yaml", nil); p.len() != 0 {
		t.Errorf("no findings packed into %d", p.len())
	}
}

// A finding's one related place at its own span and path (an assumption,
// engine.InContext) is packed as its message, and comes back equal; any
// other related places are kept as they are.
func TestPackAssumption(t *testing.T) {
	at := diag.Span{File: "a.yaml", Line: 3, Column: 5, EndLine: 3, EndColumn: 9}
	path := "webhooks[0].clientConfig.service"
	assumption := diag.Related{Span: at, Path: path, Message: "assuming the folder is one install"}
	elsewhere := assumption
	elsewhere.Line = 4
	other := assumption
	other.Path = "webhooks[0]"
	withObject := assumption
	withObject.Object = &diag.Object{Kind: "Service", Name: "s"}
	var ds []diag.Diagnostic
	for _, related := range [][]diag.Related{
		{assumption}, {elsewhere}, {other}, {withObject}, {assumption, assumption}, {{Span: at, Path: path}},
	} {
		ds = append(ds, diag.Diagnostic{Span: at, Severity: diag.Info, Rule: "ca-bundle", Message: "m", Path: path, Related: related})
	}
	p := pack("a.yaml", ds)
	var assumes int
	for _, f := range p.findings {
		if f.assumes != "" {
			assumes++
			if f.related != nil {
				t.Errorf("a finding packed with its assumption's message keeps its related places too")
			}
		}
	}
	if assumes != 1 {
		t.Errorf("%d findings packed with an assumption's message, want 1", assumes)
	}
	if got := p.appendTo(nil); !reflect.DeepEqual(got, ds) {
		t.Errorf("unpacked:\n%+v\nwant\n%+v", got, ds)
	}
}
