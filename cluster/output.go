package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// A live finding has no file: it is located by object and field path.
//
//	ValidatingWebhookConfiguration/policy webhooks[0].timeoutSeconds: warning: message [rule]
func formatDiagnostic(d diag.Diagnostic) string {
	where := objectKey(d.Object)
	if d.Path != "" {
		where += " " + d.Path
	}
	return fmt.Sprintf("%s: %s: %s [%s]", where, d.Severity, d.Message, d.Rule)
}

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
	for _, seg := range splitPath(path) {
		next, ok := step(node, seg)
		if !ok {
			break
		}
		node = next
		if strings.HasPrefix(seg, "[") || shown == "" {
			shown += seg
		} else {
			shown += "." + seg
		}
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

// splitPath cuts "webhooks[0].rules[1].operations" into webhooks, [0],
// rules, [1], operations.
func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				out = append(out, part[i:])
				break
			}
			out = append(out, part[i:i+j+1])
			part = part[i+j+1:]
		}
	}
	return out
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

// printer writes results in the chosen format.
type printer struct {
	w       io.Writer
	json    bool
	excerpt bool
	color   bool // ANSI color in text, as the file mode's --color
}

// ANSI styles of the text output, those of the file mode's.
const (
	styleReset  = "\x1b[0m"
	styleDim    = "\x1b[2m"
	styleRed    = "\x1b[1;31m"
	styleYellow = "\x1b[1;33m"
	styleCyan   = "\x1b[1;36m"
)

// format is formatDiagnostic, with the severity colored and the rule dim
// when p.color is set.
func (p *printer) format(d diag.Diagnostic) string {
	if !p.color {
		return formatDiagnostic(d)
	}
	where := objectKey(d.Object)
	if d.Path != "" {
		where += " " + d.Path
	}
	style := styleCyan
	switch d.Severity {
	case diag.Error:
		style = styleRed
	case diag.Warning:
		style = styleYellow
	}
	return fmt.Sprintf("%s: %s%s%s: %s %s[%s]%s", where, style, d.Severity, styleReset, d.Message, styleDim, d.Rule, styleReset)
}

// jsonDiagnostic is a diagnostic in JSON output, with its excerpt.
type jsonDiagnostic struct {
	diag.Diagnostic
	Excerpt string `json:"excerpt,omitempty"`
}

// result prints a one-shot lint.
func (p *printer) result(r *Result, objects liveObjects) {
	if p.json {
		out := struct {
			Diagnostics      []jsonDiagnostic  `json:"diagnostics"`
			Notes            []string          `json:"notes"`
			ResourceVersions map[string]string `json:"resourceVersions"`
		}{Diagnostics: []jsonDiagnostic{}, Notes: r.Notes, ResourceVersions: map[string]string{}}
		if out.Notes == nil {
			out.Notes = []string{}
		}
		for _, d := range r.Diagnostics {
			jd := jsonDiagnostic{Diagnostic: d}
			if p.excerpt {
				jd.Excerpt = objects.excerpt(d)
			}
			out.Diagnostics = append(out.Diagnostics, jd)
		}
		for _, s := range r.Snapshots {
			out.ResourceVersions[s.Resource] = s.ResourceVersion
		}
		enc := json.NewEncoder(p.w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return
	}
	for _, d := range r.Diagnostics {
		fmt.Fprintln(p.w, p.format(d))
		if p.excerpt {
			if e := objects.excerpt(d); e != "" {
				fmt.Fprintln(p.w, indent(e, "    "))
			}
		}
	}
}

// change prints one watch event: a line of text, or a JSON object per line.
func (p *printer) change(c Change) {
	if p.json {
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
		return
	}
	switch c.Type {
	case Found:
		fmt.Fprintln(p.w, "+ "+p.format(*c.Diagnostic))
		if p.excerpt {
			if e := changeExcerpt(c); e != "" {
				fmt.Fprintln(p.w, indent(e, "    "))
			}
		}
	case Resolved:
		fmt.Fprintf(p.w, "- %s (resolved: %s)\n", p.format(*c.Diagnostic), c.Reason)
	case Added, Changed, Deleted:
		fmt.Fprintf(p.w, "# %s %s (resourceVersion %s)\n", c.Type, objectKey(c.Object), c.ResourceVersion)
	case Synced:
		fmt.Fprintln(p.w, "# synced: watching for changes")
	case Note:
		fmt.Fprintln(p.w, "# note: "+c.Reason)
	}
}
