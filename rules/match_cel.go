package rules

import (
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"
	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// matchConditionsOutcome decides what a webhook's matchConditions do with
// req without running them: the server skips the webhook if any condition
// is false and calls it if all are true (C09). A condition is decided only
// when it depends on nothing but request fields the simulation knows
// (namespace, operation, resource, and the user when given), combined with
// !, &&, ||, ==, != and in; everything else is unknown. So the common
// exclusions `request.namespace != "x"`, `!(request.namespace in [...])` and
// `!("system:nodes" in request.userInfo.groups)` are recognized, and a
// condition that cannot be decided keeps the webhook a possible match.
func matchConditionsOutcome(conds []admissionv1.MatchCondition, req *Request) Outcome {
	out := Called
	for _, c := range conds {
		e := parseCondition(c.Expression)
		if e == nil {
			// Does not parse: the server rejects the configuration anyway.
			out = out.and(MaybeCalled)
			continue
		}
		switch v := evalPartial(e, req); {
		case v.isBool && !v.b:
			return NotCalled
		case v.isBool && v.b:
		default:
			out = out.and(MaybeCalled)
		}
	}
	return out
}

var conditionCache sync.Map // expression text → ast.Expr (nil if it does not parse)

func parseCondition(text string) ast.Expr {
	if e, ok := conditionCache.Load(text); ok {
		expr, _ := e.(ast.Expr)
		return expr
	}
	var expr ast.Expr
	if p, err := parser.NewParser(parser.Macros(parser.AllMacros...)); err == nil {
		if a, errs := p.Parse(common.NewTextSource(text)); len(errs.GetErrors()) == 0 {
			expr = a.Expr()
		}
	}
	conditionCache.Store(text, expr)
	return expr
}

// value is a partially evaluated CEL value: a known bool, string or list of
// strings, or unknown (all flags false).
type value struct {
	isBool, isString, isList bool
	b                        bool
	s                        string
	list                     []string
}

var unknown value

func boolValue(b bool) value { return value{isBool: true, b: b} }

func evalPartial(e ast.Expr, req *Request) value {
	return partial{field: func(x ast.Expr) value { return requestField(x, req) }, stringFuncs: true}.eval(e)
}

// partial evaluates the part of CEL the simulation can decide: bool and
// string literals, lists of strings, !, &&, ||, ==, !=, in, and with
// stringFuncs startsWith, endsWith and contains. field resolves a
// selection (request.namespace, object.kind…); everything else is unknown.
type partial struct {
	field       func(ast.Expr) value
	stringFuncs bool
}

func (p partial) eval(e ast.Expr) value {
	switch e.Kind() {
	case ast.LiteralKind:
		switch lit := e.AsLiteral().(type) {
		case types.Bool:
			return boolValue(bool(lit))
		case types.String:
			return value{isString: true, s: string(lit)}
		}
	case ast.ListKind:
		var list []string
		for _, el := range e.AsList().Elements() {
			v := p.eval(el)
			if !v.isString {
				return unknown
			}
			list = append(list, v.s)
		}
		return value{isList: true, list: list}
	case ast.SelectKind:
		return p.field(e)
	case ast.CallKind:
		return p.call(e.AsCall())
	}
	return unknown
}

// requestField resolves the request.* fields the simulation knows.
func requestField(e ast.Expr, req *Request) value {
	var path []string
	for e.Kind() == ast.SelectKind {
		sel := e.AsSelect()
		if sel.IsTestOnly() {
			return unknown
		}
		path = append([]string{sel.FieldName()}, path...)
		e = sel.Operand()
	}
	if e.Kind() != ast.IdentKind || e.AsIdent() != "request" {
		return unknown
	}
	str := func(s string) value { return value{isString: true, s: s} }
	switch strings.Join(path, ".") {
	case "namespace":
		return str(req.Namespace)
	case "operation":
		return str(string(req.Operation))
	case "subResource":
		return str(req.Subresource)
	case "resource.group":
		return str(req.Group)
	case "resource.resource":
		return str(req.Resource)
	case "userInfo.username":
		if req.UserName != "" {
			return str(req.UserName)
		}
	case "userInfo.groups":
		if req.UserGroups != nil {
			return value{isList: true, list: req.UserGroups}
		}
	}
	return unknown
}

func (p partial) call(c ast.CallExpr) value {
	args := c.Args()
	switch c.FunctionName() {
	case operators.LogicalNot:
		if v := p.eval(args[0]); v.isBool {
			return boolValue(!v.b)
		}
	case operators.LogicalAnd, operators.LogicalOr:
		// CEL's && and || are commutative over errors and unknowns: one
		// decisive side decides.
		decisive := c.FunctionName() == operators.LogicalOr
		l, r := p.eval(args[0]), p.eval(args[1])
		if (l.isBool && l.b == decisive) || (r.isBool && r.b == decisive) {
			return boolValue(decisive)
		}
		if l.isBool && r.isBool {
			return boolValue(!decisive)
		}
	case operators.Equals, operators.NotEquals:
		l, r := p.eval(args[0]), p.eval(args[1])
		if eq, ok := equal(l, r); ok {
			return boolValue(eq == (c.FunctionName() == operators.Equals))
		}
	case operators.In:
		l, r := p.eval(args[0]), p.eval(args[1])
		if l.isString && r.isList {
			return boolValue(slices.Contains(r.list, l.s))
		}
	case "startsWith", "endsWith", "contains":
		if !p.stringFuncs || !c.IsMemberFunction() || len(args) != 1 {
			break
		}
		t, a := p.eval(c.Target()), p.eval(args[0])
		if t.isString && a.isString {
			f := map[string]func(string, string) bool{
				"startsWith": strings.HasPrefix, "endsWith": strings.HasSuffix, "contains": strings.Contains,
			}[c.FunctionName()]
			return boolValue(f(t.s, a.s))
		}
	}
	return unknown
}

func equal(l, r value) (eq, known bool) {
	switch {
	case l.isString && r.isString:
		return l.s == r.s, true
	case l.isBool && r.isBool:
		return l.b == r.b, true
	}
	return false, false
}
