package rules

import (
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
