package analyzer

import (
	"bytes"
	"go/ast"
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/rules"
)

// ruleFixes turns a rule's safe fixes on a literal into edits of the
// values it writes, from the same FieldFixes the YAML front end edits
// text with: a string (or integer) literal that holds exactly the value
// the rule read is replaced, in the same quotes, and a list element is
// removed with its comma. A value written as a constant, a variable or a
// call, and a fix that inserts a field, get no fix: the edit would land
// somewhere other than where the value is decided, or add code.
func (e *evaluator) ruleFixes(f rules.Finding) []suggestedFix {
	return safeFixes(f, e.valueEdit)
}

// valueEdit is the edit of the literal for one FieldEdit, if it can be
// made where the value is written.
func (e *evaluator) valueEdit(fe rules.FieldEdit) (analysis.TextEdit, bool) {
	n := e.nodes[fe.Path]
	if fe.Insert || n == nil || !n.known || n.isStruct {
		return analysis.TextEdit{}, false
	}
	lit, ok := ast.Unparen(n.x).(*ast.BasicLit)
	if !ok || literalValue(lit) != fe.Old {
		return analysis.TextEdit{}, false
	}
	if fe.Delete {
		return e.deleteElement(fe.Path, lit)
	}
	var text string
	switch {
	case fe.Number && lit.Kind == token.INT:
		if _, err := strconv.Atoi(fe.New); err != nil {
			return analysis.TextEdit{}, false
		}
		text = fe.New
	case !fe.Number && lit.Kind == token.STRING:
		text = strconv.Quote(fe.New)
		if strings.HasPrefix(lit.Value, "`") && !strings.Contains(fe.New, "`") {
			text = "`" + fe.New + "`"
		}
	default:
		return analysis.TextEdit{}, false
	}
	return analysis.TextEdit{Pos: lit.Pos(), End: lit.End(), NewText: []byte(text)}, true
}

// literalValue is the value a basic literal writes, as the rules read it.
func literalValue(lit *ast.BasicLit) string {
	if lit.Kind == token.STRING {
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			return "\x00" // matches no value a rule read
		}
		return v
	}
	return lit.Value
}

// deleteElement removes the element at path (…[k]) of the slice literal
// that holds it, with the comma after it (before it, for the last), where
// only blanks and that comma lie between it and its neighbor: a comment
// there belongs to someone.
func (e *evaluator) deleteElement(path string, el ast.Expr) (analysis.TextEdit, bool) {
	list, k, ok := fieldpath.SplitIndex(path)
	if !ok {
		return analysis.TextEdit{}, false
	}
	parent := e.nodes[list]
	if parent == nil {
		return analysis.TextEdit{}, false
	}
	lit, ok := ast.Unparen(parent.x).(*ast.CompositeLit)
	if !ok || k >= len(lit.Elts) || lit.Elts[k].Pos() != el.Pos() || len(lit.Elts) < 2 {
		return analysis.TextEdit{}, false
	}
	// The comma and blanks between the element and its neighbor, and
	// the span to remove.
	var between []byte
	var from, to token.Pos
	if k+1 < len(lit.Elts) {
		from, to = el.Pos(), lit.Elts[k+1].Pos()
		between, ok = e.text(el.End(), to)
	} else {
		from, to = lit.Elts[k-1].End(), el.End()
		between, ok = e.text(from, el.Pos())
	}
	if !ok || string(bytes.TrimSpace(between)) != "," {
		return analysis.TextEdit{}, false
	}
	return analysis.TextEdit{Pos: from, End: to, NewText: []byte{}}, true
}

// text is the source between two positions of one file.
func (e *evaluator) text(from, to token.Pos) ([]byte, bool) {
	tf := e.pass.Fset.File(from)
	if tf == nil || e.pass.ReadFile == nil || to < from {
		return nil, false
	}
	src, err := e.pass.ReadFile(tf.Name())
	if err != nil {
		return nil, false
	}
	a, b := tf.Offset(from), tf.Offset(to)
	if a < 0 || b > len(src) {
		return nil, false
	}
	return src[a:b], true
}
