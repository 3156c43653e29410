package manifest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// Rule names of the loader's own findings (their metadata lives in rules/).
const (
	RuleSyntax             = "yaml-syntax"
	RuleSchema             = "schema"
	RuleUnservedAPIVersion = "unserved-api-version"
	RuleInvalidSuppression = "invalid-suppression"
	RuleUnusedSuppression  = "unused-suppression"
)

// IgnoreAnnotation suppresses rules for a whole object. Unlike comments it
// survives Helm and kustomize rendering. Its value holds one entry per
// line: "<rule>[,<rule>…]: <reason>".
const IgnoreAnnotation = "webhooklint.io/ignore"

const directive = "webhooklint:ignore"

// Suppression silences rules on a YAML node (and everything under it) or on
// a whole object. Each needs a reason.
type Suppression struct {
	Rules  []string
	Reason string
	// Path is the field path the suppression is attached to; empty means
	// the whole object.
	Path string
	// At is where the suppression is written.
	At         Range
	Annotation bool
	Used       bool
}

// Covers reports whether the suppression applies to a finding.
func (s *Suppression) Covers(rule, path string) bool {
	if !slices.Contains(s.Rules, rule) {
		return false
	}
	if s.Path == "" || path == s.Path {
		return true
	}
	return strings.HasPrefix(path, s.Path) && (path[len(s.Path)] == '.' || path[len(s.Path)] == '[')
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
	if key != nil && strings.Contains(key.HeadComment, directive) {
		d.comments = append(d.comments, comment{path: ps, text: key.HeadComment, line: key.Line, whole: firstKeyOfObject, head: true})
	}
	if key != nil && strings.Contains(key.LineComment, directive) {
		d.comments = append(d.comments, comment{path: ps, text: key.LineComment, line: key.Line})
	}
	if value != nil && value.Kind == yaml.ScalarNode && strings.Contains(value.LineComment, directive) {
		d.comments = append(d.comments, comment{path: ps, text: value.LineComment, line: value.Line})
	}
}

// suppressions parses the directive comments and the ignore annotation of
// a webhook configuration, reporting malformed ones.
func (d *Document) suppressions(src *source, comments []comment, docNode *yaml.Node) []*Suppression {
	if docNode != nil && strings.Contains(docNode.HeadComment, directive) {
		comments = append(comments, comment{text: docNode.HeadComment, line: 1, whole: true, head: true})
	}
	var out []*Suppression
	for _, c := range comments {
		for _, l := range strings.Split(c.text, "\n") {
			body := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
			rest, ok := strings.CutPrefix(body, directive)
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
			s := &Suppression{Path: path, At: at}
			names, reason, hasReason := strings.Cut(rest, "--")
			s.Rules = splitRules(names)
			s.Reason = strings.TrimSpace(reason)
			if d.validSuppression(s, hasReason) {
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
	}
	if v, ok := annotations[IgnoreAnnotation]; ok {
		at := d.Locate(field.NewPath("metadata", "annotations").Key(IgnoreAnnotation).String(), false)
		for _, entry := range strings.Split(v, "\n") {
			if strings.TrimSpace(entry) == "" {
				continue
			}
			names, reason, hasReason := strings.Cut(entry, ":")
			s := &Suppression{Rules: splitRules(names), Reason: strings.TrimSpace(reason), At: at, Annotation: true}
			if d.validSuppression(s, hasReason) {
				out = append(out, s)
			}
		}
	}
	return out
}

func splitRules(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

func (d *Document) validSuppression(s *Suppression, hasReason bool) bool {
	problem := ""
	switch {
	case len(s.Rules) == 0:
		problem = "names no rule; write `# webhooklint:ignore <rule> -- <reason>`"
	case !hasReason || s.Reason == "":
		problem = fmt.Sprintf("of %s gives no reason; write `-- <why this is safe>` after the rule name", strings.Join(s.Rules, ", "))
	default:
		for _, r := range s.Rules {
			if _, ok := rules.Lookup(r); !ok {
				problem = fmt.Sprintf("names unknown rule %q (see webhooklint --list-rules)", r)
				break
			}
		}
	}
	if problem == "" {
		return true
	}
	d.Diagnostics = append(d.Diagnostics, d.diagAt(s.At, RuleInvalidSuppression, diag.Error, s.Path,
		"suppression "+problem))
	return false
}

// findComment locates a directive comment in the source: on the node's line
// or in the lines just above it.
func (s *source) findComment(line int, head bool, text string) Range {
	lo := line
	if head {
		lo = max(1, line-50)
	}
	for l := line; l >= lo; l-- {
		src := s.line(l)
		if i := bytes.Index(src, []byte(text)); i >= 0 {
			col := utf8.RuneCount(src[:i]) + 1
			return Range{Line: l + s.lineOffset, Column: col, EndLine: l + s.lineOffset, EndColumn: col + utf8.RuneCountInString(text)}
		}
	}
	return Range{Line: line + s.lineOffset, Column: 1, EndLine: line + s.lineOffset, EndColumn: 2}
}
