package celcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/debug"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"
)

// This file finds matchCondition expressions that compile but fail when the
// API server evaluates them, by abstract evaluation of the checked ASTs.
//
// What fails, as observed with the real matcher (hazards_test.go evaluates
// every claim below with matchconditions.NewMatcher on synthetic requests):
//   - object is null on DELETE, oldObject on CREATE and CONNECT; selecting a
//     field of a null object fails ("no such key"), while has() is false
//     and .? yields none;
//   - on CONNECT, object is the options object (PodExecOptions…), which has
//     no metadata, spec or status;
//   - namespaceObject is never set for webhooks: it compares equal to null
//     and every field selection fails;
//   - a missing map key fails: labels or annotations that are absent
//     altogether, a label or annotation that is not set, any string-keyed
//     index into the object or request;
//   - empty optional request fields are absent, not "": namespace on
//     cluster-scoped requests, subResource and requestSubResource outside
//     subresource requests, userInfo.uid and userInfo.extra when unset.
//
// The evaluator runs every condition of a webhook in every "world": an
// operation and subresource pair the webhook's rules can match, combined
// with each presence assignment of the maps and keys the conditions touch.
// Within a world, values it cannot know are sets of possible outcomes; &&,
// || and ?: follow CEL's error-absorbing semantics (false && error is
// false), and the conditions combine like the matcher (any false condition
// skips the webhook, which hides errors of the others). A hazard is
// reported when some world turns it into an error of the whole match.

// HazardKind says why an expression fails at runtime.
type HazardKind int

const (
	// NullObject: a field of object is read on DELETE, where object is null.
	NullObject HazardKind = iota + 1
	// NullOldObject: a field of oldObject is read on CREATE or CONNECT.
	NullOldObject
	// OptionsObject: object.metadata/spec/status is read on CONNECT, where
	// object is the connect options object.
	OptionsObject
	// NamespaceObject: namespaceObject is used; webhooks never set it.
	NamespaceObject
	// MissingKey: a map key or optional field that may be absent is read.
	MissingKey
)

// RequestShape is one kind of request a webhook's rules can match.
type RequestShape struct {
	Operation   string // CREATE, UPDATE, DELETE or CONNECT
	Subresource bool   // the request is for a subresource (pods/exec…)
	// Namespaced: the request carries a namespace (namespaced resources,
	// and namespaces themselves); cluster-scoped requests have none.
	Namespaced bool
}

// Hazard is one way a webhook's matchConditions fail at runtime.
type Hazard struct {
	Condition int // index of the condition
	Kind      HazardKind
	// Expr is the failing sub-expression (unparsed from the AST), Offset
	// its start in the condition's expression (in characters), and Line
	// and Column (1-based) the same place as the server's compile errors
	// print it (<input>:Line:Column).
	Expr         string
	Offset       int
	Line, Column int
	// Shape is a request on which the failure happens.
	Shape RequestShape
	// Missing is the map, key or field that may be absent (MissingKey
	// only), and Container the map holding it when that map may itself be
	// absent (object.metadata.labels for a label).
	Missing, Container string
	// ErrorMeansFalse: every failing read of this hazard sits where a
	// guarded read (has(…) && …) would make the condition false, never
	// true: under failurePolicy Ignore the error skips the webhook exactly
	// as the guarded condition would (labels['app'] == 'x' on an unlabeled
	// object), so it is harmless. A read under a negation (!, !=), in a
	// ternary's condition or in a comprehension is not.
	ErrorMeansFalse bool

	path string // the access path key, to merge reads of one chain
}

// maxAtoms bounds the presence facts enumerated together (2^n worlds per
// request shape).
const maxAtoms = 10

// RuntimeHazards analyzes the compiled conditions of one webhook (in order;
// rejected ones are skipped) for the request shapes its rules match. The
// result is shared between callers with the same input: do not modify it.
func RuntimeHazards(conds []Result, shapes []RequestShape) []Hazard {
	var key strings.Builder
	for _, s := range shapes {
		fmt.Fprintf(&key, "%s/%t/%t,", s.Operation, s.Subresource, s.Namespaced)
	}
	for _, r := range conds {
		key.WriteString("\x00")
		if r.OK() {
			key.WriteString(r.Expression)
		} else {
			key.WriteString("\x01") // rejected: skipped, whatever the text
		}
	}
	if v, ok := hazardCache.Load(key.String()); ok {
		return v.([]Hazard)
	}
	out := runtimeHazards(conds, shapes)
	hazardCache.Store(key.String(), out)
	return out
}

// hazardCache holds analyses by shapes and condition texts: configurations
// repeat the same conditions across webhooks and documents.
var hazardCache sync.Map

func runtimeHazards(conds []Result, shapes []RequestShape) []Hazard {
	var progs []*program
	for i, r := range conds {
		if r.OK() && r.AST != nil {
			progs = append(progs, newProgram(i, r))
		}
	}
	if len(progs) == 0 || len(shapes) == 0 {
		return nil
	}
	found, ok := analyze(progs, shapes)
	if !ok {
		// Too many presence facts to enumerate together: give up the
		// cross-condition reasoning and analyze each condition alone
		// (a condition with too many facts alone is not analyzed).
		for _, p := range progs {
			alone, _ := analyze([]*program{p}, shapes)
			found = append(found, alone...)
		}
	}
	slices.SortStableFunc(found, func(a, b Hazard) int {
		if a.Condition != b.Condition {
			return a.Condition - b.Condition
		}
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		return int(a.Kind) - int(b.Kind)
	})
	return found
}

// analyze returns false if the programs touch too many presence facts.
func analyze(progs []*program, shapes []RequestShape) ([]Hazard, bool) {
	var atoms []string
	seen := map[string]bool{}
	for _, p := range progs {
		for _, a := range p.atoms {
			if !seen[a] {
				seen[a] = true
				atoms = append(atoms, a)
			}
		}
	}
	if len(atoms) > maxAtoms {
		return nil, false
	}
	var out []Hazard
	reported := map[hazardKey]int{} // index in out
	index := make(map[string]int, len(atoms))
	for i, a := range atoms {
		index[a] = i
	}
	// A condition's value depends only on the atoms it reads: evaluate it
	// once per shape and projection of the world onto those atoms.
	masks := make([]uint64, len(progs))
	memo := make([]map[uint64]aval, len(progs))
	for i, p := range progs {
		for _, a := range p.atoms {
			masks[i] |= 1 << index[a]
		}
		memo[i] = map[uint64]aval{}
	}
	for si, shape := range shapes {
		for bits := 0; bits < 1<<len(atoms); bits++ {
			w := &world{shape: shape, atoms: index, bits: uint64(bits)}
			// The matcher: conditions combine like &&.
			total := aval{out: oTrue}
			for i, p := range progs {
				key := uint64(si)<<maxAtoms | uint64(bits)&masks[i]
				v, ok := memo[i][key]
				if !ok {
					v = p.eval(p.root, w)
					memo[i][key] = v
				}
				total = and(total, v)
			}
			for _, h := range total.errs {
				k := hazardKey{h.prog.index, h.kind, h.subject}
				if at, ok := reported[k]; ok {
					out[at].ErrorMeansFalse = out[at].ErrorMeansFalse && h.prog.errorMeansFalse(h.node)
					continue
				}
				reported[k] = len(out)
				hz := Hazard{Condition: h.prog.index, Kind: h.kind, Expr: h.prog.text(h.node), Offset: h.prog.offset(h.node), Shape: shape, path: h.subject,
					ErrorMeansFalse: h.prog.errorMeansFalse(h.node)}
				if h.kind == MissingKey {
					hz.Missing = hz.Expr
				}
				loc := h.prog.ast.SourceInfo().GetLocationByOffset(int32(hz.Offset))
				hz.Line, hz.Column = loc.Line(), loc.Column()+1
				out = append(out, hz)
			}
		}
	}
	return dropCoveredReads(out), true
}

// dropCoveredReads keeps one missing-key hazard per chain of reads: for
// object.metadata.labels["app"], the key read stands for the map read
// (the message names both).
func dropCoveredReads(hz []Hazard) []Hazard {
	covered := make([]bool, len(hz))
	for i, h := range hz {
		if h.Kind != MissingKey {
			continue
		}
		for j := range hz {
			o := &hz[j]
			if o.Kind == MissingKey && o.Condition == h.Condition && strings.HasPrefix(o.path, h.path+"\x00") {
				covered[i] = true
				if o.Container == "" {
					o.Container = h.Missing
				}
			}
		}
	}
	out := hz[:0:0]
	for i, h := range hz {
		if !covered[i] {
			out = append(out, h)
		}
	}
	return out
}

type hazardKey struct {
	cond    int
	kind    HazardKind
	subject string
}

// site is a node that fails in some worlds.
type site struct {
	prog    *program
	kind    HazardKind
	node    celast.Expr
	subject string // groups sites reported once (the variable, or the path)
	missing string
}

// siteSet is a small set of sites (an error's possible causes).
type siteSet []*site

func (s siteSet) union(t siteSet) siteSet {
	if len(t) == 0 {
		return s
	}
	if len(s) == 0 {
		return t
	}
	out := slices.Clone(s)
	for _, x := range t {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// outcome is a set of possible non-error results.
type outcome uint8

const (
	oTrue  outcome = 1 << iota
	oFalse         // the boolean false
	oNull          // null
	oValue         // any other value (an optional with a value included)
	oNone          // optional.none()
)

// aval is an abstract value: the results an expression may have in one
// world, and the sites whose failure it may be.
type aval struct {
	out  outcome
	errs siteSet
}

func (v aval) mayFail() bool   { return len(v.errs) > 0 }
func (v aval) onlyFails() bool { return v.out == 0 && v.mayFail() }
func (v aval) may(o outcome) bool {
	return v.out&o != 0
}

// truthy maps a value to the booleans it may be; non-bool values (dyn)
// may be either.
func (v aval) truthy() (t, f bool) {
	t, f = v.may(oTrue), v.may(oFalse)
	if v.may(oValue | oNull | oNone) {
		t, f = true, true
	}
	return t, f
}

// and is CEL's _&&_: false wins over errors, errors over true.
func and(a, b aval) aval {
	at, af := a.truthy()
	bt, bf := b.truthy()
	var r aval
	if af || bf {
		r.out |= oFalse
	}
	if at && bt {
		r.out |= oTrue
	}
	if a.mayFail() && (bt || b.mayFail()) {
		r.errs = r.errs.union(a.errs)
	}
	if b.mayFail() && (at || a.mayFail()) {
		r.errs = r.errs.union(b.errs)
	}
	return r
}

// or is CEL's _||_: true wins over errors, errors over false.
func or(a, b aval) aval {
	at, af := a.truthy()
	bt, bf := b.truthy()
	var r aval
	if at || bt {
		r.out |= oTrue
	}
	if af && bf {
		r.out |= oFalse
	}
	if a.mayFail() && (bf || b.mayFail()) {
		r.errs = r.errs.union(a.errs)
	}
	if b.mayFail() && (af || a.mayFail()) {
		r.errs = r.errs.union(b.errs)
	}
	return r
}

// world fixes the request shape and which tracked paths are present: bit
// atoms[key] of bits.
type world struct {
	shape RequestShape
	atoms map[string]int
	bits  uint64
}

// present says whether a tracked path is present; false if untracked.
func (w *world) present(key string) (present, tracked bool) {
	i, ok := w.atoms[key]
	if !ok {
		return false, false
	}
	return w.bits&(1<<i) != 0, true
}

func (w *world) null(root string) bool {
	switch root {
	case "object":
		return w.shape.Operation == "DELETE"
	case "oldObject":
		return w.shape.Operation == "CREATE" || w.shape.Operation == "CONNECT"
	case "namespaceObject":
		return true
	}
	return false
}

// program is one checked condition prepared for abstract evaluation.
type program struct {
	index int
	ast   *celast.AST
	expr  string
	root  celast.Expr
	// paths holds the canonical access path of every node that reads
	// through a variable (object.metadata.labels["app"] …).
	paths map[int64]accessPath
	// sites are the failing nodes, by node id and kind.
	sites map[siteID]*site
	atoms []string
	// comprehension variables in scope are unknown values
	locals map[string]bool
	// vars holds the webhook variable each identifier node refers to,
	// resolved with the comprehension scopes of the walk.
	vars map[int64]string
}

type siteID struct {
	id   int64
	kind HazardKind
}

// accessPath is a variable and the fields or keys read from it; k is its
// canonical key, built once.
type accessPath struct {
	root string
	segs []string
	k    string
}

func rootPath(root string) accessPath { return accessPath{root: root, k: root} }

func (p accessPath) key() string {
	if p.k == "" && p.root != "" {
		return p.root + "\x00" + strings.Join(p.segs, "\x00")
	}
	return p.k
}
func (p accessPath) last() string {
	if len(p.segs) == 0 {
		return ""
	}
	return p.segs[len(p.segs)-1]
}
func (p accessPath) child(seg string) accessPath {
	return accessPath{root: p.root, segs: append(slices.Clone(p.segs), seg), k: p.key() + "\x00" + seg}
}

func newProgram(index int, r Result) *program {
	p := &program{index: index, ast: r.AST, expr: r.Expression, root: r.AST.Expr(),
		paths: map[int64]accessPath{}, sites: map[siteID]*site{}, locals: map[string]bool{}, vars: map[int64]string{}}
	seen := map[string]bool{}
	addAtom := func(a accessPath) {
		if shapeFact(a) {
			return
		}
		if k := a.key(); !seen[k] {
			seen[k] = true
			p.atoms = append(p.atoms, k)
		}
	}
	p.walk(p.root, addAtom)
	return p
}

// variable returns the webhook variable an identifier refers to.
func (p *program) variable(e celast.Expr) string {
	if e.Kind() != celast.IdentKind {
		return ""
	}
	name := e.AsIdent()
	if p.locals[name] {
		return ""
	}
	if ref, ok := p.ast.ReferenceMap()[e.ID()]; ok && ref.Name != "" {
		return ref.Name
	}
	return name
}

// stringKey returns the literal string an index uses, if any.
func stringKey(e celast.Expr) (string, bool) {
	if e.Kind() != celast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().Value().(string)
	return s, ok
}

// keySeg is the path segment of an index key: literal keys are the key
// itself, so labels.app and labels["app"] are the same fact.
func keySeg(e celast.Expr) string {
	if s, ok := stringKey(e); ok {
		return s
	}
	return "[" + debug.ToDebugString(e) + "]"
}

// pathOf is the access path of e, or false when e does not read through a
// variable by plain selections and indexes.
func (p *program) pathOf(e celast.Expr) (accessPath, bool) {
	ap, ok := p.paths[e.ID()]
	return ap, ok
}

// isMapPath reports whether values at this path are maps with arbitrary
// keys, whose entries are read as fields (labels.app) or by index.
func isMapPath(a accessPath) bool {
	last := a.last()
	return (a.root == "object" || a.root == "oldObject") && len(a.segs) >= 2 && (last == "labels" || last == "annotations")
}

// optionalRequestField reports request fields that are absent, not empty,
// when unset (the request is converted with omitempty semantics).
func optionalRequestField(a accessPath) bool {
	if a.root != "request" {
		return false
	}
	switch strings.Join(a.segs, ".") {
	case "namespace", "subResource", "requestSubResource", "userInfo.uid", "userInfo.extra":
		return true
	}
	return false
}

// shapeFact reports request fields whose presence the request shape
// decides: subResource is present exactly for subresource requests,
// namespace exactly for namespaced ones.
func shapeFact(a accessPath) bool {
	if a.root != "request" || len(a.segs) != 1 {
		return false
	}
	switch a.segs[0] {
	case "subResource", "requestSubResource", "namespace":
		return true
	}
	return false
}

// tracked reports whether presence of the path is a fact worth
// enumerating: the maps and keys whose absence makes a read fail.
func tracked(a accessPath) bool {
	if len(a.segs) == 0 {
		return false
	}
	parent := accessPath{root: a.root, segs: a.segs[:len(a.segs)-1]} // key unused
	return isMapPath(a) || isMapPath(parent) || optionalRequestField(a) ||
		(optionalRequestField(parent) && parent.last() == "extra") ||
		strings.HasPrefix(a.last(), "[") || keyed(a)
}

// keyed marks paths created by a string-literal index (see walk).
func keyed(a accessPath) bool {
	return len(a.segs) > 0 && strings.HasPrefix(a.segs[len(a.segs)-1], "\x01")
}

// walk records access paths, failing sites and presence atoms.
func (p *program) walk(e celast.Expr, atom func(accessPath)) {
	switch e.Kind() {
	case celast.IdentKind:
		if v := p.variable(e); isRootVar(v) {
			p.paths[e.ID()] = rootPath(v)
			p.vars[e.ID()] = v
		}
	case celast.SelectKind:
		sel := e.AsSelect()
		p.walk(sel.Operand(), atom)
		base, ok := p.pathOf(sel.Operand())
		if !ok {
			return
		}
		ap := base.child(sel.FieldName())
		p.paths[e.ID()] = ap
		if tracked(ap) {
			atom(ap)
		}
		if !sel.IsTestOnly() && !p.optionalOperand(sel.Operand()) {
			p.addSites(e, base, ap)
		}
	case celast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			p.walk(call.Target(), atom)
		}
		for _, a := range call.Args() {
			p.walk(a, atom)
		}
		args := call.Args()
		switch call.FunctionName() {
		case operators.Index, operators.OptIndex, operators.OptSelect:
			base, ok := p.pathOf(args[0])
			if !ok {
				if !dataDerived(p, args[0]) {
					return
				}
				// Index into a computed map (…orValue({})['k']): its own root.
				base = rootPath("⟨" + debug.ToDebugString(args[0]) + "⟩")
				p.paths[args[0].ID()] = base
			}
			seg := keySeg(args[1])
			if _, lit := stringKey(args[1]); lit && call.FunctionName() != operators.OptSelect && !isMapPath(base) {
				seg = "\x01" + seg // a keyed read, not a field: always tracked
			}
			ap := base.child(seg)
			p.paths[e.ID()] = ap
			if call.FunctionName() == operators.Index && !isStringish(p, args[1]) {
				return // list indexes are not modeled
			}
			if tracked(ap) || call.FunctionName() == operators.Index {
				atom(ap)
			}
			if call.FunctionName() == operators.Index && !p.optionalOperand(args[0]) {
				p.addSites(e, base, ap)
			}
		case operators.In:
			if v := p.variable(args[1]); isRootVar(v) && v != "request" {
				// 'k' in object: no overload for null.
				p.addSites(e, rootPath(v), rootPath(v).child("\x02in"))
			}
			if m, ok := p.pathOf(args[1]); ok {
				if isStringish(p, args[0]) {
					ap := m.child(p.inSeg(m, args[0]))
					p.paths[e.ID()] = ap // the fact the test reads
					atom(ap)
				}
			}
		}
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		p.walk(c.IterRange(), atom)
		saved := p.saveLocals(c)
		p.walk(c.AccuInit(), atom)
		p.walk(c.LoopCondition(), atom)
		p.walk(c.LoopStep(), atom)
		p.walk(c.Result(), atom)
		p.locals = saved
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			p.walk(el, atom)
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			p.walk(me.Key(), atom)
			p.walk(me.Value(), atom)
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			p.walk(f.AsStructField().Value(), atom)
		}
	}
}

// inSeg is the segment 'k' in m tests: the same as m[k] or m.k.
func (p *program) inSeg(m accessPath, k celast.Expr) string {
	seg := keySeg(k)
	if _, lit := stringKey(k); lit && !isMapPath(m) {
		seg = "\x01" + seg
	}
	return seg
}

func (p *program) saveLocals(c celast.ComprehensionExpr) map[string]bool {
	saved := p.locals
	p.locals = maps.Clone(saved)
	for _, v := range []string{c.IterVar(), c.IterVar2(), c.AccuVar()} {
		if v != "" {
			p.locals[v] = true
		}
	}
	return saved
}

func isRootVar(v string) bool {
	switch v {
	case "object", "oldObject", "namespaceObject", "request":
		return true
	}
	return false
}

// dataDerived reports whether e reads a webhook variable (so indexing its
// result reads request data, not a literal).
func dataDerived(p *program, e celast.Expr) bool {
	found := false
	var visit func(celast.Expr)
	visit = func(x celast.Expr) {
		if found {
			return
		}
		switch x.Kind() {
		case celast.IdentKind:
			found = isRootVar(p.variable(x))
		case celast.SelectKind:
			visit(x.AsSelect().Operand())
		case celast.CallKind:
			c := x.AsCall()
			if c.IsMemberFunction() {
				visit(c.Target())
			}
			for _, a := range c.Args() {
				visit(a)
			}
		}
	}
	visit(e)
	return found
}

func isStringish(p *program, e celast.Expr) bool {
	t := p.ast.GetType(e.ID())
	return t == nil || t.Kind() == types.StringKind || t.Kind() == types.DynKind
}

// optionalOperand reports whether e has an optional type: selecting from it
// (object.metadata.?labels.app) yields none instead of failing.
func (p *program) optionalOperand(e celast.Expr) bool {
	t := p.ast.GetType(e.ID())
	return t != nil && t.Kind() == types.OpaqueKind && t.TypeName() == "optional_type"
}

// addSites registers how reading ap (from base) at node e can fail.
func (p *program) addSites(e celast.Expr, base, ap accessPath) {
	if len(base.segs) == 0 {
		switch base.root {
		case "object":
			p.site(e, NullObject, "object", "")
			if f := ap.last(); f == "metadata" || f == "spec" || f == "status" {
				p.site(e, OptionsObject, "object", "")
			}
		case "oldObject":
			p.site(e, NullOldObject, "oldObject", "")
		case "namespaceObject":
			p.site(e, NamespaceObject, "namespaceObject", "")
		}
	}
	if tracked(ap) {
		p.site(e, MissingKey, ap.key(), "")
	}
}

func (p *program) site(e celast.Expr, kind HazardKind, subject, missing string) {
	id := siteID{e.ID(), kind}
	if _, ok := p.sites[id]; ok {
		return
	}
	p.sites[id] = &site{prog: p, kind: kind, node: e, subject: subject, missing: missing}
}

// text renders a node for messages: unparsed from the AST, which is
// faithful to what was written up to spacing and quotes.
func (p *program) text(e celast.Expr) string {
	if s, err := parser.Unparse(e, p.ast.SourceInfo()); err == nil {
		return s
	}
	return debug.ToDebugString(e)
}

// offset is where the node's source starts: the leftmost offset of the
// node and its operands.
func (p *program) offset(e celast.Expr) int {
	best := -1
	var visit func(celast.Expr)
	visit = func(x celast.Expr) {
		if r, ok := p.ast.SourceInfo().GetOffsetRange(x.ID()); ok && (best < 0 || int(r.Start) < best) {
			best = int(r.Start)
		}
		switch x.Kind() {
		case celast.SelectKind:
			visit(x.AsSelect().Operand())
		case celast.CallKind:
			c := x.AsCall()
			if c.IsMemberFunction() {
				visit(c.Target())
			}
			for _, a := range c.Args() {
				visit(a)
			}
		}
	}
	visit(e)
	return max(best, 0)
}

// NamespaceObjectUse returns the first use of namespaceObject in a compiled
// condition. Webhooks never set it: reads fail (RuntimeHazards reports
// those), and the uses that do not fail (has(), == null, .?) are constant.
func NamespaceObjectUse(r Result) (string, bool) {
	if !r.OK() || r.AST == nil {
		return "", false
	}
	if v, ok := namespaceUseCache.Load(r.Expression); ok {
		use := v.(string)
		return use, use != ""
	}
	use := namespaceObjectUse(r)
	namespaceUseCache.Store(r.Expression, use)
	return use, use != ""
}

var namespaceUseCache sync.Map // expression text -> first use ("" if none)

func namespaceObjectUse(r Result) string {
	p := newProgram(0, r)
	var found celast.Expr
	var visit func(celast.Expr, celast.Expr)
	// visit remembers the outermost expression that reads namespaceObject,
	// so the message shows has(namespaceObject.metadata), not the ident.
	visit = func(e, outer celast.Expr) {
		if found != nil {
			return
		}
		switch e.Kind() {
		case celast.IdentKind:
			if p.vars[e.ID()] == "namespaceObject" {
				found = outer
			}
		case celast.SelectKind:
			visit(e.AsSelect().Operand(), outer)
		case celast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				visit(c.Target(), c.Target())
			}
			for _, a := range c.Args() {
				if c.FunctionName() == operators.OptSelect || c.FunctionName() == operators.Equals || c.FunctionName() == operators.NotEquals {
					visit(a, e)
				} else {
					visit(a, a)
				}
			}
		case celast.ComprehensionKind:
			c := e.AsComprehension()
			for _, x := range []celast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
				visit(x, x)
			}
		case celast.ListKind:
			for _, x := range e.AsList().Elements() {
				visit(x, x)
			}
		case celast.MapKind:
			for _, en := range e.AsMap().Entries() {
				visit(en.AsMapEntry().Key(), en.AsMapEntry().Key())
				visit(en.AsMapEntry().Value(), en.AsMapEntry().Value())
			}
		}
	}
	visit(p.root, p.root)
	if found == nil {
		return ""
	}
	return p.text(found)
}

// errorMeansFalse reports whether node sits in a positive position of the
// condition: reached from the root through no negation (!, !=), not
// through a ternary's condition and not inside a comprehension, so a
// guarded read would make it false.
func (p *program) errorMeansFalse(node celast.Expr) bool {
	found, positive := polarity(p.root, node.ID(), true)
	return found && positive
}

// polarity finds node id under e and says whether its position is
// positive (see errorMeansFalse).
func polarity(e celast.Expr, id int64, positive bool) (found, pos bool) {
	if e.ID() == id {
		return true, positive
	}
	var children []celast.Expr
	flip := false
	switch e.Kind() {
	case celast.SelectKind:
		children = []celast.Expr{e.AsSelect().Operand()}
	case celast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			children = append(children, call.Target())
		}
		children = append(children, call.Args()...)
		switch call.FunctionName() {
		case operators.LogicalNot, operators.NotEquals:
			flip = true
		case operators.Conditional:
			if f, _ := polarity(call.Args()[0], id, positive); f {
				return true, false
			}
			children = call.Args()[1:]
		}
	case celast.ComprehensionKind:
		// An absent range may mean true (all) or false (exists): unknown.
		c := e.AsComprehension()
		for _, part := range []celast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			if f, _ := polarity(part, id, positive); f {
				return true, false
			}
		}
		return false, false
	case celast.ListKind:
		children = e.AsList().Elements()
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			children = append(children, me.Key(), me.Value())
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			children = append(children, f.AsStructField().Value())
		}
	}
	for _, c := range children {
		if f, pos := polarity(c, id, positive != flip); f {
			return true, pos
		}
	}
	return false, false
}
