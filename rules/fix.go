package rules

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// FixDoc declares a fix a rule offers: the registry is the single source
// for the rule's docs, --explain and the applicability every front end
// gives the fix.
type FixDoc struct {
	// Name identifies the fix within its rule (kebab-case): findings name
	// it in FieldFix.Fix.
	Name string
	// Title says what the fix does, as its message: "list v1 first".
	Title         string
	Applicability diag.Applicability
	// Why says why the fix is safe or unsafe (Markdown).
	Why string
}

// FieldFix is a fix a rule attaches to a finding, in the rules' terms:
// edits of field values at API field paths. The front end that loaded the
// object turns it into text edits, or drops it when the text does not
// hold what the rule read (an alias, a Helm template, a kustomize patch
// that does not write the field).
type FieldFix struct {
	// Fix names one of the rule's FixDocs, which gives its applicability.
	Fix string
	// Message overrides the FixDoc's title when the fix says more
	// ("set timeoutSeconds to 30"); empty keeps the title.
	Message string
	Edits   []FieldEdit
}

// FieldEdit changes the scalar written at Path (a field, or a list entry
// webhooks[0].admissionReviewVersions[2]).
type FieldEdit struct {
	Path string
	// Old is the value the rule read there: the edit is only made where
	// the text holds that value.
	Old string
	// New is the value to write, a string or, with Number, an integer.
	// Quoting follows what is written there now.
	New    string
	Number bool
	// Delete removes the list entry at Path instead (New is ignored).
	Delete bool
	// Insert adds the field at Path, which the object does not write,
	// with Value (New and Old are ignored), among its parent's fields:
	// where it sorts when they are sorted by name, else after the first
	// of After that is written, else after the last one.
	Insert bool
	Value  any // a string, an int, a []string or a Mapping
	After  []string
}

// Mapping is a value to insert that is itself a mapping, its fields in
// the order they are written; a field's value is a string, an int, a
// []string, a Mapping or a []Mapping.
type Mapping []Field

// Field is a field of a Mapping.
type Field struct {
	Name  string
	Value any
}

// Fix returns the rule's declared fix of that name.
func (r *Rule) Fix(name string) (FixDoc, bool) {
	for _, f := range r.Fixes {
		if f.Name == name {
			return f, true
		}
	}
	return FixDoc{}, false
}

// ReportFix reports at path, with the rule's default severity, a finding
// that fix resolves.
func (p *Pass) ReportFix(path string, msg string, fix FieldFix) {
	p.emit(Finding{Severity: p.rule.Severity, Path: path, Message: msg, Fixes: []FieldFix{fix}})
}

// ReportFieldErrorsWith is ReportFieldErrors with the fix fixFor gives each
// error (nil for none).
func (p *Pass) ReportFieldErrorsWith(errs field.ErrorList, fixFor func(*field.Error) *FieldFix) {
	for _, e := range errs {
		f := Finding{Severity: p.rule.Severity, Path: e.Field, Message: ConciseServerMessage(e.Error())}
		if fix := fixFor(e); fix != nil {
			f.Fixes = []FieldFix{*fix}
		}
		p.emit(f)
	}
}

// webhookFieldOrder is the order a webhook's fields are most often
// written in by hand (and in the Kubernetes documentation's examples): an
// inserted field goes after the nearest field before it that is written.
var webhookFieldOrder = []string{
	"name", "clientConfig", "rules", "namespaceSelector", "objectSelector", "matchConditions",
	"failurePolicy", "matchPolicy", "sideEffects", "timeoutSeconds", "admissionReviewVersions", "reinvocationPolicy",
}

// webhookFieldsBefore lists the fields an inserted field goes after, the
// nearest first.
func webhookFieldsBefore(name string) []string {
	i := slices.Index(webhookFieldOrder, name)
	if i < 0 {
		return nil
	}
	before := slices.Clone(webhookFieldOrder[:i])
	slices.Reverse(before)
	return before
}
