package celcheck

import (
	"slices"
	"strings"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// eval abstractly evaluates e in world w.
func (p *program) eval(e celast.Expr, w *world) aval {
	switch e.Kind() {
	case celast.LiteralKind:
		switch v := e.AsLiteral().(type) {
		case types.Bool:
			if v {
				return aval{out: oTrue}
			}
			return aval{out: oFalse}
		case types.Null:
			return aval{out: oNull}
		}
		return aval{out: oValue}
	case celast.IdentKind:
		if v := p.vars[e.ID()]; v != "" {
			if w.null(v) {
				return aval{out: oNull}
			}
			return aval{out: oValue}
		}
		return aval{out: p.byType(e)}
	case celast.SelectKind:
		return p.evalSelect(e, w)
	case celast.CallKind:
		return p.evalCall(e, w)
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		r := p.eval(c.IterRange(), w)
		if r.onlyFails() {
			return r
		}
		for _, part := range []celast.Expr{c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			r.errs = r.errs.union(p.eval(part, w).errs)
		}
		return aval{out: p.byType(e), errs: r.errs}
	case celast.ListKind:
		return p.strict(e, e.AsList().Elements(), w)
	case celast.MapKind:
		var parts []celast.Expr
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			parts = append(parts, me.Key(), me.Value())
		}
		return p.strict(e, parts, w)
	case celast.StructKind:
		var parts []celast.Expr
		for _, f := range e.AsStruct().Fields() {
			parts = append(parts, f.AsStructField().Value())
		}
		return p.strict(e, parts, w)
	}
	return aval{out: oTrue | oFalse | oValue}
}

// strict evaluates parts and fails if any fails (function arguments, list
// elements); otherwise the result is anything of e's type.
func (p *program) strict(e celast.Expr, parts []celast.Expr, w *world) aval {
	r := aval{out: p.byType(e)}
	for _, x := range parts {
		v := p.eval(x, w)
		r.errs = r.errs.union(v.errs)
		if v.onlyFails() {
			r.out = 0
		}
	}
	return r
}

func (p *program) evalSelect(e celast.Expr, w *world) aval {
	sel := e.AsSelect()
	a := p.eval(sel.Operand(), w)
	if a.onlyFails() {
		return a
	}
	ap, hasPath := p.pathOf(e)
	if sel.IsTestOnly() {
		// has(): false on null (observed for object on DELETE and for
		// namespaceObject), presence otherwise.
		r := aval{errs: a.errs}
		if a.out == oNull {
			r.out = oFalse
			return r
		}
		r.out = p.presence(ap, hasPath, w)
		return r
	}
	if p.optionalOperand(sel.Operand()) {
		return p.optionalRead(a, ap, hasPath, w)
	}
	if s := p.failing(e, ap, w); s != nil {
		return aval{errs: a.errs.union(siteSet{s})}
	}
	return aval{out: p.byType(e), errs: a.errs}
}

// presence is what has() or 'k' in m says about a path in w.
func (p *program) presence(ap accessPath, hasPath bool, w *world) outcome {
	if !hasPath {
		return oTrue | oFalse
	}
	if w.connectOptions(ap) {
		return oFalse
	}
	if shapeFact(ap) {
		present := w.shape.Subresource
		if ap.segs[0] == "namespace" {
			present = w.shape.Namespaced
		}
		if present {
			return oTrue
		}
		return oFalse
	}
	if present, ok := w.present(ap.key()); ok {
		if present {
			return oTrue
		}
		return oFalse
	}
	return oTrue | oFalse
}

// optionalRead is x.?f, x[?k], or a plain read from an optional: none when
// x is null or none or the field is absent, never a failure.
func (p *program) optionalRead(a aval, ap accessPath, hasPath bool, w *world) aval {
	r := aval{errs: a.errs}
	if a.may(oNull | oNone) {
		r.out |= oNone
	}
	if a.may(oValue | oTrue | oFalse) {
		pr := p.presence(ap, hasPath, w)
		if pr&oTrue != 0 {
			r.out |= oValue
		}
		if pr&oFalse != 0 {
			r.out |= oNone
		}
	}
	return r
}

// connectOptions reports reads of metadata, spec or status from the CONNECT
// options object.
func (w *world) connectOptions(ap accessPath) bool {
	if w.shape.Operation != "CONNECT" || ap.root != "object" || len(ap.segs) == 0 {
		return false
	}
	switch ap.segs[0] {
	case "metadata", "spec", "status":
		return true
	}
	return false
}

// failing returns the site that makes reading node e fail in w, if any.
func (p *program) failing(e celast.Expr, ap accessPath, w *world) *site {
	for _, kind := range []HazardKind{NullObject, NullOldObject, NamespaceObject, OptionsObject, MissingKey} {
		s, ok := p.sites[siteID{e.ID(), kind}]
		if !ok {
			continue
		}
		switch kind {
		case NullObject:
			if w.null("object") {
				return s
			}
		case NullOldObject:
			if w.null("oldObject") {
				return s
			}
		case NamespaceObject:
			return s
		case OptionsObject:
			if w.connectOptions(ap) {
				return s
			}
		case MissingKey:
			if p.presence(ap, true, w) == oFalse {
				return s
			}
		}
	}
	return nil
}

func (p *program) evalCall(e celast.Expr, w *world) aval {
	call := e.AsCall()
	args := call.Args()
	switch call.FunctionName() {
	case operators.LogicalAnd:
		return and(p.eval(args[0], w), p.eval(args[1], w))
	case operators.LogicalOr:
		return or(p.eval(args[0], w), p.eval(args[1], w))
	case operators.LogicalNot:
		a := p.eval(args[0], w)
		t, f := a.truthy()
		r := aval{errs: a.errs}
		if t {
			r.out |= oFalse
		}
		if f {
			r.out |= oTrue
		}
		return r
	case operators.NotStrictlyFalse:
		a := p.eval(args[0], w)
		_, f := a.truthy()
		r := aval{out: oTrue}
		if f {
			r.out |= oFalse
		}
		return r
	case operators.Conditional:
		c := p.eval(args[0], w)
		t, f := c.truthy()
		r := aval{errs: c.errs}
		for _, branch := range []struct {
			taken bool
			expr  celast.Expr
		}{{t, args[1]}, {f, args[2]}} {
			if branch.taken {
				v := p.eval(branch.expr, w)
				r.out |= v.out
				r.errs = r.errs.union(v.errs)
			}
		}
		return r
	case operators.Equals, operators.NotEquals:
		if r, ok := p.decideEquality(args[0], args[1], w); ok {
			if call.FunctionName() == operators.NotEquals {
				r = !r
			}
			if r {
				return aval{out: oTrue}
			}
			return aval{out: oFalse}
		}
	case operators.In:
		if r, ok := p.decideOperationIn(args[0], args[1], w); ok {
			if r {
				return aval{out: oTrue}
			}
			return aval{out: oFalse}
		}
		k, m := p.eval(args[0], w), p.eval(args[1], w)
		errs := k.errs.union(m.errs)
		if k.onlyFails() || m.onlyFails() {
			return aval{errs: errs}
		}
		if s := p.failing(e, accessPath{}, w); s != nil && m.out == oNull {
			return aval{errs: errs.union(siteSet{s})}
		}
		ap, ok := p.pathOf(e)
		return aval{out: p.presence(ap, ok, w), errs: errs}
	case operators.Index, operators.OptIndex, operators.OptSelect:
		a, k := p.eval(args[0], w), p.eval(args[1], w)
		errs := a.errs.union(k.errs)
		if a.onlyFails() || k.onlyFails() {
			return aval{errs: errs}
		}
		ap, hasPath := p.pathOf(e)
		if call.FunctionName() != operators.Index || p.optionalOperand(args[0]) {
			r := p.optionalRead(a, ap, hasPath, w)
			r.errs = r.errs.union(errs)
			return r
		}
		if s := p.failing(e, ap, w); s != nil {
			return aval{errs: errs.union(siteSet{s})}
		}
		return aval{out: p.byType(e), errs: errs}
	case "orValue":
		if call.IsMemberFunction() && len(args) == 1 {
			o := p.eval(call.Target(), w)
			r := aval{errs: o.errs}
			if o.may(oNone) {
				d := p.eval(args[0], w)
				r.out |= d.out
				r.errs = r.errs.union(d.errs)
			}
			if o.may(oValue | oTrue | oFalse) {
				r.out |= p.byType(e)
			}
			return r
		}
	case "hasValue":
		if call.IsMemberFunction() && len(args) == 0 {
			o := p.eval(call.Target(), w)
			r := aval{errs: o.errs}
			if o.may(oNone) {
				r.out |= oFalse
			}
			if o.may(oValue | oTrue | oFalse) {
				r.out |= oTrue
			}
			return r
		}
	case "optional.none":
		return aval{out: oNone}
	}
	parts := slices.Clone(args)
	if call.IsMemberFunction() {
		parts = append([]celast.Expr{call.Target()}, parts...)
	}
	return p.strict(e, parts, w)
}

// decideEquality settles request.operation == 'X' and object == null
// style comparisons, which the world fixes.
func (p *program) decideEquality(a, b celast.Expr, w *world) (bool, bool) {
	for _, pair := range [][2]celast.Expr{{a, b}, {b, a}} {
		x, y := pair[0], pair[1]
		if s, ok := stringKey(y); ok && p.isOperation(x) {
			return w.shape.Operation == s, true
		}
		if s, ok := stringKey(y); ok && w.shape.Operation == "CONNECT" && !strings.HasSuffix(s, "Options") {
			// On CONNECT object is PodExecOptions, PodProxyOptions…:
			// object.kind == 'Pod' is false there.
			if ap, ok := p.pathOf(x); ok && ap.root == "object" && len(ap.segs) == 1 && ap.segs[0] == "kind" {
				return false, true
			}
		}
		if y.Kind() == celast.LiteralKind {
			if _, isNull := y.AsLiteral().(types.Null); isNull {
				if v := p.vars[x.ID()]; v != "" {
					return w.null(v), true
				}
			}
		}
	}
	return false, false
}

// decideOperationIn settles request.operation in ['CREATE', 'UPDATE'].
func (p *program) decideOperationIn(x, list celast.Expr, w *world) (bool, bool) {
	if !p.isOperation(x) || list.Kind() != celast.ListKind {
		return false, false
	}
	for _, el := range list.AsList().Elements() {
		s, ok := stringKey(el)
		if !ok {
			return false, false
		}
		if s == w.shape.Operation {
			return true, true
		}
	}
	return false, true
}

func (p *program) isOperation(e celast.Expr) bool {
	ap, ok := p.pathOf(e)
	return ok && ap.root == "request" && len(ap.segs) == 1 && ap.segs[0] == "operation"
}

// byType is what a value of e's checked type may be.
func (p *program) byType(e celast.Expr) outcome {
	t := p.ast.GetType(e.ID())
	if t == nil {
		return oTrue | oFalse | oValue
	}
	switch t.Kind() {
	case types.BoolKind:
		return oTrue | oFalse
	case types.NullTypeKind:
		return oNull
	case types.DynKind, types.AnyKind, types.TypeParamKind:
		return oTrue | oFalse | oValue
	case types.OpaqueKind:
		if t.TypeName() == "optional_type" {
			return oValue | oNone
		}
	}
	return oValue
}
