package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/report"
	"github.com/webhooklint/webhooklint/rules"
)

// excerpt renders the field a path names, from the object as the server
// returned it, in the style of `kubectl get -o yaml`. A path that points
// at an absent field (a default, a missing key) shows its nearest present
// ancestor.
func excerpt(c *rules.Config, path string) string {
	if c == nil {
		return ""
	}
	var obj any = c.Validating
	if c.Mutating != nil {
		obj = c.Mutating
	}
	return excerptOf(obj, path)
}

// policyExcerpt is excerpt for an admission policy or binding.
func policyExcerpt(p *rules.Policy, path string) string {
	if p == nil {
		return ""
	}
	return excerptOf(policyObject(p), path)
}

// policyObject is the typed API object a policy wraps.
func policyObject(p *rules.Policy) any {
	switch {
	case p.Validating != nil:
		return p.Validating
	case p.ValidatingBinding != nil:
		return p.ValidatingBinding
	case p.Mutating != nil:
		return p.Mutating
	}
	return p.MutatingBinding
}

// changeExcerpt is the excerpt of a finding event's object.
func changeExcerpt(c Change) string {
	if c.Policy != nil {
		return policyExcerpt(c.Policy, c.Diagnostic.Path)
	}
	return excerpt(c.Config, c.Diagnostic.Path)
}

// liveObjects are the objects of a one-shot lint, by objectKey, for
// excerpts.
type liveObjects struct {
	configs  map[string]*rules.Config
	policies map[string]*rules.Policy
}

func (o liveObjects) excerpt(d diag.Diagnostic) string {
	key := objectKey(d.Object)
	if p := o.policies[key]; p != nil {
		return policyExcerpt(p, d.Path)
	}
	return excerpt(o.configs[key], d.Path)
}

func excerptOf(obj any, path string) string {
	raw, err := json.Marshal(obj)
	if err != nil {
		return ""
	}
	var node any
	if err := json.Unmarshal(raw, &node); err != nil {
		return ""
	}
	shown := ""
	for _, seg := range fieldpath.Elements(path) {
		next, ok := step(node, strings.TrimPrefix(seg, "."))
		if !ok {
			break
		}
		node = next
		shown += seg
	}
	if shown == "" {
		return "" // the whole object is not an excerpt
	}
	out, err := yaml.Marshal(node)
	if err != nil {
		return ""
	}
	body := strings.TrimRight(string(out), "\n")
	if _, isMap := node.(map[string]any); !isMap {
		if _, isList := node.([]any); !isList {
			return shown + ": " + body
		}
	}
	return shown + ":\n" + indent(body, "  ")
}

func step(node any, seg string) (any, bool) {
	if strings.HasPrefix(seg, "[") {
		key := strings.TrimSuffix(strings.TrimPrefix(seg, "["), "]")
		switch n := node.(type) {
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			return n[i], true
		case map[string]any:
			v, ok := n[key]
			return v, ok
		}
		return nil, false
	}
	m, ok := node.(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := m[seg]
	return v, ok
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// printer writes results through the file mode's report printers, so
// headers, summary line, colors and the JSON envelope are those of the
// file mode.
type printer struct {
	w       io.Writer
	json    bool
	excerpt bool
	color   bool // ANSI color in text, as the file mode's --color

	// What a watch has seen, for its text: the findings and objects of
	// the current state (summary lines) and the writer that heads
	// findings by object.
	text    *report.TextWriter
	current []diag.Diagnostic
	objects map[string]bool
	at      Change // the event printed, for its excerpt
}

// ToolVersion is webhooklint's version, for the JSON envelope; the
// command sets it.
var ToolVersion = "devel"

// result prints a one-shot lint: the file mode's text or JSON report of
// the cluster's objects.
func (p *printer) result(r *Result, objects liveObjects) error {
	run := &report.Run{
		Diagnostics: r.Diagnostics, Configs: len(objects.configs), Policies: len(objects.policies),
		ToolVersion: ToolVersion, Live: true, Notes: r.Notes, ResourceVersions: map[string]string{},
	}
	for _, s := range r.Snapshots {
		run.ResourceVersions[s.Resource] = s.ResourceVersion
	}
	if p.excerpt {
		run.Excerpt = objects.excerpt
	}
	format := "text"
	if p.json {
		format = "json"
	}
	f, err := report.New(format, report.Options{Color: p.color})
	if err != nil {
		return err
	}
	return f.Format(p.w, run)
}

// change prints one watch event: lines of text, or a JSON object per line.
func (p *printer) change(c Change) {
	if p.json {
		p.changeJSON(c)
		return
	}
	if p.text == nil {
		run := &report.Run{Live: true}
		if p.excerpt {
			run.Excerpt = func(diag.Diagnostic) string { return changeExcerpt(p.at) }
		}
		p.text = report.NewTextWriter(p.w, report.Options{Color: p.color}, run)
		p.objects = map[string]bool{}
	}
	p.at = c
	defer func() { _ = p.text.Flush() }()
	switch c.Type {
	case Found:
		p.current = append(p.current, *c.Diagnostic)
		p.text.Finding("+ ", *c.Diagnostic, "")
	case Resolved:
		if i := slices.IndexFunc(p.current, func(d diag.Diagnostic) bool { return diag.Compare(d, *c.Diagnostic) == 0 }); i >= 0 {
			p.current = slices.Delete(p.current, i, i+1)
		}
		p.text.Finding("- ", *c.Diagnostic, resolvedNote(c.Reason))
	case Added, Changed, Deleted:
		p.objects[objectKey(c.Object)] = c.Type != Deleted
		p.text.Line(fmt.Sprintf("# %s %s (resourceVersion %s)", c.Type, objectKey(c.Object), c.ResourceVersion))
	case Synced:
		p.summary()
		p.text.Line("# synced: watching for changes")
	case Note:
		p.text.Line("# note: " + c.Reason)
	}
}

// summary ends a watch's snapshot as the file mode ends a run: the counts
// of the current findings, or what a clean cluster holds.
func (p *printer) summary() {
	if p.json || p.text == nil {
		return
	}
	run := &report.Run{Diagnostics: p.current, Live: true}
	for key, present := range p.objects {
		kind, _, _ := strings.Cut(key, "/")
		switch {
		case !present:
		case rules.IsPolicyKind(rules.V1, kind):
			run.Policies++
		default:
			run.Configs++
		}
	}
	p.text.Summary(run)
	_ = p.text.Flush()
}

func (p *printer) changeJSON(c Change) {
	out := struct {
		Event           ChangeType      `json:"event"`
		Object          *diag.Object    `json:"object,omitempty"`
		ResourceVersion string          `json:"resourceVersion,omitempty"`
		Diagnostic      *jsonDiagnostic `json:"diagnostic,omitempty"`
		Reason          string          `json:"reason,omitempty"`
	}{Event: c.Type, Object: c.Object, ResourceVersion: c.ResourceVersion, Reason: c.Reason}
	if c.Diagnostic != nil {
		out.Diagnostic = &jsonDiagnostic{Diagnostic: *c.Diagnostic}
		if p.excerpt && c.Type == Found {
			out.Diagnostic.Excerpt = changeExcerpt(c)
		}
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(p.w, string(b))
}

// jsonDiagnostic is a diagnostic of a watch event, with its excerpt.
type jsonDiagnostic struct {
	diag.Diagnostic
	Excerpt string `json:"excerpt,omitempty"`
}

// resolvedNote ends the line of a resolved finding in text: "- " says it
// is resolved, the header names the object, so the note says only how
// ("(fixed)", "(deleted)"); JSON keeps the whole reason.
func resolvedNote(reason string) string {
	if strings.HasSuffix(reason, " deleted") {
		return "(deleted)"
	}
	return "(" + reason + ")"
}
