package analyzer

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/engine"
	"github.com/webhooklint/webhooklint/rules"
)

// Inline suppressions, as the CLI knows them in YAML:
//
//	// webhooklint:ignore self-deadlock -- the backend runs outside the cluster
//	// +kubebuilder:webhook:path=/mutate--v1-pod,...
//
// A directive on a line of its own applies to what follows it: the marker
// on the next line (other comment lines between them are allowed, in the
// same comment block), or the code that starts on the next line (a
// statement, a declaration, a field of a literal: the outermost node that
// starts there, and everything in it). At the end of a line of code it
// applies to the outermost node that starts on that line. A suppression
// needs a reason; one that silences nothing is reported (unused-suppression),
// and so is one that names no rule, an unknown rule or no reason
// (invalid-suppression).

type suppression struct {
	rules    []string
	pos, end token.Pos // the directive
	from, to token.Pos // what it covers
	where    string    // what it covers, for the unused-suppression message
}

// covers reports whether s covers a finding of rule at p.
func (s *suppression) covers(rule string, p token.Pos) bool {
	return slices.Contains(s.rules, rule) && s.from <= p && p < s.to
}

// findSuppressions reads the directives of the package's files (not its
// tests, which are never linted), reporting malformed ones.
func findSuppressions(pass *analysis.Pass, ms []*marker, r *reporter) []*suppression {
	var out []*suppression
	for _, f := range pass.Files {
		if isTestFile(pass, f) {
			continue
		}
		tf := pass.Fset.File(f.Pos())
		if tf == nil {
			continue
		}
		var src []byte
		for _, g := range f.Comments {
			for i, c := range g.List {
				text, ok := directiveText(c)
				if !ok {
					continue
				}
				if src == nil {
					b, err := pass.ReadFile(tf.Name())
					if err != nil {
						return out
					}
					src = b
				}
				s := &suppression{pos: c.Slash, end: c.End(), where: "on the marker it is on"}
				p := engine.Parse(text, "--")
				if problem := p.Invalid("//"); problem != "" {
					r.report(diagnostic{pos: s.pos, end: s.end, severity: rules.MustLookup(rules.InvalidSuppressionRule).Severity,
						category: rules.InvalidSuppressionRule, message: problem})
					continue
				}
				s.rules = p.Rules
				s.target(pass, f, tf, src, g.List[i+1:], ms)
				out = append(out, s)
			}
		}
	}
	return out
}

// directiveText returns what follows "webhooklint:ignore" in a // comment
// that holds nothing else before it.
func directiveText(c *ast.Comment) (string, bool) {
	body, ok := strings.CutPrefix(c.Text, "//")
	if !ok {
		return "", false
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(body), engine.Directive)
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	// A further comment after the directive is not part of it.
	if i := strings.Index(rest, " //"); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// target sets what s covers. after are the comments that follow the
// directive in its comment group.
func (s *suppression) target(pass *analysis.Pass, f *ast.File, tf *token.File, src []byte, after []*ast.Comment, ms []*marker) {
	line := tf.Line(s.pos)
	start := tf.LineStart(line)
	if strings.TrimSpace(string(src[tf.Offset(start):tf.Offset(s.pos)])) != "" {
		s.coverLine(f, tf, line)
		return
	}
	// On a line of its own: the next marker of the comment block, or else
	// the code after the block.
	next := line + 1
	for _, c := range after {
		if tf.Line(c.Slash) != next {
			break
		}
		for _, m := range ms {
			if m.pos >= c.Slash && m.end <= c.End() {
				s.from, s.to, s.where = m.pos, m.end, "on the marker it is on"
				return
			}
		}
		next++
	}
	if next <= tf.LineCount() {
		s.coverLine(f, tf, next)
	}
}

// coverLine makes s cover the outermost nodes that start on line.
func (s *suppression) coverLine(f *ast.File, tf *token.File, line int) {
	s.where = "on the code it is on"
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || n == f {
			return true
		}
		if _, ok := n.(*ast.CommentGroup); ok {
			return false
		}
		if n.End() < tf.LineStart(line) {
			return false // ends before the line
		}
		if tf.Line(n.Pos()) == line {
			if s.from == token.NoPos || n.Pos() < s.from {
				s.from = n.Pos()
			}
			s.to = max(s.to, n.End())
			return false
		}
		return tf.Line(n.Pos()) < line
	})
}

// suppress drops the findings suppressions cover and reports the
// suppressions that covered nothing, unless a rule they name is off.
func (r *reporter) suppress(ds []diag.Diagnostic, sel *engine.Selection) []diag.Diagnostic {
	sups := make([]*engine.Suppression, len(r.suppressions))
	for i, s := range r.suppressions {
		at := diag.Diagnostic{Span: r.span(s.pos, s.end)}
		covers := func(d *diag.Diagnostic) bool { return s.covers(d.Rule, r.tokens[d.Span][0]) }
		sups[i] = &engine.Suppression{Rules: s.rules, What: "suppression", Where: s.where, At: at, Covers: covers}
	}
	kept, unused := engine.Apply(ds, sups, sel)
	for _, d := range unused {
		pos := r.tokens[d.Span]
		r.report(diagnostic{pos: pos[0], end: pos[1], severity: d.Severity, category: d.Rule, message: d.Message})
	}
	return kept
}
