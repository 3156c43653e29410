// Package rules holds every webhooklint rule, one per file, and the registry
// that is the single source for --list-rules, --explain, the generated docs,
// SARIF rule entries and the Go analyzer's documentation.
//
// Rules read typed admissionregistration objects (through Config and Webhook)
// and report API field paths; they never see YAML, the CLI or go/analysis.
// Whoever loaded the object turns a path into a position.
package rules

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/webhooklint/webhooklint/diag"
)

// Category groups rules in docs and listings.
type Category string

const (
	// Server rules report what the API server rejects (or warns about) on create.
	Server Category = "server"
	// Practice rules report what the server accepts but that fails in production.
	Practice Category = "practice"
	// Input rules report problems with the input itself (syntax, templates).
	Input Category = "input"
	// Live rules need the state of a running cluster (Inventory.Live); they
	// stay silent when linting files.
	Live Category = "live"
)

// Doc is a rule's documentation. Every field is Markdown.
type Doc struct {
	Why string
	// Bad and Good are the examples of a rule without a folder of
	// examples (examples/<rule>/); read them with Rule.Examples, which
	// prefers the folder.
	Bad  string
	Good string
	// ExampleLang is the language Bad and Good are written in, for the
	// docs' code fences: yaml, or console for a file listing.
	ExampleLang string
	// Fragment marks Bad and Good as excerpts of a manifest (a webhook's
	// fields alone), which cannot be linted on their own.
	Fragment bool
	Fix      string
	Sources  []string // where the facts come from (links, reference sections)
}

// Option is a per-rule setting users may change in .webhooklint.yaml.
type Option struct {
	Name    string
	Doc     string
	Default any // int, string, bool or []string
}

// Rule is one check with its metadata.
type Rule struct {
	Name     string // stable kebab-case identifier
	Summary  string // one line, no trailing period
	Severity diag.Severity
	Category Category
	Since    string // webhooklint version that introduced it
	Doc      Doc
	Options  []Option
	// Fixes are the fixes the rule's findings may carry, with their
	// applicability and why.
	Fixes []FixDoc
	// ExplainedBy lists the root causes that make this rule's findings
	// redundant when they are reported on the same object: the engine then
	// drops the finding and names it in the root's message (lint/causes.go).
	ExplainedBy []Explanation
	// DependsOnOverlay marks rules all of whose findings judge what a
	// kustomize overlay changes (see Finding.DependsOnOverlay).
	DependsOnOverlay bool
	// OnePerFile marks rules whose finding, the same on many objects of a
	// file (an archived install manifest of v1beta1 CRDs), is one fix for
	// the file: it is reported once, at the first object, counting the
	// others and naming them as related locations (OncePerFile).
	OnePerFile bool
	// Unchecked words the one finding a run's could-not-check notices of
	// the rule (diag.Unchecked) are folded into: how many notices, how
	// many distinct sources they name (fewer when two name one), what the
	// sources are (a noun, plural unless there is one) and the first of
	// their names. Nil for rules that make no such notices.
	Unchecked func(notices, sources int, what, names string) string
	// Check runs once per webhook configuration. Rules whose findings come
	// from a front end (YAML syntax, strict decoding) have a nil Check.
	Check func(*Pass)
	// CheckCRD runs once per CustomResourceDefinition with a
	// spec.conversion (Pass.CRD is set, Pass.Config is nil): a conversion
	// webhook is a webhook client too.
	CheckCRD func(*Pass)
	// CheckPolicy runs once per admission policy or policy binding
	// (Pass.Policy is set, Pass.Config is nil).
	CheckPolicy func(*Pass)

	// registered marks a rule of the registry, whose examples are its
	// folder's (Examples).
	registered bool
}

// Explanation is a root cause that, reported on the same object, explains
// a rule's findings.
type Explanation struct {
	// Root is the rule whose finding is the cause.
	Root string
	// DefaultsOnly limits it to findings placed on a whole webhook
	// (webhooks[i]) rather than on one of its fields. Rules place a finding
	// there exactly when the field is unset and the API version's default
	// decides, so only those follow from the root (a value written out
	// stays wrong after the root is fixed).
	DefaultsOnly bool
}

var (
	registryMu sync.Mutex
	registry   = map[string]*Rule{}
	sorted     []*Rule // All's answer, rebuilt after a registration
)

// register is called from each rule file's init.
func register(r *Rule) *Rule {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[r.Name]; dup {
		panic("rules: duplicate rule " + r.Name)
	}
	if r.Severity == 0 || r.Summary == "" || r.Category == "" || r.Since == "" {
		panic("rules: incomplete metadata for " + r.Name)
	}
	for _, f := range r.Fixes {
		if f.Name == "" || f.Title == "" || f.Why == "" || (f.Applicability != diag.Safe && f.Applicability != diag.Unsafe) {
			panic("rules: incomplete fix metadata for " + r.Name)
		}
	}
	r.registered = true
	registry[r.Name] = r
	sorted = nil
	return r
}

// All returns every rule sorted by name. The engine asks for every
// document, so the sorted list is built once; callers must not modify it.
func All() []*Rule {
	registryMu.Lock()
	defer registryMu.Unlock()
	if sorted == nil {
		sorted = make([]*Rule, 0, len(registry))
		for _, r := range registry {
			sorted = append(sorted, r)
		}
		slices.SortFunc(sorted, func(a, b *Rule) int { return strings.Compare(a.Name, b.Name) })
	}
	return sorted
}

// Lookup finds a rule by name.
func Lookup(name string) (*Rule, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	r, ok := registry[name]
	return r, ok
}

// MustLookup is Lookup for names known at compile time.
func MustLookup(name string) *Rule {
	r, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("rules: no rule %q", name))
	}
	return r
}

// OptionDefault returns the declared default of a rule option.
func (r *Rule) OptionDefault(name string) (any, bool) {
	for _, o := range r.Options {
		if o.Name == name {
			return o.Default, true
		}
	}
	return nil, false
}
