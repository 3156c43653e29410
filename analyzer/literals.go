package analyzer

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/rules"
)

// The composite-literal front end. Operators that build their webhook
// configurations in Go write them as literals of the admissionregistration/v1
// types; where the values are known at compile time, the same rules judge
// them and findings point at the field.
//
// False-positive policy (see docs/analyzer.md):
//   - a value that is not a compile-time constant (a variable, a function
//     call other than ptr.To/new, a field of another struct) is "unknown":
//     no finding is ever reported on it or below it;
//   - a literal stored in a variable whose non-plumbing fields are assigned
//     later, or that is handed to code that may change it, is not judged;
//     if only plumbing (name, clientConfig, metadata) is assigned later,
//     findings on plumbing are dropped (see changesAfter);
//   - a finding about a field the literal does not set (a required field,
//     a default) is reported only if every value in the struct literal is
//     known and nothing changes the literal after it is built;
//   - if a webhook's failurePolicy, matchPolicy, sideEffects, timeoutSeconds,
//     rules, selectors, matchConditions, admissionReviewVersions or
//     reinvocationPolicy is unknown, the webhook is not judged at all: rules
//     reason across these fields and would judge a default instead of the
//     real value. An unknown name or clientConfig (names built with
//     fmt.Sprintf, CA bundles injected at start-up) only hides findings on
//     those fields.

// The API packages whose literals are judged. v1beta1 has the same fields
// (its values are read into the v1 types) but other defaults, and the API
// server no longer serves it.
const (
	admissionV1Path      = "k8s.io/api/admissionregistration/v1"
	admissionV1beta1Path = "k8s.io/api/admissionregistration/v1beta1"
)

// semanticFields are the webhook fields other rules' verdicts depend on.
var semanticFields = map[string]bool{
	"failurePolicy": true, "matchPolicy": true, "sideEffects": true, "timeoutSeconds": true,
	"rules": true, "namespaceSelector": true, "objectSelector": true, "matchConditions": true,
	"admissionReviewVersions": true, "reinvocationPolicy": true,
}

// litNode records one field or element written in a literal.
type litNode struct {
	path     string
	x        ast.Expr  // the value as written (for a fix)
	pos, end token.Pos // the value
	keyPos   token.Pos // the field name, when written as Key: value
	known    bool
	isStruct bool // a struct composite literal (missing fields can be judged)
}

func checkLiterals(pass *analysis.Pass, r *reporter, rs, policyRules []*rules.Rule, s *rules.Settings) {
	if !importsAdmission(pass.Pkg) {
		return
	}
	var files []*ast.File
	for _, f := range pass.Files {
		if !isGenerated(f) && !isTestFile(pass, f) {
			files = append(files, f)
		}
	}
	ins := inspector.New(files)
	done := map[*ast.CompositeLit]bool{}
	ins.WithStack([]ast.Node{(*ast.CompositeLit)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		lit := n.(*ast.CompositeLit)
		if done[lit] {
			return true
		}
		kind, apiVersion := literalKind(pass.TypesInfo.TypeOf(lit))
		if isPolicyLiteralKind(kind) {
			if beingBuilt(pass, lit, kind, stack) {
				checkPolicyLiteral(pass, r, policyRules, s, lit, kind, stack, done)
			}
			return true
		}
		if kind == "" || !beingBuilt(pass, lit, kind, stack) {
			return true
		}
		e := &evaluator{pass: pass, nodes: map[string]*litNode{}, done: done}
		var cfg *rules.Config
		switch kind {
		case "ValidatingWebhookConfiguration":
			var o admissionv1.ValidatingWebhookConfiguration
			e.eval(lit, reflect.ValueOf(&o).Elem(), nil)
			o.APIVersion, o.Kind = apiVersion, rules.Validating
			cfg = rules.FromValidating(apiVersion, &o)
		case "MutatingWebhookConfiguration":
			var o admissionv1.MutatingWebhookConfiguration
			e.eval(lit, reflect.ValueOf(&o).Elem(), nil)
			o.APIVersion, o.Kind = apiVersion, rules.Mutating
			cfg = rules.FromMutating(apiVersion, &o)
		case "ValidatingWebhook":
			o := admissionv1.ValidatingWebhookConfiguration{Webhooks: make([]admissionv1.ValidatingWebhook, 1)}
			e.eval(lit, reflect.ValueOf(&o.Webhooks[0]).Elem(), field.NewPath("webhooks").Index(0))
			o.APIVersion, o.Kind = apiVersion, rules.Validating
			cfg = rules.FromValidating(apiVersion, &o)
		case "MutatingWebhook":
			o := admissionv1.MutatingWebhookConfiguration{Webhooks: make([]admissionv1.MutatingWebhook, 1)}
			e.eval(lit, reflect.ValueOf(&o.Webhooks[0]).Elem(), field.NewPath("webhooks").Index(0))
			o.APIVersion, o.Kind = apiVersion, rules.Mutating
			cfg = rules.FromMutating(apiVersion, &o)
		}
		// Each literal is an object of its own for one cause, one finding,
		// even when two share a name (or have none).
		obj := cfg.Object()
		obj.Name = fmt.Sprintf("%s@%d", obj.Name, lit.Pos())
		done[lit] = true
		changed := changesAfter(pass, stack, assignedChange)
		// What the code builds is what it registers (a literal changed
		// afterwards is not judged, nor is plumbing set later): applied as
		// written. The markers' configuration is not: controller-gen writes
		// it to config/webhook, a part of what config/default installs.
		inv := &rules.Inventory{Configs: []*rules.Config{cfg}, Applied: true}
		// Conversion helpers build v1beta1 objects from values they read
		// (for clusters that still have them): no constant of their own,
		// nothing written for a v1beta1 server.
		versionKnown := e.anyKnown()
		runRules(rs, cfg, inv, s, func(f rules.Finding) {
			if d, ok := onType(f, lit); ok {
				if versionKnown {
					r.finding(d, f, inv, obj)
				}
			} else if d, ok := e.place(f, changed); ok {
				d.fixes = e.ruleFixes(f)
				r.finding(d, f, inv, obj)
			}
		}, r, func() (token.Pos, token.Pos) { return lit.Pos(), lit.Lbrace + 1 })
		// Keep walking: literals inside values the evaluator could not
		// follow (a call's arguments, an append) are judged on their own;
		// those it did follow are marked done.
		return true
	})
}

// beingBuilt reports whether a literal is a webhook or a configuration
// being built, the only ones judged. An empty literal never is: it is a
// type token (a watch's source.Kind, For, Owns), a target to decode, convert
// or read into, or a scheme registration, and judging it would report
// the fields it lacks. A webhook literal with fields is always one being
// built. A configuration literal is when it sets its webhooks, a policy or
// binding literal when it sets its spec, and either when it flows (through
// variables it is stored in, append calls, parentheses) into a return, a
// create/update/apply/patch call or a serializer; one that only names an
// object (metadata for a Get or a Delete) is not.
func beingBuilt(pass *analysis.Pass, lit *ast.CompositeLit, kind string, stack []ast.Node) bool {
	if len(lit.Elts) == 0 {
		return false
	}
	if kind == "ValidatingWebhook" || kind == "MutatingWebhook" {
		return true
	}
	content := "Webhooks" // what a configuration holds; a policy's is its Spec
	if isPolicyLiteralKind(kind) {
		content = "Spec"
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == content {
				return true
			}
		} else if len(lit.Elts) > 2 {
			return true // positional: TypeMeta, ObjectMeta, then Webhooks or Spec
		}
	}
	return flowsToSink(pass, stack, 3)
}

// flowsToSink reports whether the value at the top of stack reaches a
// return, a create/update/apply/patch call or a serializer, following
// variables it is stored in up to depth times.
func flowsToSink(pass *analysis.Pass, stack []ast.Node, depth int) bool {
	child := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.ParenExpr:
		case *ast.UnaryExpr:
			if n.Op != token.AND {
				return false
			}
		case *ast.StarExpr:
		case *ast.ReturnStmt:
			return true
		case *ast.CallExpr:
			if child == n.Fun {
				return false // a method called on it
			}
			name := calleeName(pass, n)
			if name == "append" {
				break // where the appended-to list goes
			}
			return sinkCall(name)
		case *ast.AssignStmt:
			for j, rhs := range n.Rhs {
				if rhs != child || j >= len(n.Lhs) || len(n.Lhs) != len(n.Rhs) {
					continue
				}
				id, ok := ast.Unparen(n.Lhs[j]).(*ast.Ident)
				if !ok {
					return false // stored in a field or element: not followed
				}
				return varFlowsToSink(pass, rootObject(pass, id), depth)
			}
			return false
		case *ast.ValueSpec:
			for j, v := range n.Values {
				if v == child && j < len(n.Names) && len(n.Names) == len(n.Values) {
					return varFlowsToSink(pass, pass.TypesInfo.Defs[n.Names[j]], depth)
				}
			}
			return false
		default:
			return false
		}
		child = stack[i]
	}
	return false
}

// varFlowsToSink follows the uses of a variable.
func varFlowsToSink(pass *analysis.Pass, v types.Object, depth int) bool {
	if v == nil || depth == 0 {
		return false
	}
	local := v.Parent() != v.Pkg().Scope()
	for _, f := range pass.Files {
		if local && (v.Pos() < f.FileStart || v.Pos() > f.FileEnd) {
			continue // a local variable is used in its own file only
		}
		found := false
		inspector.New([]*ast.File{f}).WithStack([]ast.Node{(*ast.Ident)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
			if push && !found && pass.TypesInfo.Uses[n.(*ast.Ident)] == v && flowsToSink(pass, stack, depth-1) {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// calleeName is the name of the function or method a call calls ("append"
// for the builtin).
func calleeName(pass *analysis.Pass, call *ast.CallExpr) string {
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	}
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// sinkCall reports calls that send a configuration to the API server or
// write it out: the clients' Create, Update, Apply and Patch (and
// controllerutil's CreateOrUpdate, CreateOrPatch), and serializers.
func sinkCall(name string) bool {
	for _, p := range []string{"Create", "Update", "Apply", "Patch", "Marshal", "Encode", "Print", "Write"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func importsAdmission(p *types.Package) bool {
	if p.Path() == admissionV1Path || p.Path() == admissionV1beta1Path {
		return false // the API packages themselves have nothing to lint
	}
	for _, imp := range p.Imports() {
		if imp.Path() == admissionV1Path || imp.Path() == admissionV1beta1Path {
			return true
		}
	}
	return false
}

// literalKind names the admissionregistration type a literal builds, if it
// is one the front end judges (the webhook types in v1 and v1beta1, the
// admission policy types in v1), and its API version.
func literalKind(t types.Type) (kind, apiVersion string) {
	if t == nil {
		return "", ""
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return "", ""
	}
	switch n.Obj().Pkg().Path() {
	case admissionV1Path:
		apiVersion = rules.V1
	case admissionV1beta1Path:
		apiVersion = rules.V1beta1
	default:
		return "", ""
	}
	switch name := n.Obj().Name(); name {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingWebhook", "MutatingWebhook":
		return name, apiVersion
	case rules.ValidatingPolicy, rules.ValidatingPolicyBinding, rules.MutatingPolicy, rules.MutatingPolicyBinding:
		if apiVersion == rules.V1 {
			return name, apiVersion
		}
	}
	return "", ""
}

// onType places a finding on the literal's apiVersion on its type: a Go
// literal writes its version by the package it names, not in a field.
func onType(f rules.Finding, lit *ast.CompositeLit) (diagnostic, bool) {
	if f.Path != "apiVersion" || lit.Type == nil {
		return diagnostic{}, false
	}
	return diagnostic{pos: lit.Type.Pos(), end: lit.Type.End(), severity: f.Severity, category: f.Rule, message: f.Message}, true
}

// evaluator turns a literal into a typed object, recording where each
// value is written and whether it is known at compile time.
type evaluator struct {
	pass    *analysis.Pass
	nodes   map[string]*litNode
	done    map[*ast.CompositeLit]bool
	unknown []ast.Expr
}

// anyKnown reports whether the literal writes at least one value known
// at compile time.
func (e *evaluator) anyKnown() bool {
	for _, n := range e.nodes {
		if n.known && !n.isStruct {
			return true
		}
	}
	return false
}

func (e *evaluator) record(path *field.Path, x ast.Expr, key ast.Expr, known, isStruct bool) {
	n := &litNode{path: rules.PathString(path), x: x, pos: x.Pos(), end: x.End(), known: known, isStruct: isStruct}
	if key != nil {
		n.keyPos = key.Pos()
	}
	e.nodes[n.path] = n
}

// eval stores the value of x in dst. It returns false (and records the
// value as unknown) when x is not known at compile time.
func (e *evaluator) eval(x ast.Expr, dst reflect.Value, path *field.Path) bool {
	return e.evalKey(x, nil, dst, path)
}

func (e *evaluator) evalKey(x, key ast.Expr, dst reflect.Value, path *field.Path) bool {
	x = ast.Unparen(x)
	if e.set(x, dst, path) {
		_, isStruct := x.(*ast.CompositeLit)
		if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
			_, isStruct = ast.Unparen(u.X).(*ast.CompositeLit)
		}
		isStruct = isStruct && derefType(dst.Type()).Kind() == reflect.Struct
		if n, ok := e.nodes[rules.PathString(path)]; ok && n.isStruct {
			// The composite literal recorded itself already (it needed its
			// own entry before its fields). If x is that literal or &literal,
			// widen the entry to x; if x is an inlined field's literal
			// (RuleWithOperations.Rule), the entry is the enclosing one's.
			if x.Pos() <= n.pos && n.end <= x.End() {
				n.pos, n.end = x.Pos(), x.End()
				if key != nil {
					n.keyPos = key.Pos()
				}
			}
			return true
		}
		e.record(path, x, key, true, isStruct)
		return true
	}
	e.record(path, x, key, false, false)
	e.unknown = append(e.unknown, x)
	return false
}

func derefType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// set evaluates x into dst; false means unknown. Fields and elements of
// composite literals are recorded by the recursive calls.
func (e *evaluator) set(x ast.Expr, dst reflect.Value, path *field.Path) bool {
	info := e.pass.TypesInfo
	if tv, ok := info.Types[x]; ok && tv.Value != nil {
		return setConst(tv.Value, dst)
	}
	if id, ok := x.(*ast.Ident); ok {
		if _, isNil := info.Uses[id].(*types.Nil); isNil {
			dst.Set(reflect.Zero(dst.Type()))
			return true
		}
	}
	switch dst.Kind() {
	case reflect.Pointer:
		inner := e.pointee(x)
		if inner == nil {
			return false
		}
		v := reflect.New(dst.Type().Elem())
		if !e.set(ast.Unparen(inner), v.Elem(), path) {
			return false
		}
		dst.Set(v)
		return true
	case reflect.Struct:
		lit, ok := x.(*ast.CompositeLit)
		if !ok {
			return false
		}
		e.done[lit] = true
		if _, inlined := e.nodes[rules.PathString(path)]; !inlined {
			e.record(path, lit, nil, true, true)
		}
		return e.setStruct(lit, dst, path)
	case reflect.Slice:
		if dst.Type().Elem().Kind() == reflect.Uint8 {
			return setBytes(info, x, dst)
		}
		lit, ok := x.(*ast.CompositeLit)
		if !ok {
			return false
		}
		s := reflect.MakeSlice(dst.Type(), 0, len(lit.Elts))
		all := true
		for i, el := range lit.Elts {
			if _, keyed := el.(*ast.KeyValueExpr); keyed {
				return false // indexed slice literals are rare enough to leave alone
			}
			v := reflect.New(dst.Type().Elem()).Elem()
			if !e.eval(el, v, path.Index(i)) {
				all = false
			}
			s = reflect.Append(s, v)
		}
		dst.Set(s)
		return all
	case reflect.Map:
		lit, ok := x.(*ast.CompositeLit)
		if !ok || dst.Type().Key().Kind() != reflect.String {
			return false
		}
		m := reflect.MakeMapWithSize(dst.Type(), len(lit.Elts))
		all := true
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				return false
			}
			ktv := info.Types[kv.Key]
			if ktv.Value == nil || ktv.Value.Kind() != constant.String {
				return false
			}
			k := constant.StringVal(ktv.Value)
			v := reflect.New(dst.Type().Elem()).Elem()
			if !e.evalKey(kv.Value, kv.Key, v, path.Key(k)) {
				all = false
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), v)
		}
		dst.Set(m)
		return all
	}
	return false
}

// setStruct fills the fields written in a struct literal. A field whose
// value is unknown leaves the struct partially known (false).
func (e *evaluator) setStruct(lit *ast.CompositeLit, dst reflect.Value, path *field.Path) bool {
	all := true
	t := dst.Type()
	for i, el := range lit.Elts {
		var name string
		var val, key ast.Expr
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			id, ok := kv.Key.(*ast.Ident)
			if !ok {
				return false
			}
			name, val, key = id.Name, kv.Value, kv.Key
		} else {
			if i >= t.NumField() {
				return false
			}
			name, val = t.Field(i).Name, el
		}
		sf, ok := t.FieldByName(name)
		if !ok || len(sf.Index) != 1 {
			return false
		}
		fp := fieldPath(path, sf)
		if !e.evalKey(val, key, dst.FieldByIndex(sf.Index), fp) {
			all = false
		}
	}
	return all
}

// fieldPath extends path by a struct field's JSON name; inlined fields
// (RuleWithOperations.Rule, TypeMeta) add nothing.
func fieldPath(path *field.Path, sf reflect.StructField) *field.Path {
	tag := sf.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "" || strings.Contains(tag, "inline") {
		if path == nil {
			return nil
		}
		return path
	}
	if path == nil {
		return field.NewPath(name)
	}
	return path.Child(name)
}

// pointee returns the expression a pointer-valued expression points at,
// when that is known: &T{…}, &v of a variable set once to a constant,
// ptr.To(x), the k8s.io/utils/pointer helpers, and new(x).
func (e *evaluator) pointee(x ast.Expr) ast.Expr {
	info := e.pass.TypesInfo
	switch x := x.(type) {
	case *ast.UnaryExpr:
		if x.Op != token.AND {
			return nil
		}
		inner := ast.Unparen(x.X)
		if _, ok := inner.(*ast.CompositeLit); ok {
			return inner
		}
		if id, ok := inner.(*ast.Ident); ok {
			return constVarInit(e.pass, id)
		}
	case *ast.CallExpr:
		if len(x.Args) != 1 || x.Ellipsis.IsValid() {
			return nil
		}
		fun := ast.Unparen(x.Fun)
		if ix, ok := fun.(*ast.IndexExpr); ok { // ptr.To[int32](5)
			fun = ix.X
		}
		var obj types.Object
		switch f := fun.(type) {
		case *ast.Ident:
			obj = info.Uses[f]
		case *ast.SelectorExpr:
			obj = info.Uses[f.Sel]
		}
		switch o := obj.(type) {
		case *types.Builtin:
			if o.Name() == "new" && !info.Types[x.Args[0]].IsType() {
				return x.Args[0]
			}
		case *types.Func:
			if o.Pkg() == nil {
				return nil
			}
			switch o.Pkg().Path() {
			case "k8s.io/utils/ptr":
				if o.Name() == "To" {
					return x.Args[0]
				}
			case "k8s.io/utils/pointer":
				switch o.Name() {
				case "String", "StringPtr", "Int32", "Int32Ptr", "Bool", "BoolPtr", "Int", "IntPtr", "Int64", "Int64Ptr":
					return x.Args[0]
				}
			}
		}
	}
	return nil
}

// constVarInit returns the constant a variable was initialized with, if
// it is never assigned again anywhere in the package.
func constVarInit(pass *analysis.Pass, id *ast.Ident) ast.Expr {
	v, ok := pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.IsField() {
		return nil
	}
	// Another package may assign an exported package-level variable.
	if v.Exported() && v.Parent() == v.Pkg().Scope() {
		return nil
	}
	var init ast.Expr
	writes := 0
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if pass.TypesInfo.Defs[name] == v && i < len(n.Values) && len(n.Values) == len(n.Names) {
						init = n.Values[i]
						writes++
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					lid, ok := ast.Unparen(lhs).(*ast.Ident)
					if !ok {
						continue
					}
					if pass.TypesInfo.Defs[lid] == v || pass.TypesInfo.Uses[lid] == v {
						writes++
						if len(n.Lhs) == len(n.Rhs) {
							init = n.Rhs[i]
						} else {
							init = nil
						}
					}
				}
			case *ast.IncDecStmt:
				if lid, ok := ast.Unparen(n.X).(*ast.Ident); ok && pass.TypesInfo.Uses[lid] == v {
					writes++
				}
			}
			return true
		})
	}
	if writes != 1 || init == nil || pass.TypesInfo.Types[init].Value == nil {
		return nil
	}
	return init
}

func setConst(c constant.Value, dst reflect.Value) bool {
	switch dst.Kind() {
	case reflect.String:
		if c.Kind() != constant.String {
			return false
		}
		dst.SetString(constant.StringVal(c))
	case reflect.Bool:
		if c.Kind() != constant.Bool {
			return false
		}
		dst.SetBool(constant.BoolVal(c))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := constant.Int64Val(constant.ToInt(c))
		if !ok || dst.OverflowInt(i) {
			return false
		}
		dst.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, ok := constant.Uint64Val(constant.ToInt(c))
		if !ok || dst.OverflowUint(u) {
			return false
		}
		dst.SetUint(u)
	default:
		return false
	}
	return true
}

// setBytes knows []byte("constant").
func setBytes(info *types.Info, x ast.Expr, dst reflect.Value) bool {
	call, ok := x.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || !info.Types[call.Fun].IsType() {
		return false
	}
	tv := info.Types[call.Args[0]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		return false
	}
	dst.SetBytes([]byte(constant.StringVal(tv.Value)))
	return true
}

// place turns a rule finding into a diagnostic under the policy above.
func (e *evaluator) place(f rules.Finding, changed change) (diagnostic, bool) {
	if changed == semanticChanged || changed == plumbingChanged && isPlumbingPath(f.Path) {
		return diagnostic{}, false
	}
	var n *litNode
	for p := f.Path; ; p = fieldpath.Parent(p) {
		if n = e.nodes[p]; n != nil || p == "" {
			break
		}
	}
	if n == nil || !n.known {
		return diagnostic{}, false
	}
	// Findings about a webhook need the fields rules reason across.
	if i, _, ok := fieldpath.Webhook(f.Path); ok {
		prefix := field.NewPath("webhooks").Index(i).String()
		if _, ok := e.nodes[prefix]; !ok {
			return diagnostic{}, false
		}
		for p, x := range e.nodes {
			if !x.known && strings.HasPrefix(p, prefix+".") {
				top, _, _ := strings.Cut(fieldpath.Fields(p[len(prefix):]), ".")
				if semanticFields[top] {
					return diagnostic{}, false
				}
			}
		}
	}
	d := diagnostic{severity: f.Severity, category: f.Rule, message: f.Message, webhook: f.Webhook}
	if n.path == f.Path {
		d.pos, d.end = n.pos, n.end
		if f.AtKey && n.keyPos.IsValid() {
			d.pos = n.keyPos
		}
		return d, true
	}
	// The finding is about something the literal does not write.
	if n.isStruct {
		if changed != unchanged || !e.complete(n.path) {
			return diagnostic{}, false
		}
		d.pos, d.end = n.pos, n.pos+1
		if n.keyPos.IsValid() {
			d.pos, d.end = n.keyPos, n.pos
		} else if lit, ok := e.litAt(n); ok {
			d.pos, d.end = lit.Pos(), lit.Lbrace+1
		}
		return d, true
	}
	d.pos, d.end = n.pos, n.end
	return d, true
}

// isPlumbingPath: a path under a webhook's name or clientConfig, or the
// configuration's metadata (what plumbingFields set).
func isPlumbingPath(p string) bool {
	if strings.HasPrefix(p, "metadata") {
		return true
	}
	_, rest, ok := fieldpath.Webhook(p)
	return ok && (rest == ".name" || strings.HasPrefix(rest, ".clientConfig"))
}

// complete reports whether every value written at or below path is known.
func (e *evaluator) complete(path string) bool {
	for p, x := range e.nodes {
		if !x.known && (path == "" || fieldpath.Within(p, path)) {
			return false
		}
	}
	return true
}

func (e *evaluator) litAt(n *litNode) (*ast.CompositeLit, bool) {
	// The outermost literal within the value (for &T{…}, the T{…}).
	var best *ast.CompositeLit
	for lit := range e.done {
		if n.pos <= lit.Pos() && lit.End() <= n.end && (best == nil || lit.Pos() < best.Pos()) {
			best = lit
		}
	}
	return best, best != nil
}

// change says what happens to a literal after it is built.
type change int

const (
	// unchanged: the literal is returned, passed on or stored in a
	// variable nobody writes to.
	unchanged change = iota
	// plumbingChanged: only names, clientConfig or metadata are set
	// afterwards (a CA bundle injected at start-up), or the literal is
	// stored where we do not follow it. Findings on those fields, and on
	// fields the literal lacks, would be guesses.
	plumbingChanged
	// semanticChanged: other fields are set afterwards, or the variable is
	// handed to code that may set them. Nothing about it can be judged.
	semanticChanged
)

// plumbingFields are the Go fields whose later assignment leaves the
// verdict of the rules on the other fields intact.
var plumbingFields = map[string]bool{
	"ClientConfig": true, "CABundle": true, "Service": true, "URL": true,
	"ObjectMeta": true, "Name": true, "Namespace": true, "Labels": true, "Annotations": true,
}

// changesAfter finds what happens to the literal at the top of stack
// after it is built, by following the variable it is stored in through
// the enclosing function (or the package, for a package-level variable).
// classify says what an assignment to a field of the literal changes.
func changesAfter(pass *analysis.Pass, stack []ast.Node, classify func(lhs ast.Expr) change) change {
	var obj types.Object
	var fn ast.Node
	for i := len(stack) - 2; i >= 0 && obj == nil; i-- {
		switch n := stack[i].(type) {
		case *ast.CompositeLit, *ast.KeyValueExpr, *ast.ParenExpr:
			continue
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				continue
			}
			return unchanged
		case *ast.AssignStmt:
			for j, rhs := range n.Rhs {
				if j < len(n.Lhs) && contains(rhs, stack[len(stack)-1]) {
					if id, ok := ast.Unparen(n.Lhs[j]).(*ast.Ident); ok {
						obj = rootObject(pass, id)
					}
				}
			}
			if obj == nil {
				return plumbingChanged // stored in a field or element we do not follow
			}
			fn = enclosingFunc(stack[:i])
		case *ast.ValueSpec:
			for j, v := range n.Values {
				if j < len(n.Names) && contains(v, stack[len(stack)-1]) {
					obj = pass.TypesInfo.Defs[n.Names[j]]
				}
			}
			if obj == nil {
				return plumbingChanged
			}
			fn = enclosingFunc(stack[:i])
		default:
			return unchanged
		}
	}
	if obj == nil {
		return unchanged
	}
	var scopes []ast.Node
	if fn != nil {
		scopes = []ast.Node{fn}
	} else {
		for _, f := range pass.Files {
			scopes = append(scopes, f)
		}
	}
	_, isPtr := obj.Type().Underlying().(*types.Pointer)
	worst := unchanged
	note := func(c change) {
		if c > worst {
			worst = c
		}
	}
	uses := func(x ast.Expr) bool {
		id, ok := ast.Unparen(x).(*ast.Ident)
		return ok && pass.TypesInfo.Uses[id] == obj
	}
	for _, sc := range scopes {
		ast.Inspect(sc, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if _, plain := ast.Unparen(lhs).(*ast.Ident); plain {
						continue // rebinding the variable does not change the literal
					}
					if rootObject(pass, lhs) == obj {
						note(classify(lhs))
					}
				}
				if isPtr {
					for _, rhs := range n.Rhs {
						if uses(rhs) {
							note(semanticChanged) // an alias we do not follow
						}
					}
				}
			case *ast.IncDecStmt:
				if rootObject(pass, n.X) == obj {
					note(semanticChanged)
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND && rootObject(pass, n.X) == obj {
					note(semanticChanged)
				}
			case *ast.CallExpr:
				// Sending it to the API server or writing it out is what
				// building it was for; other code it is handed to may
				// change it.
				if isPtr && !sinkCall(calleeName(pass, n)) {
					for _, a := range n.Args {
						if uses(a) {
							note(semanticChanged)
						}
					}
				}
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && rootObject(pass, sel.X) == obj {
					note(semanticChanged) // a method may change it
				}
			}
			return worst < semanticChanged
		})
	}
	return worst
}

// assignedChange classifies an assignment to x.A[i].B…: plumbing if the
// chain goes through one of plumbingFields.
func assignedChange(lhs ast.Expr) change {
	if slices.ContainsFunc(assignedFields(lhs), func(f string) bool { return plumbingFields[f] }) {
		return plumbingChanged
	}
	return semanticChanged
}

// assignedFields are the field names an assignment to x.A[i].B… goes
// through, the last written first: [B A].
func assignedFields(lhs ast.Expr) []string {
	var out []string
	for x := ast.Unparen(lhs); ; {
		switch y := x.(type) {
		case *ast.SelectorExpr:
			out = append(out, y.Sel.Name)
			x = ast.Unparen(y.X)
		case *ast.IndexExpr:
			x = ast.Unparen(y.X)
		case *ast.StarExpr:
			x = ast.Unparen(y.X)
		default:
			return out
		}
	}
}

func contains(outer, inner ast.Node) bool {
	return outer.Pos() <= inner.Pos() && inner.End() <= outer.End()
}

func enclosingFunc(stack []ast.Node) ast.Node {
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return stack[i]
		}
	}
	return nil
}

// rootObject is the variable at the root of x.f[i].g, *x and the like.
func rootObject(pass *analysis.Pass, x ast.Expr) types.Object {
	for {
		switch y := ast.Unparen(x).(type) {
		case *ast.Ident:
			if o := pass.TypesInfo.Uses[y]; o != nil {
				return o
			}
			return pass.TypesInfo.Defs[y]
		case *ast.SelectorExpr:
			x = y.X
		case *ast.IndexExpr:
			x = y.X
		case *ast.StarExpr:
			x = y.X
		default:
			return nil
		}
	}
}
