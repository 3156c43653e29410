package celcheck

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// FieldNames is the set of names by which some expressions can read a
// field of an object: every field a selection names (x.f, has(x.f), x.?f),
// every field of a struct literal, and every string constant indexed with
// or tested by in (x['f'], x[?'f'], 'f' in x). The type of a
// field none of them names cannot change a check of those expressions, so
// an object type for them only needs the properties it names, at any
// depth (see NewObjectTypeFor). A nil *FieldNames stands for all names.
type FieldNames struct{ names map[string]struct{} }

// NamesOf collects the names the checked or parsed ASTs can read fields
// by (the expanded form: macros such as has() and exists() are selections
// and comprehensions there).
func NamesOf(asts ...*celast.AST) *FieldNames {
	n := &FieldNames{names: map[string]struct{}{}}
	for _, a := range asts {
		if a != nil {
			n.collect(a.Expr())
		}
	}
	return n
}

func (n *FieldNames) collect(e celast.Expr) {
	if e == nil {
		return
	}
	switch e.Kind() {
	case celast.SelectKind:
		n.names[e.AsSelect().FieldName()] = struct{}{}
	case celast.CallKind:
		c := e.AsCall()
		switch args := c.Args(); c.FunctionName() {
		case operators.OptSelect, operators.Index, operators.OptIndex:
			if len(args) == 2 {
				n.constant(args[1])
			}
		case operators.In:
			if len(args) == 2 {
				n.constant(args[0])
			}
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			n.names[f.AsStructField().Name()] = struct{}{}
		}
	}
	for _, k := range children(e) {
		n.collect(k)
	}
}

// constant adds e's value if it is a string constant.
func (n *FieldNames) constant(e celast.Expr) {
	if e.Kind() != celast.LiteralKind {
		return
	}
	if s, ok := e.AsLiteral().Value().(string); ok {
		n.names[s] = struct{}{}
	}
}

// Union is the names of n and m.
func (n *FieldNames) Union(m *FieldNames) *FieldNames {
	if n == nil || m == nil {
		return nil
	}
	out := &FieldNames{names: maps.Clone(n.names)}
	maps.Copy(out.names, m.names)
	return out
}

// Covers reports whether n holds every name of m.
func (n *FieldNames) Covers(m *FieldNames) bool {
	if n == nil {
		return true
	}
	if m == nil {
		return false
	}
	for k := range m.names {
		if _, ok := n.names[k]; !ok {
			return false
		}
	}
	return true
}

// Keeps reports whether a property of this name can be read: by its name,
// or by the name CEL knows it by (apiservercel.Escape: __dash__ for -,
// __namespace__ for a reserved word…).
func (n *FieldNames) Keeps(property string) bool {
	if n == nil {
		return true
	}
	if _, ok := n.names[property]; ok {
		return true
	}
	if escaped, ok := apiservercel.Escape(property); ok && escaped != property {
		_, ok := n.names[escaped]
		return ok
	}
	return false
}

// String lists the names, sorted; "*" for all.
func (n *FieldNames) String() string {
	if n == nil {
		return "*"
	}
	return strings.Join(slices.Sorted(maps.Keys(n.names)), ",")
}

// Key identifies the set: two sets have the same key only when they hold
// the same names (each is prefixed with its length; nil, all names, is
// "*", which no prefixed list is).
func (n *FieldNames) Key() string {
	if n == nil {
		return "*"
	}
	var b []byte
	for _, name := range slices.Sorted(maps.Keys(n.names)) {
		b = strconv.AppendInt(b, int64(len(name)), 10)
		b = append(b, ':')
		b = append(b, name...)
	}
	return string(b)
}

// children are the direct subexpressions of e.
func children(e celast.Expr) []celast.Expr {
	switch e.Kind() {
	case celast.SelectKind:
		return []celast.Expr{e.AsSelect().Operand()}
	case celast.CallKind:
		c := e.AsCall()
		var kids []celast.Expr
		if c.IsMemberFunction() {
			kids = append(kids, c.Target())
		}
		return append(kids, c.Args()...)
	case celast.ListKind:
		return e.AsList().Elements()
	case celast.MapKind:
		var kids []celast.Expr
		for _, en := range e.AsMap().Entries() {
			m := en.AsMapEntry()
			kids = append(kids, m.Key(), m.Value())
		}
		return kids
	case celast.StructKind:
		var kids []celast.Expr
		for _, f := range e.AsStruct().Fields() {
			kids = append(kids, f.AsStructField().Value())
		}
		return kids
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		return []celast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()}
	}
	return nil
}
