// Package lint runs the rules over loaded manifests (or over typed objects
// from another front end) and turns their findings into positioned,
// sorted, de-duplicated diagnostics.
package lint

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/engine"
	"github.com/webhooklint/webhooklint/internal/intern"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/internal/policytypes"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// Options select and tune the rules of one run.
type Options struct {
	Settings *rules.Settings
	// Enabled reports whether a rule runs; nil enables every rule.
	Enabled func(rule string) bool
	// Severity overrides rules' default severities.
	Severity map[string]diag.Severity
	// Jobs bounds parallelism; 0 means one worker per CPU.
	Jobs int
	// Live is the state of a running cluster for the live rules; nil
	// (files) keeps them silent. Fixtures set it from their header.
	Live *rules.LiveInventory
	// Skip drops files (never stdin) from the expanded arguments: the
	// configuration's ignore globs.
	Skip func(file string) bool
	// NoInlineSuppressions makes every webhooklint:ignore comment and
	// webhooklint.io/ignore annotation a finding instead of a suppression
	// (--no-inline-suppressions, inlineSuppressions: false).
	NoInlineSuppressions bool

	// strings shares a unit's repeated messages and paths (LintUnit).
	strings *intern.Table
	// checks are the enabled rules of each kind of check, chosen once
	// (withDefaults): chosen for each object, they were 22 MB of garbage
	// over 24,000 configurations.
	checks [len(checkKinds)][]*rules.Rule
}

// checkKinds are the kinds of check a rule may have: of a webhook
// configuration, of a CRD, of an admission policy.
var checkKinds = [...]func(*rules.Rule) bool{
	func(r *rules.Rule) bool { return r.Check != nil },
	func(r *rules.Rule) bool { return r.CheckCRD != nil },
	func(r *rules.Rule) bool { return r.CheckPolicy != nil },
}

const (
	configChecks = iota
	crdChecks
	policyChecks
)

// enabled is the enabled rules of a kind of check.
func (o *Options) enabled(kind int) []*rules.Rule {
	if rs := o.checks[kind]; rs != nil {
		return rs
	}
	return o.Selection().Rules(rules.All(), checkKinds[kind])
}

// Selection is the options' choice of rules and severities, for the engine.
func (o *Options) Selection() *engine.Selection {
	return &engine.Selection{Enabled: o.Enabled, Severity: o.Severity}
}

// Workers is how many goroutines a run may use: Jobs, or one per CPU.
func (o *Options) Workers() int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	return runtime.GOMAXPROCS(0)
}

// withDefaults fills in unset options once, before any worker reads them.
func (o Options) withDefaults() Options {
	if o.Settings == nil {
		o.Settings = rules.DefaultSettings()
	}
	if o.Settings.TypeCheckPolicy == nil {
		s := *o.Settings
		s.TypeCheckPolicy = typeCheckPolicy
		o.Settings = &s
	}
	for k, has := range checkKinds {
		o.checks[k] = o.Selection().Rules(rules.All(), has)
	}
	return o
}

// typeCheckPolicy is the API server's policy type checker, for
// admission-policy-types.
func typeCheckPolicy(vap *admissionv1.ValidatingAdmissionPolicy, schemas rules.PolicySchemas) []admissionv1.ExpressionWarning {
	return policytypes.Check(vap, schemas)
}

// InternalError is a bug in webhooklint (a rule panicked). The run still
// completes for everything else; the CLI exits with status 3.
type InternalError struct {
	Rule, File string
	Panic      any
	Stack      []byte
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error in rule %s on %s: %v", e.Rule, e.File, e.Panic)
}

// Result is the outcome of linting.
type Result struct {
	Files       []*manifest.File
	Diagnostics []diag.Diagnostic
	// Configs counts the webhook configurations linted, Policies the
	// admission policies and their bindings, CRDs the
	// CustomResourceDefinitions.
	Configs, Policies, CRDs int
	// Unchecked counts the distinct sources the input names that were not
	// read (offline), for the summary.
	Unchecked int
	Internal  []*InternalError
}

// Unit is one deployment unit: what is installed together (a kustomize
// build, a rendered chart, a loose manifest file). Cross-object rules see
// its objects and nothing else.
type Unit struct {
	Files []*manifest.File
	// Base marks a kustomize base linted without its overlay (see
	// rules.Inventory.Base): findings that depend on the overlay are
	// reported at info.
	Base bool
	// HelmRelease marks a rendered chart (see rules.Inventory.HelmRelease).
	HelmRelease bool
	// KustomizeBuild marks a kustomize build (see rules.Inventory.KustomizeBuild).
	KustomizeBuild bool
	// Loose marks a plain folder's files linted as one install only by
	// assumption (see rules.Inventory.Loose): the assumption and how to
	// state it.
	Loose *rules.LooseFolder
	// Applied marks a unit given as applied as written (see
	// rules.Inventory.Applied): units.entries names it, or a GitOps entry
	// installs it.
	Applied bool
	// Located reports whether the caller is done with a webhook
	// configuration once its findings are located: LintUnit then drops
	// its positions (manifest.Document.DropPositions) when its own rules
	// have run, and its typed object (Config) when every rule of the unit
	// has, before the findings are gathered. Nil keeps all.
	Located func(*manifest.Document) bool
	// Edits, when set, turns the rules' fixes on a document into text
	// edits instead of manifest.Document.TextEdits: for text that is not
	// a file on disk (a kustomize build), the front end that made it knows
	// which files wrote its fields. One list per fix, nil where a fix
	// cannot be made; called from several goroutines at once.
	Edits func(d *manifest.Document, fixes []rules.FieldFix) [][]diag.Edit
}

// LintUnit lints one deployment unit.
func LintUnit(u Unit, opts Options) *Result {
	opts = opts.withDefaults()
	// A unit of thousands of configurations holds one finding per
	// configuration for each rule, most with the same message and path,
	// until it is reported.
	opts.strings = intern.New()
	files := u.Files
	res := &Result{Files: files}
	inv := manifest.Inventory(files)
	// A CRD the target does not serve is never installed.
	inv.CRDs = slices.DeleteFunc(inv.CRDs, func(crd *apiextensionsv1.CustomResourceDefinition) bool {
		return !rules.CRDServed(crd, opts.Settings.KubeVersion)
	})
	inv.Live = opts.Live
	inv.Base = u.Base
	inv.HelmRelease = u.HelmRelease
	inv.KustomizeBuild = u.KustomizeBuild
	inv.Loose = u.Loose
	inv.Applied = u.Applied
	var docs []*manifest.Document
	for _, f := range files {
		res.Diagnostics = append(res.Diagnostics, f.Diagnostics...)
		for _, d := range f.Docs {
			switch {
			case d.Config != nil:
				docs = append(docs, d)
				res.Configs++
			case d.CRD != nil:
				docs = append(docs, d) // its conversion webhook
				res.CRDs++
			case d.Policy != nil:
				docs = append(docs, d)
				res.Policies++
			default:
				res.Diagnostics = append(res.Diagnostics, d.Diagnostics...)
			}
		}
	}
	out := make([]packedDoc, len(docs))
	internal := make([][]*InternalError, len(docs))
	located := make([]bool, len(docs))
	parallel.For(len(docs), opts.Workers(), func(i int) {
		var ds []diag.Diagnostic
		ds, internal[i] = lintDocument(docs[i], inv, &opts, u.Edits)
		out[i] = pack(docs[i].File, ds)
		// Only configurations: locateCauses below reads other kinds' positions.
		if d := docs[i]; d.Config != nil && u.Located != nil && u.Located(d) {
			d.DropPositions()
			located[i] = true
		}
	})
	// The cross-object rules read every configuration of the unit until
	// the last has run; from here on the findings are all that is left of
	// a located one, and its typed object would be held beside them while
	// they are gathered (24,000 configurations: 32 to 58 MB).
	for i, d := range docs {
		if located[i] {
			d.Config = nil
		}
	}
	res.Diagnostics = gather(res.Diagnostics, out)
	for i := range docs {
		res.Internal = append(res.Internal, internal[i]...)
	}
	res.Diagnostics = finish(res.Diagnostics, &opts)
	locateCauses(files, res.Diagnostics)
	return res
}

// gather appends each document's findings to ds, unpacked, in one
// allocation of the size they need, dropping each document's own as it
// goes: a unit of thousands of broken configurations holds a hundred
// thousand findings, and growing one slice by doubling kept three copies
// alive at its peak.
func gather(ds []diag.Diagnostic, out []packedDoc) []diag.Diagnostic {
	n := len(ds)
	for _, o := range out {
		n += o.len()
	}
	all := make([]diag.Diagnostic, len(ds), n)
	copy(all, ds)
	for i := range out {
		all = out[i].appendTo(all)
		out[i] = packedDoc{}
	}
	return all
}

// Configs lints typed configurations that have no file (a live cluster):
// diagnostics carry the object and field path but no position.
func Configs(configs []*rules.Config, inv *rules.Inventory, opts Options) *Result {
	opts = opts.withDefaults()
	if inv == nil {
		inv = &rules.Inventory{Configs: configs}
	}
	res := lintUnlocated(configs, &opts, func(c *rules.Config) ([]rules.Finding, []*InternalError) {
		return runRules(c, inv, &opts, "", nil)
	}, (*rules.Config).Object)
	res.Configs = len(configs)
	return res
}

// Policies lints typed admission policies and bindings that have no file
// (a live cluster), as Configs lints configurations.
func Policies(policies []*rules.Policy, inv *rules.Inventory, opts Options) *Result {
	opts = opts.withDefaults()
	if inv == nil {
		inv = &rules.Inventory{Policies: policies}
	}
	return lintUnlocated(policies, &opts, func(pol *rules.Policy) ([]rules.Finding, []*InternalError) {
		return runPolicyRules(pol, inv, &opts, "", nil)
	}, (*rules.Policy).Object)
}

// lintUnlocated runs the rules over objects that have no file, in
// parallel, and turns their findings into diagnostics on the object.
func lintUnlocated[T any](objs []T, opts *Options, run func(T) ([]rules.Finding, []*InternalError), object func(T) *diag.Object) *Result {
	res := &Result{}
	out := make([]packedDoc, len(objs))
	internal := make([][]*InternalError, len(objs))
	parallel.For(len(objs), opts.Workers(), func(i int) {
		findings, errs := run(objs[i])
		ds := make([]diag.Diagnostic, 0, len(findings))
		for _, f := range findings {
			ds = append(ds, diag.Diagnostic{
				Severity: f.Severity, Rule: f.Rule, Message: f.Message, Path: f.Path,
				Object: object(objs[i]), Webhook: f.Webhook,
			})
		}
		out[i], internal[i] = pack("", ds), errs
	})
	res.Diagnostics = gather(nil, out)
	for i := range objs {
		res.Internal = append(res.Internal, internal[i]...)
	}
	res.Diagnostics = finish(res.Diagnostics, opts)
	return res
}

func lintDocument(d *manifest.Document, inv *rules.Inventory, opts *Options, edits func(*manifest.Document, []rules.FieldFix) [][]diag.Edit) ([]diag.Diagnostic, []*InternalError) {
	// The findings are copied into diagnostics below: their list is
	// scratch, reused by the next document.
	scratch := findingLists.Get().(*findingList)
	defer scratch.release()
	var findings []rules.Finding
	var errs []*InternalError
	switch {
	case d.Config != nil:
		findings, errs = runRules(d.Config, inv, opts, d.File, scratch.list)
	case d.Policy != nil:
		findings, errs = runPolicyRules(d.Policy, inv, opts, d.File, scratch.list)
	default:
		findings, errs = runCRDRules(d.CRD, inv, opts, d.File, scratch.list)
	}
	scratch.list = findings
	unserved := d.Policy != nil && !rules.PolicyServed(d.Kind, opts.Settings.KubeVersion)
	ds := make([]diag.Diagnostic, 0, len(findings)+len(d.Diagnostics))
	if !unserved {
		// Unserved, the apply fails before validation: the rule's finding
		// is all there is to say.
		ds = append(ds, d.Diagnostics...)
	}
	obj := d.Object()
	var pending []fixable
	for _, f := range findings {
		at := d.Locate(f.Path, f.AtKey)
		if f.Within != nil {
			if r, ok := d.LocateWithin(f.Path, f.Within.Start, f.Within.End); ok {
				at = r
			}
		}
		dg := diag.Diagnostic{
			Span:     at.In(d.File),
			Severity: f.Severity, Rule: f.Rule, Message: opts.strings.String(f.Message), Path: opts.strings.String(f.Path),
			Object: obj, Webhook: f.Webhook,
		}
		inContext(&dg, f, inv, d, obj)
		if len(f.Fixes) > 0 {
			pending = append(pending, fixable{at: len(ds), rule: f.Rule, fixes: f.Fixes})
		}
		ds = append(ds, dg)
	}
	attachFixes(d, ds, pending, edits)
	if unserved {
		return ds, errs // as before validation, no suppression applies either
	}
	return applySuppressions(d, ds, opts), errs
}

// findingList is a document's findings while they become diagnostics.
type findingList struct{ list []rules.Finding }

var findingLists = sync.Pool{New: func() any { return &findingList{} }}

// release empties the list, keeping nothing it held alive, and lends it
// to the next document.
func (l *findingList) release() {
	clear(l.list)
	l.list = l.list[:0]
	findingLists.Put(l)
}

// inContext sets what a finding's context changes: its level on a base or
// under an assumption, as every front end sets it (engine.InContext), and,
// for a finding located where its fix goes (locateCauses), the webhook it
// is about as a related location where the finding is now.
func inContext(dg *diag.Diagnostic, f rules.Finding, inv *rules.Inventory, d *manifest.Document, obj *diag.Object) {
	// The assumption is where the finding is now, as the webhook is for a
	// cause; both go with it when it moves to where its fix goes.
	at, path := dg.Span, dg.Path
	if f.Cause != nil {
		webhook := diag.Related{
			Span: dg.Span,
			Path: dg.Path, Object: obj, Message: relatedWebhook(d, f.Webhook),
		}
		cause := f.Cause.Object
		dg.Object, dg.Path, dg.Related = &cause, f.Cause.Path, []diag.Related{webhook}
	}
	engine.InContext(dg, f, inv.Base, at, path)
}

func relatedWebhook(d *manifest.Document, webhook string) string {
	if webhook == "" {
		return fmt.Sprintf("%s %q", d.Kind, d.Name)
	}
	return fmt.Sprintf("webhook %q in %s %q", webhook, d.Kind, d.Name)
}

// locateCauses moves findings whose fix is on another object of the unit
// (rules.Finding.Cause) to that object's field. A finding whose object is
// not among the files (a live cluster's) stays at the webhook.
func locateCauses(files []*manifest.File, ds []diag.Diagnostic) {
	type key struct{ kind, namespace, name string }
	var docs map[key]*manifest.Document
	moved := false
	for i := range ds {
		d := &ds[i]
		if len(d.Related) == 0 || d.Object == nil || rules.IsWebhookKind(d.Object.APIVersion, d.Object.Kind) {
			continue
		}
		if docs == nil {
			docs = map[key]*manifest.Document{}
			for _, f := range files {
				for _, doc := range f.Docs {
					if doc.Config == nil && doc.Positions != nil {
						docs[key{doc.Kind, doc.Namespace, doc.Name}] = doc
					}
				}
			}
		}
		doc := docs[key{d.Object.Kind, d.Object.Namespace, d.Object.Name}]
		if doc == nil {
			continue
		}
		at := doc.Locate(d.Path, false)
		d.Span = at.In(doc.File)
		moved = true
	}
	if moved {
		slices.SortFunc(ds, diag.Compare)
	}
}

// runRules runs every enabled rule over one configuration.
func runRules(c *rules.Config, inv *rules.Inventory, opts *Options, file string, into []rules.Finding) ([]rules.Finding, []*InternalError) {
	return runChecks(opts, file, configChecks, into,
		func(r *rules.Rule, report func(rules.Finding)) *rules.Pass {
			return rules.NewPass(r, c, inv, opts.Settings, report)
		})
}

// runCRDRules runs every enabled rule's CheckCRD over one
// CustomResourceDefinition.
func runCRDRules(crd *apiextensionsv1.CustomResourceDefinition, inv *rules.Inventory, opts *Options, file string, into []rules.Finding) ([]rules.Finding, []*InternalError) {
	return runChecks(opts, file, crdChecks, into,
		func(r *rules.Rule, report func(rules.Finding)) *rules.Pass {
			return rules.NewCRDPass(r, crd, inv, opts.Settings, report)
		})
}

// runPolicyRules runs every enabled rule's CheckPolicy over one admission
// policy or policy binding.
func runPolicyRules(pol *rules.Policy, inv *rules.Inventory, opts *Options, file string, into []rules.Finding) ([]rules.Finding, []*InternalError) {
	return runChecks(opts, file, policyChecks, into,
		func(r *rules.Rule, report func(rules.Finding)) *rules.Pass {
			return rules.NewPolicyPass(r, pol, inv, opts.Settings, report)
		})
}

// runChecks runs every enabled rule that checks the object (a kind of
// check) through the pass newPass prepares, turning a panicking rule into
// an InternalError instead of a crash.
func runChecks(opts *Options, file string, kind int, into []rules.Finding,
	newPass func(*rules.Rule, func(rules.Finding)) *rules.Pass) (findings []rules.Finding, errs []*InternalError) {
	findings = into[:0]
	report := func(f rules.Finding) { findings = append(findings, f) }
	panics := engine.Run(opts.enabled(kind), func(r *rules.Rule) *rules.Pass { return newPass(r, report) })
	for _, p := range panics {
		errs = append(errs, &InternalError{Rule: p.Rule, File: file, Panic: p.Value, Stack: p.Stack})
	}
	return findings, errs
}

// applySuppressions drops findings a suppression covers and reports the
// suppressions that covered nothing.
func applySuppressions(d *manifest.Document, ds []diag.Diagnostic, opts *Options) []diag.Diagnostic {
	if len(d.Suppressions) == 0 {
		return ds
	}
	if opts.NoInlineSuppressions {
		return append(ds, forbiddenSuppressions(d)...)
	}
	sups := make([]*engine.Suppression, len(d.Suppressions))
	for i, s := range d.Suppressions {
		where := "on this node"
		if s.Path == "" {
			where = "on this object"
		}
		sups[i] = &engine.Suppression{
			Rules: s.Rules, What: "suppression", Where: where,
			At: diag.Diagnostic{
				Span: s.At.In(d.File),
				Path: s.Path, Object: d.Object(),
			},
			Covers: func(dg *diag.Diagnostic) bool {
				if dg.Rule == rules.InvalidSuppressionRule {
					return false
				}
				path := dg.Path
				if len(dg.Related) > 0 {
					path = dg.Related[0].Path // suppressed on the webhook it is about
				}
				return s.Covers(dg.Rule, path)
			},
		}
	}
	kept, unused := engine.Apply(ds, sups, opts.Selection())
	return append(kept, unused...)
}

// forbiddenSuppressions reports each inline suppression of d as an
// invalid-suppression finding where it is written; the findings it would
// have silenced stay.
func forbiddenSuppressions(d *manifest.Document) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, s := range d.Suppressions {
		kind := "comment"
		if s.Annotation {
			kind = "annotation " + manifest.IgnoreAnnotation
		}
		out = append(out, diag.Diagnostic{
			Span:     s.At.In(d.File),
			Severity: rules.MustLookup(rules.InvalidSuppressionRule).Severity, Rule: rules.InvalidSuppressionRule,
			Message: fmt.Sprintf("inline suppressions are forbidden (--no-inline-suppressions, inlineSuppressions: false): "+
				"this %s does not silence %s; fix the finding or list it under the configuration's suppressions",
				kind, strings.Join(s.Rules, ", ")),
			Path: s.Path, Object: d.Object(),
		})
	}
	return out
}

// finish drops disabled rules' findings, applies severity overrides, sorts
// and de-duplicates, and reports one finding per cause (rules.ExplainCauses).
func finish(ds []diag.Diagnostic, opts *Options) []diag.Diagnostic {
	return rules.ExplainCauses(diag.Normalize(opts.Selection().Select(ds)))
}
