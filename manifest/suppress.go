package manifest

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/engine"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/rules"
)

// IgnoreAnnotation suppresses rules for a whole object. Unlike comments it
// survives Helm and kustomize rendering. Its value holds one entry per
// line: "<rule>[,<rule>…]: <reason>".
const IgnoreAnnotation = "webhooklint.io/ignore"

// Suppression silences rules on a YAML node (and everything under it) or on
// a whole object. Each needs a reason.
type Suppression struct {
	Rules  []string
	Reason string
	// Path is the field path the suppression is attached to; empty means
	// the whole object.
	Path string
	// At is where the suppression is written.
	At         diag.Span
	Annotation bool
}

// Covers reports whether the suppression applies to a finding.
func (s *Suppression) Covers(rule, path string) bool {
	if !slices.Contains(s.Rules, rule) {
		return false
	}
	return s.Path == "" || fieldpath.Within(path, s.Path)
}

// comment is a comment the decoder met that may hold a directive.
type comment struct {
	path  string
	text  string
	line  int // document line of the node the comment belongs to
	whole bool
	head  bool // written above the node (else on its line)
}

// noteComments remembers directive comments attached to a node: above a
// key or a list item, or at the end of a key's line. A comment above the
// first key of an object applies to the whole object.
func (d *decoder) noteComments(ps string, key, value *yaml.Node, firstKeyOfObject bool) {
	if key != nil && strings.Contains(key.HeadComment, engine.Directive) {
		d.comments = append(d.comments, comment{path: ps, text: key.HeadComment, line: key.Line, whole: firstKeyOfObject, head: true})
	}
	if key != nil && strings.Contains(key.LineComment, engine.Directive) {
		d.comments = append(d.comments, comment{path: ps, text: key.LineComment, line: key.Line})
	}
	if value != nil && value.Kind == yaml.ScalarNode && strings.Contains(value.LineComment, engine.Directive) {
		d.comments = append(d.comments, comment{path: ps, text: value.LineComment, line: value.Line})
	}
}

// suppressions parses the directive comments and the ignore annotation of
// a webhook configuration, policy or CRD, reporting malformed ones.
func (d *Document) suppressions(src *source, comments []comment, docNode *yaml.Node) []*Suppression {
	if docNode != nil && strings.Contains(docNode.HeadComment, engine.Directive) {
		comments = append(comments, comment{text: docNode.HeadComment, line: 1, whole: true, head: true})
	}
	// Above the first key, after a "---": a CRD's decoder reads only its
	// conversion, so no one else has seen it.
	if k := firstKey(docNode); k != nil && strings.Contains(k.HeadComment, engine.Directive) &&
		!slices.ContainsFunc(comments, func(c comment) bool { return c.whole && c.line == k.Line }) {
		comments = append(comments, comment{text: k.HeadComment, line: k.Line, whole: true, head: true})
	}
	var out []*Suppression
	for _, c := range comments {
		for _, l := range strings.Split(c.text, "\n") {
			body := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
			rest, ok := strings.CutPrefix(body, engine.Directive)
			if !ok {
				continue
			}
			// A further comment after the directive is not part of it.
			if i := strings.Index(rest, " #"); i >= 0 {
				rest = rest[:i]
			}
			at := src.findComment(c.line, c.head, strings.TrimSpace(l))
			path := c.path
			if c.whole {
				path = ""
			}
			if s := d.suppression(engine.Parse(rest, "--"), path, at, false); s != nil {
				out = append(out, s)
			}
		}
	}
	var annotations map[string]string
	switch {
	case d.Config != nil:
		annotations = d.Config.Meta.Annotations
	case d.Policy != nil:
		annotations = d.Policy.Meta.Annotations
	case d.inventory().crd != nil:
		annotations = d.inventory().crd.Annotations
	}
	if v, ok := annotations[IgnoreAnnotation]; ok {
		at := d.Locate(field.NewPath("metadata", "annotations").Key(IgnoreAnnotation).String(), false)
		for _, entry := range strings.Split(v, "\n") {
			if strings.TrimSpace(entry) == "" {
				continue
			}
			if s := d.suppression(engine.Parse(entry, ":"), "", at, true); s != nil {
				out = append(out, s)
			}
		}
	}
	return out
}

// firstKey is the first key of a document's top-level mapping, or nil.
func firstKey(docNode *yaml.Node) *yaml.Node {
	if docNode == nil || docNode.Kind != yaml.DocumentNode || len(docNode.Content) == 0 {
		return nil
	}
	if m := docNode.Content[0]; m.Kind == yaml.MappingNode && len(m.Content) > 0 {
		return m.Content[0]
	}
	return nil
}

// suppression is a parsed suppression written at, or nil after reporting
// it as invalid.
func (d *Document) suppression(p engine.Parsed, path string, at diag.Span, annotation bool) *Suppression {
	if problem := p.Invalid("#"); problem != "" {
		d.Diagnostics = append(d.Diagnostics, d.diagAt(at, rules.InvalidSuppressionRule, diag.Error, path, problem))
		return nil
	}
	return &Suppression{Rules: p.Rules, Reason: p.Reason, Path: path, At: at, Annotation: annotation}
}

// findComment locates a directive comment in the source: on the node's line
// or in the lines just above it.
func (s *source) findComment(line int, head bool, text string) diag.Span {
	lo := line
	if head {
		lo = max(1, line-50)
	}
	for l := line; l >= lo; l-- {
		src := s.line(l)
		if i := bytes.Index(src, []byte(text)); i >= 0 {
			col := utf8.RuneCount(src[:i]) + 1
			return diag.Span{Line: l + s.lineOffset, Column: col, EndLine: l + s.lineOffset, EndColumn: col + utf8.RuneCountInString(text)}
		}
	}
	return diag.Span{Line: line + s.lineOffset, Column: 1, EndLine: line + s.lineOffset, EndColumn: 2}
}
