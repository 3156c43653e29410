package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
)

// KubeVersion is the Kubernetes minor version the manifests target.
type KubeVersion struct{ Major, Minor int }

// DefaultKubeVersion is the API server release webhooklint is conformant with.
var DefaultKubeVersion = KubeVersion{1, 37}

func (v KubeVersion) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// ParseKubeVersion reads "1.34" or "v1.34.2", the syntax of --kube-version
// and of kubeVersion in the configuration file.
func ParseKubeVersion(s string) (KubeVersion, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return KubeVersion{}, fmt.Errorf("%q: want MAJOR.MINOR, e.g. 1.37", s)
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || major != 1 || minor < 16 || minor > 99 {
		return KubeVersion{}, fmt.Errorf("%q: want 1.16 or newer, e.g. 1.37", s)
	}
	return KubeVersion{Major: major, Minor: minor}, nil
}

// AtLeast reports whether v is minor or newer (major 1 assumed).
func (v KubeVersion) AtLeast(minor int) bool { return v.Major > 1 || v.Minor >= minor }

// Settings are the run-wide inputs of every rule.
type Settings struct {
	KubeVersion KubeVersion
	// Options holds user-set rule options by rule name, then option name;
	// unset options take the rule's declared default.
	Options map[string]map[string]any
	// Now is the instant certificate checks compare against (fixed in
	// tests); rules read it with Clock.
	Now time.Time
	// OnClock, when set, is told when a rule reads the clock, and until
	// when what it found holds: a cache keeps those findings only as long.
	OnClock func(now, until time.Time)
	// Provider is the platform the manifests are for (Generic when empty).
	Provider Provider
	// TypeCheckPolicy runs the API server's policy type checker
	// (internal/policytypes.Check); nil leaves admission-policy-types
	// silent. The linter sets it; the go vet analyzer, which must not link
	// the admission plugins, does not.
	TypeCheckPolicy PolicyTypeChecker
}

// PolicyTypeChecker type-checks a ValidatingAdmissionPolicy's expressions
// against the kinds and params schemas resolves.
type PolicyTypeChecker func(*admissionv1.ValidatingAdmissionPolicy, PolicySchemas) []admissionv1.ExpressionWarning

// PolicySchemas resolves kinds to resources and OpenAPI schemas, as a
// cluster's discovery does for the type checker.
type PolicySchemas interface {
	meta.RESTMapper
	ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error)
}

// DefaultSettings targets DefaultKubeVersion with default options.
func DefaultSettings() *Settings {
	return &Settings{KubeVersion: DefaultKubeVersion, Now: time.Now(), Provider: Generic}
}

// Finding is what a rule reports; a front end turns Path into a position.
type Finding struct {
	Rule     string
	Severity diag.Severity
	// Path is the API field path as the server prints it; empty means the
	// whole object.
	Path    string
	Message string
	// AtKey anchors the finding on the mapping key rather than its value
	// (unknown fields, and fields whose mere presence is the problem).
	AtKey bool
	// Webhook is the name of the webhook the finding is about, if any.
	Webhook string
	// DependsOnOverlay marks a finding that judges what a kustomize
	// overlay changes (namespaces, name prefixes, selectors, the Service,
	// CA injection). On a base linted without its overlay (Inventory.Base)
	// the engine reports it at info.
	DependsOnOverlay bool
	// Assumes, when set, is the assumption the finding holds under (the
	// context model: warnings and errors rest on stated or given facts)
	// and how to state it: the finding is reported at info, with it.
	Assumes string
	// Within narrows the finding to part of the string value at Path (a
	// sub-expression of a CEL expression); nil means the whole value.
	Within *ValueSpan
	// Cause, when set, is the field of another object of the unit that a
	// maintainer changes to fix the finding (a backend's replicas, a
	// Service's port): the finding is located there, and Path, on the
	// webhook, becomes its related location. A change to that object alone
	// (a pull request) then reports the finding it causes.
	Cause *Cause
	// Fixes resolve the finding (see FieldFix); each names one of the
	// rule's declared fixes.
	Fixes []FieldFix
}

// Cause is a field of an object beside the webhook configuration.
type Cause struct {
	Object diag.Object
	// Path is the field path in Object; a field that is not written is
	// located at its closest written parent, where a reader adds it.
	Path string
}

// ValueSpan is a part of a string value, counted in non-blank characters
// (not spaces, tabs or line breaks) from the start of the value: Start is
// how many come before the part, End how many up to its end. Blanks are
// left out because YAML folding, block scalars and quoting change them
// between the file and the value; the front end maps the count back to a
// column (manifest.Document.LocateWithin).
type ValueSpan struct{ Start, End int }

// SpanOf returns the ValueSpan of the characters [from, to) of value
// (offsets in characters, not bytes).
func SpanOf(value string, from, to int) *ValueSpan {
	sp := &ValueSpan{}
	i := 0
	for _, r := range value {
		if i >= to {
			break
		}
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
			if i < from {
				sp.Start++
			}
			sp.End++
		}
		i++
	}
	if sp.End <= sp.Start {
		return nil
	}
	return sp
}

// Pass is one rule's view of one configuration, or of one
// CustomResourceDefinition for the rules' CheckCRD.
type Pass struct {
	Config *Config
	// CRD is set, and Config nil, when a rule's CheckCRD runs.
	CRD *apiextensionsv1.CustomResourceDefinition
	// Policy is set, and Config nil, when a rule's CheckPolicy runs.
	Policy   *Policy
	Input    *Inventory
	Settings *Settings

	rule   *Rule
	report func(Finding)
}

// NewPass prepares a run of rule r over c; report receives every finding.
func NewPass(r *Rule, c *Config, in *Inventory, s *Settings, report func(Finding)) *Pass {
	if in == nil {
		in = &Inventory{Configs: []*Config{c}}
	}
	if s == nil {
		s = DefaultSettings()
	}
	return &Pass{Config: c, Input: in, Settings: s, rule: r, report: report}
}

// NewCRDPass prepares a run of rule r's CheckCRD over crd.
func NewCRDPass(r *Rule, crd *apiextensionsv1.CustomResourceDefinition, in *Inventory, s *Settings, report func(Finding)) *Pass {
	if in == nil {
		in = &Inventory{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}}
	}
	if s == nil {
		s = DefaultSettings()
	}
	return &Pass{CRD: crd, Input: in, Settings: s, rule: r, report: report}
}

// NewPolicyPass prepares a run of rule r's CheckPolicy over pol.
func NewPolicyPass(r *Rule, pol *Policy, in *Inventory, s *Settings, report func(Finding)) *Pass {
	if in == nil {
		in = &Inventory{Policies: []*Policy{pol}}
	}
	if s == nil {
		s = DefaultSettings()
	}
	return &Pass{Policy: pol, Input: in, Settings: s, rule: r, report: report}
}

// Run executes the rule.
func (p *Pass) Run() {
	switch {
	case p.Policy != nil:
		// A kind the target does not serve is never validated (the apply
		// fails first): unserved-api-version says so, and nothing else.
		if p.rule.CheckPolicy != nil && (p.rule.Name == UnservedAPIVersionRule || PolicyServed(p.Policy.Kind, p.Settings.KubeVersion)) {
			p.rule.CheckPolicy(p)
		}
	case p.CRD != nil:
		// Likewise a CRD in a version the target does not serve: the
		// apply fails, so no conversion webhook of it is ever called.
		if p.rule.CheckCRD != nil && (p.rule.Name == UnservedAPIVersionRule || CRDServed(p.CRD, p.Settings.KubeVersion)) {
			p.rule.CheckCRD(p)
		}
	case p.rule.Check != nil:
		p.rule.Check(p)
	}
}

// Rule is the rule being run.
func (p *Pass) Rule() *Rule { return p.rule }

// For turns p into the pass of rule r over the same object and returns it:
// every enabled rule checks each object in turn, and a pass of its own for
// each was a tenth of the rules' allocations on large inputs.
func (p *Pass) For(r *Rule) *Pass {
	p.rule = r
	return p
}

// Reportf reports at path with the rule's default severity.
func (p *Pass) Reportf(path *field.Path, format string, args ...any) {
	p.ReportSeverity(p.rule.Severity, path, fmt.Sprintf(format, args...))
}

// ReportSeverity reports at path with an explicit severity, for rules
// whose findings are not all equally serious.
func (p *Pass) ReportSeverity(sev diag.Severity, path *field.Path, msg string) {
	p.emit(Finding{Severity: sev, Path: PathString(path), Message: msg})
}

// ReportFieldErrors reports API-style field errors (as the server prints
// them) with the rule's default severity.
func (p *Pass) ReportFieldErrors(errs field.ErrorList) {
	for _, e := range errs {
		p.emit(Finding{Severity: p.rule.Severity, Path: e.Field, Message: ConciseServerMessage(e.Error())})
	}
}

// ConciseServerMessage is the API server's text for a field error, made to
// fit one line: without the regular expression of name errors and without
// the positions and source excerpts of CEL compile errors. Nothing else of
// the server's wording changes, so users can still search for it.
func ConciseServerMessage(msg string) string {
	msg = withoutRegexp(msg)
	if !strings.Contains(msg, celErrorPrefix) {
		return msg
	}
	var kept []string
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue // the source line and the caret under it
		}
		kept = append(kept, withoutCELPosition(line))
	}
	return strings.Join(kept, "; ")
}

// celErrorPrefix starts each error cel-go prints: ERROR: <input>:1:19: …
const celErrorPrefix = "ERROR: <input>:"

// withoutCELPosition drops "ERROR: <input>:L:C: " from a line.
func withoutCELPosition(line string) string {
	i := strings.Index(line, celErrorPrefix)
	if i < 0 {
		return line
	}
	rest := line[i+len(celErrorPrefix):]
	// Skip "L:C: ".
	for range 2 {
		j := strings.IndexByte(rest, ':')
		if j < 0 || strings.Trim(rest[:j], "0123456789") != "" {
			return line
		}
		rest = rest[j+1:]
	}
	return line[:i] + strings.TrimPrefix(rest, " ")
}

// regexpNote is how apimachinery's name validators end their messages.
const regexpNote = ", regex used for validation is '"

// withoutRegexp drops the regular expression apimachinery appends to name
// errors ("…(e.g. 'example.com', regex used for validation is '…')"): the
// rule above it says the same in words, and a pattern is no help in a
// one-line message. Everything else of the server's text is kept.
func withoutRegexp(msg string) string {
	for {
		i := strings.Index(msg, regexpNote)
		if i < 0 {
			return msg
		}
		end := strings.IndexByte(msg[i+len(regexpNote):], '\'')
		if end < 0 {
			return msg
		}
		msg = msg[:i] + msg[i+len(regexpNote)+end+1:]
	}
}

// Emit reports a fully formed finding; Rule is filled in.
func (p *Pass) Emit(f Finding) { p.emit(f) }

func (p *Pass) emit(f Finding) {
	f.Rule = p.rule.Name
	f.DependsOnOverlay = f.DependsOnOverlay || p.rule.DependsOnOverlay
	if f.Severity == 0 {
		f.Severity = p.rule.Severity
	}
	if f.Webhook == "" {
		f.Webhook = p.webhookAt(f.Path)
	}
	p.report(f)
}

// webhookAt names the webhook a path points into (webhooks[i]…).
func (p *Pass) webhookAt(path string) string {
	if p.Config == nil {
		return ""
	}
	if i, _, ok := fieldpath.Webhook(path); ok && i < len(p.Config.Webhooks) {
		return p.Config.Webhooks[i].Name
	}
	return ""
}

// IntOption returns a rule option as an int (user value or default).
func (p *Pass) IntOption(name string) int {
	switch v := p.option(name).(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	return 0
}

// StringsOption returns a rule option as a list of strings.
func (p *Pass) StringsOption(name string) []string {
	switch v := p.option(name).(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (p *Pass) option(name string) any {
	if opts, ok := p.Settings.Options[p.rule.Name]; ok {
		if v, ok := opts[name]; ok {
			return v
		}
	}
	v, _ := p.rule.OptionDefault(name)
	return v
}

// PathString renders a field path; nil is the whole object.
func PathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return p.String()
}

// Clock is the instant to compare certificates against: Now, or the time
// when Now is unset. until says, given that instant, the first instant at
// which what the rule finds could differ; OnClock is told both.
func (s *Settings) Clock(until func(now time.Time) time.Time) time.Time {
	now := s.Now
	if now.IsZero() {
		now = time.Now()
	}
	if s.OnClock != nil {
		s.OnClock(now, until(now))
	}
	return now
}
