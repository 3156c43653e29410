package analyzer

import (
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// ruleFixes turns a rule's fixes (the same FieldFixes the YAML front end
// makes text edits of) into edits of the kubebuilder markers that write
// the fields: a value is replaced where the marker text holds exactly the
// value the rule read (key=VALUE, or one item of a;b;c). Unsafe fixes, a fix that
// deletes an entry, or one whose field the markers do not write as such
// (a patch, a default) are not offered.
func (mc *markerConfig) ruleFixes(pass *analysis.Pass, f rules.Finding) []suggestedFix {
	return safeFixes(f, func(e rules.FieldEdit) (analysis.TextEdit, bool) { return mc.valueEdit(pass, e) })
}

// safeFixes turns a finding's safe fixes into suggested fixes, making
// each of a fix's edits with edit; a fix with an edit that cannot be
// made is not offered. Only safe fixes: go/analysis has no
// applicability, and its drivers (golangci-lint --fix, gopls) make every
// fix they get.
func safeFixes(f rules.Finding, edit func(rules.FieldEdit) (analysis.TextEdit, bool)) []suggestedFix {
	r, ok := rules.Lookup(f.Rule)
	if !ok {
		return nil
	}
	var out []suggestedFix
	for _, ff := range f.Fixes {
		doc, ok := r.Fix(ff.Fix)
		if !ok || doc.Applicability != diag.Safe {
			continue
		}
		var edits []analysis.TextEdit
		for _, e := range ff.Edits {
			te, ok := edit(e)
			if !ok {
				edits = nil
				break
			}
			edits = append(edits, te)
		}
		if len(edits) == 0 {
			continue
		}
		msg := ff.Message
		if msg == "" {
			msg = doc.Title
		}
		out = append(out, suggestedFix{message: msg, pos: edits[0].Pos, end: edits[0].End, newText: string(edits[0].NewText), rest: edits[1:]})
	}
	return out
}

// valueEdit is the edit of the marker text at e.Path, if it holds e.Old.
func (mc *markerConfig) valueEdit(pass *analysis.Pass, e rules.FieldEdit) (analysis.TextEdit, bool) {
	if e.Delete || e.Insert {
		return analysis.TextEdit{}, false
	}
	s, end, ok := mc.locate(e.Path)
	if !ok || !s.IsValid() || end <= s {
		return analysis.TextEdit{}, false
	}
	tf := pass.Fset.File(s)
	if tf == nil || pass.ReadFile == nil {
		return analysis.TextEdit{}, false
	}
	src, err := pass.ReadFile(tf.Name())
	if err != nil {
		return analysis.TextEdit{}, false
	}
	from, to := tf.Offset(s), tf.Offset(end)
	if from < 0 || to > len(src) {
		return analysis.TextEdit{}, false
	}
	text := string(src[from:to])
	switch {
	case text == e.Old:
	case strings.HasSuffix(text, "="+e.Old) && !strings.ContainsAny(text[:len(text)-len(e.Old)-1], "=;,\""):
		s += token.Pos(len(text) - len(e.Old))
	default:
		return analysis.TextEdit{}, false
	}
	return analysis.TextEdit{Pos: s, End: s + token.Pos(len(e.Old)), NewText: []byte(e.New)}, true
}

// heldFixes keeps suggested fixes on a held finding (reporter.finding),
// positions as offsets the way the finding keeps its own.
func heldFixes(fixes []suggestedFix) []diag.Fix {
	var out []diag.Fix
	for _, f := range fixes {
		df := diag.Fix{Message: f.message, Edits: []diag.Edit{{Offset: int(f.pos), EndOffset: int(f.end), NewText: f.newText}}}
		for _, e := range f.rest {
			df.Edits = append(df.Edits, diag.Edit{Offset: int(e.Pos), EndOffset: int(e.End), NewText: string(e.NewText)})
		}
		out = append(out, df)
	}
	return out
}

// unheldFixes is the inverse of heldFixes.
func unheldFixes(fixes []diag.Fix) []suggestedFix {
	var out []suggestedFix
	for _, f := range fixes {
		sf := suggestedFix{message: f.Message, pos: token.Pos(f.Edits[0].Offset), end: token.Pos(f.Edits[0].EndOffset), newText: f.Edits[0].NewText}
		for _, e := range f.Edits[1:] {
			sf.rest = append(sf.rest, analysis.TextEdit{Pos: token.Pos(e.Offset), End: token.Pos(e.EndOffset), NewText: []byte(e.NewText)})
		}
		out = append(out, sf)
	}
	return out
}
