package celcheck

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	apiservercel "k8s.io/apiserver/pkg/cel"
	celcommon "k8s.io/apiserver/pkg/cel/common"
)

// This file type-checks matchConditions against the schema of the object a
// request carries, the way ValidatingAdmissionPolicy type checking does
// (k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go):
// the schema becomes a CEL type by the server's own
// k8s.io/apiserver/pkg/cel/common.SchemaDeclType, object and oldObject are
// declared with it, and the expression is compiled in the environment the
// server compiles webhook conditions in. Webhook conditions are evaluated
// on schemaless JSON, so the checker's complaints are kept only where they
// predict what that evaluation does: a field the type does not have is a
// "no such key" error, has() on it is always false, == between a string
// and an int is always false.

// ObjectType is the CEL type of object and oldObject for one kind.
type ObjectType struct {
	// Name identifies the type in the environment; one environment declares
	// one object type, so it only needs to be a valid type name.
	Name string
	decl *apiservercel.DeclType

	envs    sync.Map // kube minor -> *typedEnv
	results sync.Map // kube minor + "\x00" + expression -> *typedEntry
}

type typedEnv struct {
	once sync.Once
	env  *cel.Env
	err  error
}

type typedEntry struct {
	once   sync.Once
	issues []TypeIssue
}

// NewObjectType builds the type of a resource whose schema is s (a
// resource root: apiVersion, kind and metadata are added when missing, as
// the server does). objectMeta, if not nil, types the metadata of the root
// and of embedded resources, which the server prunes to ObjectMeta.
//
// Only what the schema pins down is typed. The server's CEL types leave out
// or close what a webhook's schemaless evaluation sees as open: fields
// without a type, x-kubernetes-preserve-unknown-fields objects, objects and
// arrays without properties or items. Those are dyn here, so that no field
// is reported missing that a request can carry. Strings with a format
// (date-time, duration, byte) stay strings: a webhook sees the JSON text.
func NewObjectType(name string, s, objectMeta celcommon.Schema) *ObjectType {
	return NewObjectTypeFor(name, s, objectMeta, nil)
}

// NewObjectTypeFor is NewObjectType with only the properties names keeps,
// at every depth: checking an expression whose names it is gives the
// issues the whole type gives (TestPrunedTypesCheckAlike), and the cost of
// typing is that of what the expression can reach, not of a whole PodSpec.
// An object keeps its kind even when none of its properties is kept: it
// has fields, so reading one it lacks is still an error. s need only be
// complete under the properties names keeps (openapi.Catalog.ResolvePruned
// leaves the others unresolved). FieldPath on such a type only sees what
// was kept.
func NewObjectTypeFor(name string, s, objectMeta celcommon.Schema, names *FieldNames) (t *ObjectType) {
	defer func() {
		// A schema the server's converter cannot handle types nothing: the
		// resource is then not checked, and the linter does not crash.
		if recover() != nil {
			t = nil
		}
	}()
	decl := celcommon.SchemaDeclType(&runtimeSchema{Schema: s, meta: objectMeta, names: names}, true)
	if decl == nil {
		return nil
	}
	return &ObjectType{Name: name, decl: decl.MaybeAssignTypeName(name)}
}

// runtimeSchema adapts a schema to what a webhook's CEL evaluation sees.
// A tree of them is made and walked by one SchemaDeclType call, on one
// goroutine.
type runtimeSchema struct {
	celcommon.Schema
	meta celcommon.Schema
	// names are the properties typed (nil: all); the others are left out.
	names *FieldNames
	// resource: the root or an embedded resource, whose metadata is
	// ObjectMeta.
	resource bool
	// props memoizes Properties: SchemaDeclType asks twice per object and
	// open once more, and each answer of the wrapped schema is a new map.
	props     map[string]celcommon.Schema
	propsDone bool
	// allProps is how many properties the schema has, kept or not.
	allProps int
}

func (s *runtimeSchema) wrap(c celcommon.Schema) celcommon.Schema {
	if c == nil {
		return nil
	}
	return &runtimeSchema{Schema: c, meta: s.meta, names: s.names}
}

// open reports whether values of the schema may hold anything.
func (s *runtimeSchema) open() bool {
	in := s.Schema
	if in.IsXPreserveUnknownFields() {
		return true
	}
	switch in.Type() {
	case "":
		return true
	case "array":
		return in.Items() == nil
	case "object":
		if s.Properties(); s.allProps > 0 {
			return false // even when none is kept: see NewObjectTypeFor
		}
		ap := in.AdditionalProperties()
		return ap == nil || ap.Schema() == nil
	}
	return false
}

// IsXIntOrString is how SchemaDeclType is told "dyn".
func (s *runtimeSchema) IsXIntOrString() bool {
	return s.Schema.IsXIntOrString() || (!s.resource && s.open())
}

func (s *runtimeSchema) Format() string {
	switch f := s.Schema.Format(); f {
	case "date", "date-time", "duration", "byte":
		return ""
	default:
		return f
	}
}

func (s *runtimeSchema) Items() celcommon.Schema { return s.wrap(s.Schema.Items()) }

func (s *runtimeSchema) Properties() map[string]celcommon.Schema {
	if !s.propsDone {
		s.props, s.propsDone = s.properties(), true
	}
	return s.props
}

func (s *runtimeSchema) properties() map[string]celcommon.Schema {
	props := s.Schema.Properties()
	if props == nil {
		return nil
	}
	s.allProps = len(props)
	out := make(map[string]celcommon.Schema, len(props))
	for k, v := range props {
		if !s.names.Keeps(k) {
			continue
		}
		w := &runtimeSchema{Schema: v, meta: s.meta, names: s.names}
		if s.resource && k == "metadata" && s.meta != nil {
			w.Schema = s.meta
		}
		if v.IsXEmbeddedResource() && !v.IsXPreserveUnknownFields() {
			w.resource = true
		}
		out[k] = w
	}
	return out
}

func (s *runtimeSchema) AdditionalProperties() celcommon.SchemaOrBool {
	ap := s.Schema.AdditionalProperties()
	if ap == nil {
		return nil
	}
	return runtimeSchemaOrBool{ap, s}
}

type runtimeSchemaOrBool struct {
	celcommon.SchemaOrBool
	parent *runtimeSchema
}

func (b runtimeSchemaOrBool) Schema() celcommon.Schema { return b.parent.wrap(b.SchemaOrBool.Schema()) }

func (s *runtimeSchema) WithTypeAndObjectMeta() celcommon.Schema {
	return &runtimeSchema{Schema: s.Schema.WithTypeAndObjectMeta(), meta: s.meta, names: s.names, resource: true}
}

// TypeIssueKind says what a type error means when the condition runs.
type TypeIssueKind int

const (
	// NoSuchField: a field the type does not have is read; the read fails
	// with "no such key".
	NoSuchField TypeIssueKind = iota + 1
	// NoSuchFieldTested: has() tests a field the type does not have; it is
	// always false.
	NoSuchFieldTested
	// NoSuchFieldOptional: .? selects a field the type does not have; the
	// result is always none.
	NoSuchFieldOptional
	// NoFields: a field is selected on a value that has none (a string, a
	// number); the read fails.
	NoFields
	// NeverEqual: == or in compares values of different types, which are
	// never equal (!= is always true).
	NeverEqual
	// NoOverload: an operator or function is applied to types it is not
	// defined for; the call fails with "no such overload".
	NoOverload
)

// TypeIssue is one type error of an expression that compiles with dyn
// object and oldObject.
type TypeIssue struct {
	Kind TypeIssueKind
	// Expr is the sub-expression at fault, unparsed from the AST; Offset is
	// where it starts in the expression (in characters) and Root the
	// variable the selection starts from (object, oldObject, a
	// comprehension variable), if any.
	Expr   string
	Offset int
	Root   string
	// ExprID is the AST node of Expr in the condition's checked AST.
	ExprID int64
	// FieldOffset is where Field is written (in characters), or -1.
	FieldOffset int
	// Field is the missing field (NoSuchField*), Operator the function or
	// operator (NeverEqual, NoOverload), Types the argument types as CEL
	// prints them: "(int, string)".
	Field, Operator, Types string
}

// CheckTyped type-checks an expression the target server accepts (r.OK())
// with object and oldObject of type t, and returns the issues that predict
// a runtime outcome, sorted by offset. Results are cached per type.
func (c *Compiler) CheckTyped(r Result, t *ObjectType) []TypeIssue {
	if !r.OK() || r.AST == nil || t == nil {
		return nil
	}
	key := fmt.Sprintf("%d\x00%s", c.kubeMinor, r.Expression)
	v, _ := t.results.LoadOrStore(key, &typedEntry{})
	e := v.(*typedEntry)
	e.once.Do(func() { e.issues = c.checkTyped(r, t) })
	return e.issues
}

func (c *Compiler) typedEnv(t *ObjectType) (*cel.Env, error) {
	v, _ := t.envs.LoadOrStore(c.kubeMinor, &typedEnv{})
	te := v.(*typedEnv)
	te.once.Do(func() { te.env, te.err = buildTypedEnv(c.kubeMinor, t) })
	return te.env, te.err
}

// buildTypedEnv is the webhook environment with object and oldObject
// typed, as typechecking.go buildEnvSet declares them for policies.
func buildTypedEnv(minor int, t *ObjectType) (*cel.Env, error) {
	return webhookEnv(minor, t.decl.CelType(), t.decl)
}

// recheck type-checks expr in env, an environment with the parser of the
// compiler's (the same base, other declarations): what env.Compile(expr)
// reports, without parsing expr again for every type it is checked with
// (a parse is most of a check). It checks a copy of the parse Compile
// kept (keepParse).
func (c *Compiler) recheck(env *cel.Env, expr string) *cel.Issues {
	v, _ := c.parses.LoadOrStore(expr, &parsedEntry{})
	e := v.(*parsedEntry)
	e.once.Do(func() {
		// Not expected: CheckTyped only sees expressions that compiled.
		if parsed, iss := c.environment().Parse(expr); iss.Err() == nil {
			e.set(parsed)
		}
	})
	if e.parsed == nil {
		_, iss := env.Compile(expr)
		return iss
	}
	_, iss := env.Check(cel.ParsedExprToAstWithSource(e.parsed, e.src))
	return iss
}

// keepParse keeps the parse of expr for recheck, as a ParsedExpr: checking
// rewrites the AST it is given.
func (c *Compiler) keepParse(expr string, parsed *cel.Ast) {
	e := &parsedEntry{}
	e.once.Do(func() { e.set(parsed) })
	c.parses.LoadOrStore(expr, e)
}

// parsedEntry is the parse of one expression, made once.
type parsedEntry struct {
	once   sync.Once
	src    common.Source
	parsed *exprpb.ParsedExpr // nil if it does not parse
}

func (e *parsedEntry) set(parsed *cel.Ast) {
	if pe, err := cel.AstToParsedExpr(parsed); err == nil {
		e.src, e.parsed = parsed.Source(), pe
	}
}

func (c *Compiler) checkTyped(r Result, t *ObjectType) (out []TypeIssue) {
	defer func() {
		// A type the checker cannot handle is no finding, never a crash.
		if p := recover(); p != nil {
			out = nil
		}
	}()
	env, err := c.typedEnv(t)
	if err != nil {
		return nil
	}
	iss := c.recheck(env, r.Expression)
	if iss == nil || iss.Err() == nil {
		return nil
	}
	p := &program{ast: r.AST, expr: r.Expression}
	seen := map[string]bool{}
	for _, e := range iss.Errors() {
		issue, ok := classify(p, e)
		if !ok {
			continue
		}
		k := fmt.Sprintf("%d|%d|%s", issue.Kind, issue.Offset, issue.Expr)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, issue)
	}
	slices.SortFunc(out, func(a, b TypeIssue) int {
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		return strings.Compare(a.Expr, b.Expr)
	})
	return out
}

// classify maps a checker error to what it means at runtime; false when it
// predicts nothing (an argument is an object, which is a map at runtime
// and supports indexing, in and size; or a numeric comparison, which CEL
// evaluates across int, uint and double).
func classify(p *program, e *common.Error) (TypeIssue, bool) {
	node := findExpr(p.ast.Expr(), e.ExprID)
	if node == nil {
		return TypeIssue{}, false
	}
	msg := e.Message
	issue := TypeIssue{Expr: p.text(node), Offset: p.offset(node), Root: rootName(node), ExprID: node.ID(), FieldOffset: -1}
	switch {
	case strings.HasPrefix(msg, "undefined field '"):
		issue.Field = strings.TrimSuffix(strings.TrimPrefix(msg, "undefined field '"), "'")
		issue.FieldOffset = p.fieldOffset(node, issue.Field)
		issue.Kind = NoSuchField
		switch {
		case node.Kind() == celast.SelectKind && node.AsSelect().IsTestOnly():
			issue.Kind = NoSuchFieldTested
		case node.Kind() == celast.CallKind && node.AsCall().FunctionName() == operators.OptSelect:
			issue.Kind = NoSuchFieldOptional
		}
		return issue, true
	case strings.HasPrefix(msg, "type '") && strings.HasSuffix(msg, "' does not support field selection"):
		t := strings.TrimSuffix(strings.TrimPrefix(msg, "type '"), "' does not support field selection")
		if !primitive(t) {
			return TypeIssue{}, false
		}
		issue.Kind, issue.Types = NoFields, t
		if node.Kind() == celast.SelectKind {
			issue.Field = node.AsSelect().FieldName()
			issue.FieldOffset = p.fieldOffset(node, issue.Field)
		}
		return issue, true
	case strings.HasPrefix(msg, "found no matching overload for '"):
		rest := strings.TrimPrefix(msg, "found no matching overload for '")
		op, sig, ok := strings.Cut(rest, "' applied to '")
		if !ok {
			return TypeIssue{}, false
		}
		sig = strings.TrimSuffix(sig, "'")
		args := signatureTypes(sig)
		if len(args) == 0 {
			return TypeIssue{}, false
		}
		for _, a := range args {
			if !primitive(a) || a == "null_type" {
				return TypeIssue{}, false
			}
		}
		issue.Operator, issue.Types = op, sig
		switch op {
		case operators.Equals, operators.NotEquals, operators.In:
			if len(args) == 2 && numeric(args[0]) && numeric(args[1]) {
				return TypeIssue{}, false
			}
			issue.Kind = NeverEqual
		default:
			if len(args) == 2 && numeric(args[0]) && numeric(args[1]) && comparison(op) {
				return TypeIssue{}, false
			}
			issue.Kind = NoOverload
		}
		return issue, true
	}
	return TypeIssue{}, false
}

func comparison(op string) bool {
	switch op {
	case operators.Less, operators.LessEquals, operators.Greater, operators.GreaterEquals:
		return true
	}
	return false
}

func numeric(t string) bool { return t == "int" || t == "uint" || t == "double" }

// primitive reports whether a CEL type as the checker prints it is built
// from JSON-like scalars, lists and maps only (no object type, no type
// parameter, no dyn), so that the runtime value has the same type.
func primitive(t string) bool {
	switch t {
	case "int", "uint", "double", "string", "bool", "bytes", "null_type":
		return true
	}
	for _, p := range []string{"list(", "map("} {
		if inner, ok := strings.CutPrefix(t, p); ok && strings.HasSuffix(inner, ")") {
			for _, a := range splitTop(strings.TrimSuffix(inner, ")")) {
				if !primitive(a) || a == "null_type" {
					return false
				}
			}
			return true
		}
	}
	return false
}

// signatureTypes splits "(int, string)" or "string.(int)" into the
// argument types, target first.
func signatureTypes(sig string) []string {
	var out []string
	if i := strings.Index(sig, ".("); i > 0 && !strings.HasPrefix(sig, "(") {
		out = append(out, sig[:i])
		sig = sig[i+1:]
	}
	if !strings.HasPrefix(sig, "(") || !strings.HasSuffix(sig, ")") {
		return nil
	}
	inner := sig[1 : len(sig)-1]
	if inner == "" {
		return out
	}
	return append(out, splitTop(inner)...)
}

// splitTop splits at commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// rootName is the identifier a selection chain starts from.
func rootName(e celast.Expr) string {
	for {
		switch e.Kind() {
		case celast.IdentKind:
			return e.AsIdent()
		case celast.SelectKind:
			e = e.AsSelect().Operand()
		case celast.CallKind:
			c := e.AsCall()
			switch {
			case c.FunctionName() == operators.OptSelect || c.FunctionName() == operators.Index || c.FunctionName() == operators.OptIndex:
				e = c.Args()[0]
			case c.IsMemberFunction():
				e = c.Target()
			default:
				if len(c.Args()) == 0 {
					return ""
				}
				e = c.Args()[0]
			}
		default:
			return ""
		}
	}
}

// findExpr returns the node with the given id.
func findExpr(e celast.Expr, id int64) celast.Expr {
	if e == nil {
		return nil
	}
	if e.ID() == id {
		return e
	}
	for _, k := range children(e) {
		if f := findExpr(k, id); f != nil {
			return f
		}
	}
	return nil
}

// fieldOffset is where field is written in the selection node e: the
// first occurrence at or after the node's own position (the "." of a
// selection), or -1.
func (p *program) fieldOffset(e celast.Expr, field string) int {
	r, ok := p.ast.SourceInfo().GetOffsetRange(e.ID())
	if !ok || field == "" {
		return -1
	}
	runes := []rune(p.expr)
	want := []rune(field)
	for i := max(int(r.Start), 0); i+len(want) <= len(runes); i++ {
		if string(runes[i:i+len(want)]) == field {
			return i
		}
	}
	return -1
}

// FieldPath returns the shortest path of object fields (no lists or maps
// on the way) from the root of t to a field named field, such as
// "spec.template.spec.containers"; "" if there is none, or several of the
// same length.
func (t *ObjectType) FieldPath(field string) string {
	if t == nil || t.decl == nil {
		return ""
	}
	type step struct {
		path string
		decl *apiservercel.DeclType
	}
	level := []step{{"", t.decl}}
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		var found []string
		var next []step
		for _, s := range level {
			if !s.decl.IsObject() {
				continue
			}
			names := make([]string, 0, len(s.decl.Fields))
			for n := range s.decl.Fields {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				p := n
				if s.path != "" {
					p = s.path + "." + n
				}
				if n == field {
					found = append(found, p)
				}
				next = append(next, step{p, s.decl.Fields[n].Type})
			}
		}
		switch len(found) {
		case 0:
		case 1:
			return found[0]
		default:
			return ""
		}
		level = next
	}
	return ""
}
