package analyzer

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/engine"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/rules"
)

// Options configure an analyzer built with New.
type Options struct {
	// Rules to run; nil means every registered rule (rules.All()).
	Rules []*rules.Rule
	// Disabled names rules not to run.
	Disabled []string
	// KubeVersion is the target Kubernetes version ("1.34"); empty means
	// rules.DefaultKubeVersion.
	KubeVersion string
	// RuleOptions are per-rule options by rule name, as in .webhooklint.yaml.
	RuleOptions map[string]map[string]any
	// MinSeverity is the lowest severity reported; zero means warning.
	// go vet and golangci-lint fail on any diagnostic, so info findings
	// (advice, findings a kustomize overlay decides) are shown only when
	// asked for.
	MinSeverity diag.Severity
}

// Analyzer runs every webhooklint rule on the webhooks declared in Go. Its
// flags (-kube-version, -disable) configure it under go vet and the
// standalone drivers.
var Analyzer = newAnalyzer(nil)

func init() {
	Analyzer.Flags.Func("kube-version", "target Kubernetes `version` (default "+rules.DefaultKubeVersion.String()+")",
		func(s string) error {
			if err := ValidateFlag("kube-version", s); err != nil {
				return err
			}
			flagOpts.KubeVersion = s
			return nil
		})
	Analyzer.Flags.Func("disable", "comma-separated `rules` not to run", func(s string) error {
		if err := ValidateFlag("disable", s); err != nil {
			return err
		}
		flagOpts.Disabled = append(flagOpts.Disabled, splitList(s)...)
		return nil
	})
	Analyzer.Flags.Func("min-severity", "lowest `severity` reported: error, warning or info (default warning; go vet fails on any finding)", func(s string) error {
		if err := ValidateFlag("min-severity", s); err != nil {
			return err
		}
		flagOpts.MinSeverity, _ = diag.ParseSeverity(s)
		return nil
	})
}

// ValidateFlag checks the value of one of Analyzer's flags without setting
// it, so that a driver can reject a bad command line once, before it
// starts work (go vet starts the tool once per package).
func ValidateFlag(name, value string) error {
	switch name {
	case "kube-version":
		if _, err := rules.ParseKubeVersion(value); err != nil {
			return fmt.Errorf("invalid Kubernetes version %w", err)
		}
	case "min-severity":
		if _, err := diag.ParseSeverity(value); err != nil {
			return err
		}
	case "disable":
		for _, n := range splitList(value) {
			if _, ok := rules.Lookup(n); !ok {
				return fmt.Errorf("unknown rule %q (webhooklint --list-rules lists them)", n)
			}
		}
	default:
		if Analyzer.Flags.Lookup(name) == nil {
			return fmt.Errorf("unknown flag -%s", name)
		}
	}
	return nil
}

// flagOpts holds the flag values of the package-level Analyzer.
var flagOpts = &Options{}

// New returns an analyzer with fixed options, for tests and for the
// golangci-lint plugin (which configures through its settings, not flags).
func New(opts Options) (*analysis.Analyzer, error) {
	if opts.KubeVersion != "" {
		if _, err := rules.ParseKubeVersion(opts.KubeVersion); err != nil {
			return nil, fmt.Errorf("invalid Kubernetes version %w", err)
		}
	}
	known := map[string]bool{}
	for _, r := range ruleSet(&opts) {
		known[r.Name] = true
	}
	for _, name := range opts.Disabled {
		if _, ok := rules.Lookup(name); !ok && !known[name] {
			return nil, fmt.Errorf("unknown rule %q in disabled rules", name)
		}
	}
	return newAnalyzer(&opts), nil
}

func newAnalyzer(opts *Options) *analysis.Analyzer {
	a := &analysis.Analyzer{
		Name: "webhooklint",
		Doc:  doc,
		URL:  "https://github.com/webhooklint/webhooklint/blob/main/docs/analyzer.md",
	}
	a.Run = func(pass *analysis.Pass) (any, error) {
		o := opts
		if o == nil {
			o = flagOpts
		}
		return nil, run(pass, o)
	}
	return a
}

const doc = `report Kubernetes admission webhook problems in webhooks declared in Go

webhooklint reads the webhooks a package declares in Go and runs the
webhooklint rules on them:

  - +kubebuilder:webhook and +kubebuilder:webhookconfiguration markers,
    parsed with controller-tools' own parser and turned into the
    Validating/MutatingWebhookConfiguration controller-gen would generate;
    findings point at the key=value inside the marker;
  - composite literals of the admissionregistration/v1 webhook and
    admission policy types whose values are known at compile time;
    findings point at the field.

Each diagnostic ends with the name of the rule, which is also its
category. Run it with go vet -vettool=$(command -v webhookvet) or as the
webhooklint module plugin of golangci-lint.`

func run(pass *analysis.Pass, o *Options) error {
	settings, err := o.settings()
	if err != nil {
		return err
	}
	sel := o.selection()
	r := &reporter{pass: pass, min: o.MinSeverity, sel: sel}
	rs := sel.Rules(ruleSet(o), func(r *rules.Rule) bool { return r.Check != nil })

	var ms []*marker
	// Markers are read from every file, generated or not, but not from
	// tests: controller-gen loads packages without their tests.
	for _, f := range pass.Files {
		if !isTestFile(pass, f) {
			ms = append(ms, findMarkers(f, r)...)
		}
	}
	r.suppressions = findSuppressions(pass, ms, r)
	if len(ms) > 0 {
		cfgs := generate(ms, r)
		inv := &rules.Inventory{}
		for _, mc := range cfgs {
			inv.Configs = append(inv.Configs, mc.config)
		}
		inv.Base = generatesBase(cfgs)
		r.base = inv.Base
		for _, mc := range cfgs {
			runRules(rs, mc.config, inv, settings, func(f rules.Finding) {
				if mc.deployTime(f.Path) {
					return
				}
				for p := range mc.covered {
					if fieldpath.Within(f.Path, p) {
						return
					}
				}
				s, e, _ := mc.locate(f.Path)
				r.finding(diagnostic{pos: s, end: e, severity: f.Severity, category: f.Rule, message: f.Message,
					webhook: f.Webhook, fixes: mc.ruleFixes(pass, f)}, f, inv, mc.config.Object())
			}, r, func() (token.Pos, token.Pos) { s, e, _ := mc.locate(""); return s, e })
		}
	}
	checkLiterals(pass, r, rs, sel.Rules(ruleSet(o), func(r *rules.Rule) bool { return r.CheckPolicy != nil }), settings)
	r.flush()
	return nil
}

// baseNoteOf is the note on the findings of markers that generate a
// kustomize base and depend on what the overlay changes (the backend's
// namespace and name, selectors, CA injection; DependsOnOverlay): they are
// info, and one kustomize-base note at the first of those reported says
// that a marker is not where they are fixed, as the CLI does for a base
// linted without its overlay.
func baseNoteOf(ds []diag.Diagnostic, sel *engine.Selection) []diag.Diagnostic {
	var first *diag.Diagnostic
	n := 0
	for i, d := range ds {
		if d.DependsOnOverlay {
			if first == nil || diag.Compare(diag.Diagnostic{Span: d.Span}, diag.Diagnostic{Span: first.Span}) < 0 {
				first = &ds[i]
			}
			n++
		}
	}
	if n == 0 || !sel.On(rules.KustomizeBaseRule) {
		return nil
	}
	return []diag.Diagnostic{engine.LoweredNote(rules.KustomizeBaseRule, *first, n,
		"markers generate the kustomize base config/webhook", "make the fix in a kustomize patch, not in the markers")}
}

// generatesBase reports whether the markers generate what kubebuilder
// projects keep as a kustomize base: a webhook whose marker leaves its
// Service's name or namespace to controller-gen's defaults
// (webhook-service in system), which nothing states and config/default
// renames, moves and patches. What the markers state (serviceName and
// serviceNamespace both given) is judged as written. The CLI judges a base
// linted without its overlay the same way: findings that depend on the
// overlay are info.
func generatesBase(cfgs []*markerConfig) bool {
	for _, mc := range cfgs {
		for i, w := range mc.config.Webhooks {
			if w.ClientConfig.Service == nil || i >= len(mc.hooks) {
				continue
			}
			m := mc.hooks[i].m
			_, name := m.arg("serviceName")
			_, namespace := m.arg("serviceNamespace")
			if !name || !namespace {
				return true
			}
		}
	}
	return false
}

// runRules runs rs over c. A rule that panics (a bug, perhaps on an object
// only Go code can build) becomes a diagnostic at, instead of crashing
// go vet or golangci-lint for the whole package.
func runRules(rs []*rules.Rule, c *rules.Config, inv *rules.Inventory, s *rules.Settings,
	report func(rules.Finding), r *reporter, at func() (token.Pos, token.Pos)) {
	for _, rule := range rs {
		runGuarded(rule, "webhook configuration", r, at, func() { rules.NewPass(rule, c, inv, s, report).Run() })
	}
}

// runGuarded runs one rule on one object (what names it in the message),
// reporting a panic at the object instead of crashing the build.
func runGuarded(rule *rules.Rule, what string, r *reporter, at func() (token.Pos, token.Pos), run func()) {
	if p := engine.Guard(rule.Name, run); p != nil {
		pos, end := at()
		r.report(diagnostic{pos: pos, end: end, severity: diag.Error, category: rule.Name,
			message: fmt.Sprintf("internal error: rule %s panicked on this %s: %v (please report this bug)", rule.Name, what, p.Value)})
	}
}

func ruleSet(o *Options) []*rules.Rule {
	if o.Rules != nil {
		return o.Rules
	}
	return rules.All()
}

// selection enables the rules of the rule set that -disable does not name.
func (o *Options) selection() *engine.Selection {
	return &engine.Selection{Enabled: func(name string) bool {
		return !containsString(o.Disabled, name) && slices.ContainsFunc(ruleSet(o), func(r *rules.Rule) bool { return r.Name == name })
	}}
}

func (o *Options) settings() (*rules.Settings, error) {
	s := rules.DefaultSettings()
	if o.KubeVersion != "" {
		v, err := rules.ParseKubeVersion(o.KubeVersion)
		if err != nil {
			return nil, err
		}
		s.KubeVersion = v
	}
	s.Options = o.RuleOptions
	return s, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isTestFile reports whether f is a _test.go file. Tests build webhooks
// that are wrong on purpose, and controller-gen never reads them.
func isTestFile(pass *analysis.Pass, f *ast.File) bool {
	return strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go")
}

// isGenerated skips files that say they are generated: nobody edits
// them, and their source will be linted where it is written.
func isGenerated(f *ast.File) bool { return ast.IsGenerated(f) }

// diagnostic is a finding placed in a Go file.
type diagnostic struct {
	pos, end token.Pos
	severity diag.Severity
	category string // rule name, or one of the front end's own categories
	message  string
	webhook  string // the webhook the finding is about, if any
	fixes    []suggestedFix
	// related are further locations, each with a note (the assumption an
	// info finding holds under).
	related []analysis.RelatedInformation
}

type suggestedFix struct {
	message  string
	pos, end token.Pos
	newText  string
	// rest are further edits made with the first (a rule's fix that
	// changes several values).
	rest []analysis.TextEdit
}

// reporter turns diagnostics into analysis diagnostics, dropping exact
// duplicates (two rules, or two webhooks of one marker, can land on the
// same spot with the same words).
type reporter struct {
	pass *analysis.Pass
	once sync.Once
	seen map[string]bool
	// findings are the rules' findings of the package, held until flush
	// applies one cause, one finding to them (rules.ExplainCauses), as the
	// CLI does: a server error on a field explains the practice findings
	// on it.
	findings []diag.Diagnostic
	// tokens maps the spans of findings and suppressions back to the
	// token positions go/analysis reports at (span).
	tokens map[diag.Span][2]token.Pos
	// suppressions are the package's webhooklint:ignore directives
	// (suppress.go), applied in flush.
	suppressions []*suppression
	sel          *engine.Selection
	min          diag.Severity // zero: warning
	// base says the package's markers generate a kustomize base
	// (generatesBase): their findings on what its overlay changes are
	// info, with one note (baseNoteOf).
	base bool
}

// finding holds f, a rule's finding about obj placed at d, until flush, at
// the level the context of inv gives it, as every front end does
// (engine.InContext: a base, an assumption).
func (r *reporter) finding(d diagnostic, f rules.Finding, inv *rules.Inventory, obj *diag.Object) {
	dg := diag.Diagnostic{
		Span: r.span(d.pos, d.end), Severity: d.severity, Rule: d.category, Message: d.message,
		Path: f.Path, Object: obj, Webhook: d.webhook, Fixes: heldFixes(d.fixes),
	}
	engine.InContext(&dg, f, inv.Base, dg.Span, dg.Path)
	r.findings = append(r.findings, dg)
}

// span is where pos to end is in the Go source, as every front end
// positions a finding (the engine's suppressions and causes compare
// them); tokens keeps the way back.
func (r *reporter) span(pos, end token.Pos) diag.Span {
	p, e := r.pass.Fset.Position(pos), r.pass.Fset.Position(end)
	s := diag.Span{File: p.Filename, Line: p.Line, Column: p.Column, EndLine: e.Line, EndColumn: e.Column}
	if r.tokens == nil {
		r.tokens = map[diag.Span][2]token.Pos{}
	}
	r.tokens[s] = [2]token.Pos{pos, end}
	return s
}

// flush reports the held findings that no suppression covers, one per
// cause, and the suppressions that covered nothing. go vet prints one
// line per finding, with no header: the Go source position names the
// webhook, so the message does not.
func (r *reporter) flush() {
	kept := rules.ExplainCauses(r.suppress(r.findings, r.sel))
	if r.base {
		kept = append(kept, baseNoteOf(kept, r.sel)...)
	}
	for _, d := range kept {
		pos := r.tokens[d.Span]
		var related []analysis.RelatedInformation
		for _, rel := range d.Related {
			at := r.tokens[rel.Span]
			related = append(related, analysis.RelatedInformation{Pos: at[0], End: at[1], Message: rel.Message})
		}
		r.report(diagnostic{pos: pos[0], end: pos[1], severity: d.Severity, category: d.Rule, message: diag.ShortMessage(d),
			fixes: unheldFixes(d.Fixes), related: related})
	}
	r.findings = nil
}

const docsBase = "https://github.com/webhooklint/webhooklint/blob/main/docs/"

// docURL links a diagnostic to its rule's page, or to this front end's
// documentation for the marker and controller-gen findings.
func docURL(category string) string {
	if _, ok := rules.Lookup(category); ok {
		return docsBase + "rules/" + category + ".md"
	}
	return docsBase + "analyzer.md#kubebuilder-markers"
}

func (r *reporter) report(d diagnostic) {
	if d.severity < cmp.Or(r.min, diag.Warning) {
		return
	}
	r.once.Do(func() { r.seen = map[string]bool{} })
	msg := fmt.Sprintf("%s: %s [%s]", d.severity, d.message, d.category)
	key := fmt.Sprint(d.pos, d.end, msg)
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	ad := analysis.Diagnostic{Pos: d.pos, End: d.end, Category: d.category, Message: msg, URL: docURL(d.category), Related: d.related}
	for _, f := range d.fixes {
		ad.SuggestedFixes = append(ad.SuggestedFixes, analysis.SuggestedFix{
			Message:   f.message,
			TextEdits: append([]analysis.TextEdit{{Pos: f.pos, End: f.end, NewText: []byte(f.newText)}}, f.rest...),
		})
	}
	r.pass.Report(ad)
}

// where names a position for a message: file base name and line.
func (r *reporter) where(pos token.Pos) string {
	p := r.pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}
