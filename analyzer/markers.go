package analyzer

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
	sc "text/scanner"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
	"sigs.k8s.io/controller-tools/pkg/webhook"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/rules"
)

// Categories of the findings the marker front end makes itself (rule
// findings use the rule name).
const (
	// categoryMarker: a marker controller-gen cannot parse, or one it
	// silently ignores.
	categoryMarker = "kubebuilder-marker"
	// categoryControllerGen: markers that parse but on which
	// controller-gen stops with an error, so no manifest is generated.
	categoryControllerGen = "controller-gen"
)

// markerRegistry knows the two package-level webhook markers exactly as
// controller-gen defines them, so lookup and parsing are controller-gen's own.
var markerRegistry = func() *markers.Registry {
	reg := &markers.Registry{}
	for _, def := range []*markers.Definition{webhook.ConfigDefinition, webhook.WebhookConfigDefinition} {
		if err := reg.Register(def); err != nil {
			panic(err)
		}
	}
	return reg
}()

// marker is one +kubebuilder:webhook or +kubebuilder:webhookconfiguration
// comment, located in the file.
type marker struct {
	def      *markers.Definition
	text     string    // from the leading '+' to the last non-space character
	pos, end token.Pos // of text
	argsPos  token.Pos // of the first character after "+<name>:"
	args     []markerArg
}

func (m *marker) arg(key string) (markerArg, bool) {
	for _, a := range m.args {
		if a.Key == key {
			return a, true
		}
	}
	return markerArg{}, false
}

// span is where a finding about key goes: the key=value pair, or the
// whole marker when the key is absent.
func (m *marker) span(keys ...string) (token.Pos, token.Pos) {
	for _, k := range keys {
		if a, ok := m.arg(k); ok {
			return m.argsPos + token.Pos(a.KeyStart), m.argsPos + token.Pos(a.ValueEnd)
		}
	}
	return m.pos, m.end
}

// findMarkers returns the webhook markers of a file that controller-gen
// reads, in source order, and reports those it would silently skip.
func findMarkers(f *ast.File, r *reporter) []*marker {
	docOf := map[*ast.CommentGroup]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				docOf[d.Doc] = "func " + d.Name.Name
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				docOf[d.Doc] = declName(d)
			}
		}
	}
	var out []*marker
	for _, g := range f.Comments {
		for _, c := range g.List {
			m := parseMarkerComment(c)
			if m == nil {
				continue
			}
			// controller-gen collects package-level markers only from
			// free-standing comments: never from a declaration's doc
			// comment, nor from inside a declaration.
			if owner, ok := docOf[g]; ok {
				r.report(diagnostic{
					pos: m.pos, end: m.end, severity: diag.Warning, category: categoryMarker,
					message: fmt.Sprintf("controller-gen ignores this marker in the doc comment of %s; put a blank line between them", owner),
				})
				continue
			}
			if inside := enclosingDecl(f, c.Pos()); inside != "" {
				r.report(diagnostic{
					pos: m.pos, end: m.end, severity: diag.Warning, category: categoryMarker,
					message: fmt.Sprintf("controller-gen ignores this marker because it is inside %s; move it to the top level of the file", inside),
				})
				continue
			}
			out = append(out, m)
		}
	}
	return out
}

func declName(d *ast.GenDecl) string {
	if len(d.Specs) == 1 {
		switch s := d.Specs[0].(type) {
		case *ast.TypeSpec:
			return "type " + s.Name.Name
		case *ast.ValueSpec:
			if len(s.Names) > 0 {
				return d.Tok.String() + " " + s.Names[0].Name
			}
		}
	}
	return "the " + d.Tok.String() + " declaration"
}

func enclosingDecl(f *ast.File, pos token.Pos) string {
	for _, d := range f.Decls {
		if d.Pos() <= pos && pos < d.End() {
			switch d := d.(type) {
			case *ast.FuncDecl:
				return "func " + d.Name.Name
			case *ast.GenDecl:
				return declName(d)
			}
		}
	}
	return ""
}

// parseMarkerComment recognizes a webhook marker the way controller-gen
// does (a // comment whose first non-space character is '+', looked up in
// the registry) and splits its arguments.
func parseMarkerComment(c *ast.Comment) *marker {
	if !strings.HasPrefix(c.Text, "//") {
		return nil
	}
	body := c.Text[2:]
	lead := len(body) - len(strings.TrimLeft(body, " \t\r\n"))
	text := strings.TrimSpace(body)
	if !strings.HasPrefix(text, "+") {
		return nil
	}
	def := markerRegistry.Lookup(text, markers.DescribesPackage)
	if def == nil {
		return nil
	}
	m := &marker{def: def, text: text}
	m.pos = c.Slash + token.Pos(2+lead)
	m.end = m.pos + token.Pos(len(text))
	// The arguments start after "+<name>:"; controller-tools parses
	// exactly text[len(name)+2:] as the argument list.
	if n := len(def.Name) + 2; n <= len(text) {
		m.argsPos = m.pos + token.Pos(n)
		m.args = scanMarkerArgs(text[n:])
	} else {
		m.argsPos = m.end
	}
	return m
}

// parse runs controller-tools' parser and reports its errors at the
// offending character.
func (m *marker) parse(r *reporter) (any, bool) {
	m.checkTrailingComment(r)
	val, err := m.def.Parse(m.text)
	if err == nil {
		return val, true
	}
	errs := []error{err}
	var list loader.ErrList
	if errors.As(err, &list) {
		errs = list
	}
	// controller-tools stops at the first syntax error and then complains
	// about everything after it and every required argument it did not
	// reach; only the first error is news. Missing arguments alone are
	// reported together, in a stable order.
	var missing []string
	for _, e := range errs {
		var se *markers.ScannerError
		if !errors.As(e, &se) {
			r.report(diagnostic{pos: m.pos, end: m.end, severity: diag.Error, category: categoryMarker,
				message: fmt.Sprintf("controller-gen cannot parse this +%s marker: %v", m.def.Name, e)})
			return nil, false
		}
		if name, ok := strings.CutPrefix(se.Msg, "missing argument "); ok {
			missing = append(missing, name)
			continue
		}
		d := diagnostic{pos: m.pos, end: m.end, severity: diag.Error, category: categoryMarker,
			message: fmt.Sprintf("controller-gen cannot parse this +%s marker: %s", m.def.Name, se.Msg)}
		if off := se.Pos.Offset; off >= 0 && m.argsPos+token.Pos(off) < m.end {
			// Point at the value being parsed, or at the character the
			// parser stopped on when it is outside any key=value.
			d.pos = m.argsPos + token.Pos(off)
			d.end = d.pos + 1
			for _, a := range m.args {
				if a.ValueStart <= off && off < a.ValueEnd {
					d.pos, d.end = m.argsPos+token.Pos(a.ValueStart), m.argsPos+token.Pos(a.ValueEnd)
				}
			}
		}
		var key string
		if _, err := fmt.Sscanf(se.Msg, "unknown argument %q", &key); err == nil {
			d.pos, d.end = m.span(key)
		}
		r.report(d)
		return nil, false
	}
	slices.Sort(missing)
	d := diagnostic{pos: m.pos, end: m.end, severity: diag.Error, category: categoryMarker,
		message: fmt.Sprintf("controller-gen cannot parse this +%s marker: missing required argument %s", m.def.Name, strings.Join(missing, ", "))}
	if len(missing) > 1 {
		d.message = fmt.Sprintf("controller-gen cannot parse this +%s marker: missing required arguments %s", m.def.Name, strings.Join(missing, ", "))
	}
	if slices.Equal(missing, []string{`"admissionReviewVersions"`}) {
		d.fixes = []suggestedFix{appendArg(m, "admissionReviewVersions=v1")}
	}
	r.report(d)
	return nil, false
}

// checkTrailingComment warns about "// note" after a marker: the marker
// grammar has no comments, so controller-gen keeps the note as part of
// the last (unquoted) value — a webhook named "x.example.com // note".
func (m *marker) checkTrailingComment(r *reporter) {
	if len(m.args) == 0 {
		return
	}
	last := m.args[len(m.args)-1]
	value := m.text[len(m.def.Name)+2:][last.ValueStart:last.ValueEnd]
	i := strings.Index(value, " //")
	if i < 0 || strings.HasPrefix(value, `"`) || strings.HasPrefix(value, "`") {
		return
	}
	start := m.argsPos + token.Pos(last.ValueStart+i+1)
	r.report(diagnostic{pos: start, end: m.argsPos + token.Pos(last.ValueEnd), severity: diag.Warning, category: categoryMarker,
		message: fmt.Sprintf("controller-gen reads this comment as part of the value of %s (%q); put the comment on its own line", last.Key, value),
		fixes:   []suggestedFix{{message: "Remove the comment from the marker line", pos: m.argsPos + token.Pos(last.ValueStart+i), end: m.argsPos + token.Pos(last.ValueEnd)}}})
}

func appendArg(m *marker, kv string) suggestedFix {
	sep := ","
	if strings.HasSuffix(m.text, ":") || m.argsPos >= m.end {
		sep = ""
		if !strings.HasSuffix(m.text, ":") {
			sep = ":"
		}
	}
	return suggestedFix{message: "Add " + kv + " to the marker", pos: m.end, end: m.end, newText: sep + kv}
}

// markerWebhook is one parsed +kubebuilder:webhook marker.
type markerWebhook struct {
	m   *marker
	cfg webhook.Config
}

// markerConfig is one generated configuration and the markers behind it.
type markerConfig struct {
	config  *rules.Config
	hooks   []*markerWebhook // in webhooks[] order
	named   *marker          // the +kubebuilder:webhookconfiguration marker, if any
	covered map[string]bool  // paths controller-gen already failed on
}

// generate builds the configurations controller-gen would write for the
// markers of one package, reporting what controller-gen would stop on.
// Like controller-gen, a marker it would reject is left out and the
// others are still generated.
func generate(ms []*marker, r *reporter) []*markerConfig {
	var hooks []*markerWebhook
	var named [2]*marker // [validating, mutating]
	var names [2]string
	for _, m := range ms {
		val, ok := m.parse(r)
		if !ok {
			continue
		}
		switch v := val.(type) {
		case webhook.WebhookConfig:
			k := kindIndex(v.Mutating)
			if named[k] != nil {
				kind := "validating"
				if v.Mutating {
					kind = "mutating"
				}
				s, e := m.span("name")
				r.report(diagnostic{pos: s, end: e, severity: diag.Error, category: categoryControllerGen,
					message: fmt.Sprintf("controller-gen fails: duplicate %s %s with name %s (the first is at %s)",
						kind, m.def.Name, v.Name, r.where(named[k].pos))})
				continue
			}
			named[k], names[k] = m, v.Name
		case webhook.Config:
			hooks = append(hooks, &markerWebhook{m: m, cfg: v})
		}
	}
	slices.SortStableFunc(hooks, func(a, b *markerWebhook) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })

	var out []*markerConfig
	var vwc admissionv1.ValidatingWebhookConfiguration
	var mwc admissionv1.MutatingWebhookConfiguration
	var vhooks, mhooks []*markerWebhook
	for _, h := range hooks {
		if !h.checkVersions(r) {
			continue
		}
		if h.cfg.Mutating {
			w, err := h.cfg.ToMutatingWebhook()
			if err != nil {
				h.reportConversion(err, r)
				continue
			}
			mwc.Webhooks = append(mwc.Webhooks, w)
			mhooks = append(mhooks, h)
		} else {
			w, err := h.cfg.ToValidatingWebhook()
			if err != nil {
				h.reportConversion(err, r)
				continue
			}
			vwc.Webhooks = append(vwc.Webhooks, w)
			vhooks = append(vhooks, h)
		}
	}
	// controller-gen sorts the converted webhooks by name once more
	// (a stable sort of an already sorted list: the order is unchanged).
	if len(vhooks) > 0 {
		vwc.Name = "validating-webhook-configuration"
		if names[0] != "" {
			vwc.Name = names[0]
		}
		vwc.APIVersion, vwc.Kind = rules.V1, rules.Validating
		mc := &markerConfig{config: rules.FromValidating(rules.V1, &vwc), hooks: vhooks, named: named[0]}
		mc.checkGenerated(r)
		out = append(out, mc)
	}
	if len(mhooks) > 0 {
		mwc.Name = "mutating-webhook-configuration"
		if names[1] != "" {
			mwc.Name = names[1]
		}
		mwc.APIVersion, mwc.Kind = rules.V1, rules.Mutating
		mc := &markerConfig{config: rules.FromMutating(rules.V1, &mwc), hooks: mhooks, named: named[1]}
		mc.checkGenerated(r)
		out = append(out, mc)
	}
	return out
}

func kindIndex(mutating bool) int {
	if mutating {
		return 1
	}
	return 0
}

// checkVersions mirrors controller-gen's webhookVersions check: only v1
// configurations can be generated.
func (h *markerWebhook) checkVersions(r *reporter) bool {
	for _, v := range h.cfg.WebhookVersions {
		if v != "v1" {
			s, e := h.m.span("webhookVersions")
			r.report(diagnostic{pos: s, end: e, severity: diag.Error, category: categoryControllerGen,
				message: fmt.Sprintf("controller-gen fails: unsupported webhook version: %s (only v1 configurations can be generated)", v)})
			return false
		}
	}
	return true
}

// reportConversion places an error of Config.To*Webhook on the argument it
// is about.
func (h *markerWebhook) reportConversion(err error, r *reporter) {
	msg := err.Error()
	var s, e token.Pos
	switch {
	case strings.Contains(msg, "matchPolicy"):
		s, e = h.m.span("matchPolicy")
	case strings.Contains(msg, "`url` or `path`"):
		s, e = h.m.span("url", "path")
	case strings.Contains(msg, "patch"):
		s, e = h.m.span("patch")
	default:
		s, e = h.m.span()
	}
	r.report(diagnostic{pos: s, end: e, severity: diag.Error, category: categoryControllerGen,
		message: "controller-gen fails: " + msg})
}

// checkGenerated mirrors the checks controller-gen makes on the generated
// v1 webhooks before writing the manifest. Their paths are remembered so
// that rules reporting the same field do not say it twice.
func (mc *markerConfig) checkGenerated(r *reporter) {
	mc.covered = map[string]bool{}
	for i, w := range mc.config.Webhooks {
		h := mc.hooks[i]
		prefix := w.Path().String()
		switch {
		case w.SideEffects == nil:
			r.report(diagnostic{pos: h.m.pos, end: h.m.end, severity: diag.Error, category: categoryControllerGen,
				message: "controller-gen fails: SideEffects is required for creating v1 {Mutating,Validating}WebhookConfiguration; add sideEffects=None",
				fixes:   []suggestedFix{appendArg(h.m, "sideEffects=None")}})
			mc.covered[prefix+".sideEffects"] = true
		case *w.SideEffects == admissionv1.SideEffectClassUnknown || *w.SideEffects == admissionv1.SideEffectClassSome:
			s, e := h.m.span("sideEffects")
			r.report(diagnostic{pos: s, end: e, severity: diag.Error, category: categoryControllerGen,
				message: "controller-gen fails: SideEffects should not be set to `Some` or `Unknown` for v1 {Mutating,Validating}WebhookConfiguration"})
			mc.covered[prefix+".sideEffects"] = true
		}
		if t := w.TimeoutSeconds; t != nil && (*t < 1 || *t > 30) {
			s, e := h.m.span("timeoutSeconds")
			r.report(diagnostic{pos: s, end: e, severity: diag.Error, category: categoryControllerGen,
				message: "controller-gen fails: TimeoutSeconds must be between 1 and 30 seconds"})
			mc.covered[prefix+".timeoutSeconds"] = true
		}
		if len(w.AdmissionReviewVersions) == 0 {
			s, e := h.m.span("admissionReviewVersions")
			r.report(diagnostic{pos: s, end: e, severity: diag.Error, category: categoryControllerGen,
				message: "controller-gen fails: AdmissionReviewVersions is mandatory for v1 {Mutating,Validating}WebhookConfiguration"})
			mc.covered[prefix+".admissionReviewVersions"] = true
		}
	}
}

// deployTime reports whether a finding is about something markers cannot
// say and kubebuilder projects fill in when they deploy: the CA bundle
// (injected by cert-manager or a controller; config/default adds the
// annotation) and the configuration's labels and annotations (kustomize).
// Judging controller-gen's output on them would flag every project.
func (mc *markerConfig) deployTime(path string) bool {
	if strings.HasPrefix(path, "metadata.") && path != "metadata.name" {
		return true
	}
	i, rest, ok := fieldpath.Webhook(path)
	if !ok || i >= len(mc.hooks) || !strings.HasPrefix(rest, ".clientConfig.caBundle") {
		return false
	}
	m := mc.hooks[i].m
	a, ok := m.arg("patch")
	return !ok || !patchSets(m, a, "clientConfig")
}

// markerKeys maps the first field below webhooks[i] (and, for rules and
// clientConfig, the one below that) to the marker argument that sets it.
var markerKeys = map[string][]string{
	"name":                           {"name"},
	"failurePolicy":                  {"failurePolicy"},
	"matchPolicy":                    {"matchPolicy"},
	"sideEffects":                    {"sideEffects"},
	"timeoutSeconds":                 {"timeoutSeconds"},
	"admissionReviewVersions":        {"admissionReviewVersions"},
	"reinvocationPolicy":             {"reinvocationPolicy"},
	"rules.apiGroups":                {"groups"},
	"rules.apiVersions":              {"versions"},
	"rules.resources":                {"resources"},
	"rules.operations":               {"verbs"},
	"clientConfig":                   {"url", "path"},
	"clientConfig.url":               {"url"},
	"clientConfig.service":           {"path", "serviceName", "serviceNamespace", "servicePort"},
	"clientConfig.service.path":      {"path"},
	"clientConfig.service.name":      {"serviceName"},
	"clientConfig.service.namespace": {"serviceNamespace"},
	"clientConfig.service.port":      {"servicePort"},
}

// locate maps a rule finding's path to a place in the markers.
func (mc *markerConfig) locate(path string) (token.Pos, token.Pos, bool) {
	i, rest, ok := fieldpath.Webhook(path)
	if !ok || i >= len(mc.hooks) {
		// A configuration-level finding: the configuration marker if there is
		// one, else the first webhook marker in the source.
		if mc.named != nil {
			s, e := mc.named.span("name")
			return s, e, true
		}
		first := mc.hooks[0].m
		for _, h := range mc.hooks {
			if h.m.pos < first.pos {
				first = h.m
			}
		}
		return first.pos, first.end, true
	}
	m := mc.hooks[i].m
	fieldsPath := fieldpath.Fields(rest)
	top, _, _ := strings.Cut(fieldsPath, ".")
	if a, ok := m.arg("patch"); ok && patchSets(m, a, top) {
		// Point at the field's key inside the JSON, written "key" in a raw
		// string or \"key\" in a quoted one.
		value := m.text[len(m.def.Name)+2:][a.ValueStart:a.ValueEnd]
		for _, k := range []string{`"` + top + `"`, `\"` + top + `\"`} {
			if i := strings.Index(value, k); i >= 0 {
				base := m.argsPos + token.Pos(a.ValueStart+i)
				return base, base + token.Pos(len(k)), true
			}
		}
		s, e := m.span("patch")
		return s, e, true
	}
	for p := fieldsPath; p != ""; {
		if keys, ok := markerKeys[p]; ok {
			s, e := m.span(keys...)
			// A list element (verbs' second item for operations[1]) is
			// narrowed to that item when the path ends at it.
			if k, ok := listIndex(rest, p); ok {
				if a, found := m.arg(keys[0]); found {
					if is, ie, ok := itemSpan(m.text[len(m.def.Name)+2:][a.ValueStart:a.ValueEnd], k); ok {
						base := m.argsPos + token.Pos(a.ValueStart)
						return base + token.Pos(is), base + token.Pos(ie), true
					}
				}
			}
			return s, e, true
		}
		j := strings.LastIndex(p, ".")
		if j < 0 {
			break
		}
		p = p[:j]
	}
	return m.pos, m.end, true
}

// patchSets reports whether a marker's patch= JSON sets the top-level
// webhook field name.
func patchSets(m *marker, a markerArg, name string) bool {
	raw := m.text[len(m.def.Name)+2:][a.ValueStart:a.ValueEnd]
	raw = strings.TrimSpace(raw)
	var s sc.Scanner
	s.Init(strings.NewReader(raw))
	s.Mode = sc.ScanStrings | sc.ScanRawStrings
	if tok := s.Scan(); tok == sc.String || tok == sc.RawString {
		if u, err := strconv.Unquote(s.TokenText()); err == nil {
			raw = u
		}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &obj) != nil {
		return false
	}
	_, ok := obj[name]
	return ok
}

// listIndex returns k when rest is exactly the list field p indexed by k
// (".rules[0].operations[2]" for "rules.operations" gives 2).
func listIndex(rest, p string) (int, bool) {
	list, k, ok := fieldpath.SplitIndex(rest)
	return k, ok && fieldpath.Fields(list) == p
}

// itemSpan locates the k-th item of a marker list value, written either
// as a;b;c or as {a,b,c}, with controller-tools' tokenizer (so quoted items
// may contain separators).
func itemSpan(value string, k int) (int, int, bool) {
	var s sc.Scanner
	s.Init(strings.NewReader(value))
	s.Mode = sc.ScanIdents | sc.ScanInts | sc.ScanFloats | sc.ScanStrings | sc.ScanRawStrings
	s.Error = func(*sc.Scanner, string) {}
	sep := ';'
	item, start, end := 0, -1, -1
	for tok := s.Scan(); tok != sc.EOF; tok = s.Scan() {
		switch {
		case tok == '{' && s.Offset == 0:
			sep = ','
			continue
		case tok == '}' && sep == ',':
			continue
		case tok == sep:
			if item == k {
				return start, end, start >= 0
			}
			item++
			start, end = -1, -1
			continue
		}
		if item == k {
			if start < 0 {
				start = s.Offset
			}
			end = s.Offset + len(s.TokenText())
		}
	}
	return start, end, item == k && start >= 0
}
