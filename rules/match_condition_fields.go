package rules

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/celcheck"
	"github.com/webhooklint/webhooklint/internal/openapi"
)

func init() {
	register(&Rule{
		Name:     "match-condition-fields",
		Summary:  "matchConditions that read fields the matched resources do not have, or compare values of different types",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server compiles webhook matchConditions with `object` and `oldObject` of type `dyn`, so it " +
				"accepts `object.spec.containers` in a webhook for deployments, where the field is " +
				"`spec.template.spec.containers`. At runtime the read fails with `no such key` on every request, and " +
				"the error goes to the failurePolicy: with `Fail` every matching request is rejected, with `Ignore` " +
				"the webhook is silently skipped. This rule types `object` and `oldObject` with the schema of each " +
				"resource the webhook's rules match, the way the API server type-checks ValidatingAdmissionPolicies: " +
				"the OpenAPI v3 schemas served by a Kubernetes 1.37 API server (embedded in webhooklint), and for " +
				"custom resources the CustomResourceDefinitions in the same input (the served version's " +
				"openAPIV3Schema, converted to CEL types by the API server's own code). It reports fields no " +
				"matched type has (a read fails, `has()` is always false, `.?` is always empty), `==` between " +
				"values of different types (always false: CEL compares across types without error) and operators " +
				"applied to types they do not take (`no such overload`). The finding's column points at the part " +
				"of the expression that fails (\"fails\" is a `no such key` or `no such overload` error at runtime). " +
				"When only some matched types lack a field, the finding names the resources they are for. What a schema does not pin down (`x-kubernetes-preserve-unknown-" +
				"fields`, `int-or-string`, untyped fields) is `dyn` and never reported; resources without a known " +
				"schema (other custom resources, aggregated APIs, connect options such as PodExecOptions) are not " +
				"checked. The object of a subresource request is what the server sends: the parent object for " +
				"`status`, `Scale` for `scale`, `Eviction` for `pods/eviction`. Branches the request decides " +
				"(`request.resource.resource == 'pods' && …`, `request.kind.kind`) are checked only for the " +
				"resources they can run for, and reads on DELETE (null object) and CREATE (null oldObject) are " +
				"left to match-condition-runtime. Each kind of claim is checked against the API server's matcher in " +
				"webhooklint's tests and on a real API server (`hack/verify-match-condition-fields.sh`).",
			Fix: "Use the field path of the matched kind (`kubectl explain deployment.spec --api-version=apps/v1`), " +
				"compare fields with values of their type (`object.spec.replicas == 3`, not `'3'`), and when a " +
				"webhook matches several kinds, dispatch on `request.resource.resource` or `request.kind.kind` " +
				"before reading kind-specific fields.",
			Sources: []string{
				"https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#matching-requests-matchconditions",
				"https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#type-checking",
				"https://github.com/kubernetes/kubernetes/blob/v1.37.2/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go",
				"https://github.com/kubernetes/kubernetes/blob/v1.37.2/staging/src/k8s.io/apiserver/pkg/cel/common/schemas.go",
				"https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema",
			},
		},
		Check: checkMatchConditionFields,
	})
}

// objectTarget is one (sub)resource in one version that a webhook's rules
// match, with the type of the object its requests carry.
type objectTarget struct {
	resource string               // pods, deployments.apps/status (as kubectl names them)
	typeName string               // Deployment (apps/v1)
	typ      *celcheck.ObjectType // typed for the webhook's conditions only
	full     func() *celcheck.ObjectType
	ops      []admissionv1.OperationType
	request  map[string]string // request fields this target fixes (request.resource.resource…)
}

func checkMatchConditionFields(p *Pass) {
	if !hasMatchConditions(p.Config) {
		return // read no schemas and build no CEL environment for nothing
	}
	// The compiler first: it builds its environment on another core while
	// this one reads the schemas' index and starts parsing.
	compiler := matchConditionCompiler(p.Settings)
	cat, err := openapi.Builtin()
	if err != nil {
		return // the embedded data is broken: a build problem, caught by the package's tests
	}
	if p.Input != nil && len(p.Input.CRDs) > 0 {
		crdTypes := customResourceTypes(p.Input, cat, compiler)
		for i := range p.Config.Webhooks {
			w := &p.Config.Webhooks[i]
			emitConditionFieldFindings(p, w, conditionFieldFindings(w, p.Input, cat, crdTypes, compiler))
		}
		return
	}
	// Without CRDs a webhook's findings follow from its rules and
	// conditions alone, which a folder of configurations repeats: each
	// distinct webhook is type-checked once per process.
	noCRDs := customResourceTypes(nil, cat, compiler)
	k := borrowKey()
	defer keyBuffers.Put(k)
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if len(w.MatchConditions) == 0 {
			continue
		}
		*k = (*k)[:0]
		k.number(compiler.KubeMinor())
		k.rules(w.Rules)
		for _, mc := range w.MatchConditions {
			k.str(mc.Expression)
		}
		emitConditionFieldFindings(p, w, noCRDConditionFindings.get(*k, func() []conditionFieldFinding {
			return conditionFieldFindings(w, p.Input, cat, noCRDs, compiler)
		}))
	}
}

// noCRDConditionFindings holds the findings of webhooks in units without
// CRDs, by the webhook's rules and conditions; callers must not modify them.
var noCRDConditionFindings = contentMemo[[]conditionFieldFinding]{limit: 4096}

// conditionFieldFinding is a finding on a webhook's condition, without
// the webhook's path, which the same webhook written elsewhere differs by.
type conditionFieldFinding struct {
	condition int
	message   string
	within    ValueSpan
}

func emitConditionFieldFindings(p *Pass, w *Webhook, fs []conditionFieldFinding) {
	for _, f := range fs {
		within := f.within
		p.Emit(Finding{Severity: p.Rule().Severity, Message: f.message, Within: &within,
			Path: PathString(w.FieldPath("matchConditions").Index(f.condition).Child("expression"))})
	}
}

// conditionFieldFindings type-checks a webhook's conditions against the
// resources its rules match.
func conditionFieldFindings(w *Webhook, in *Inventory, cat *openapi.Catalog, crdTypes crdTypes, compiler *celcheck.Compiler) []conditionFieldFinding {
	if len(w.MatchConditions) == 0 {
		return nil
	}
	results := make([]celcheck.Result, len(w.MatchConditions))
	parsed := make([]ast.Expr, len(w.MatchConditions))
	var checked []*ast.AST
	for j, mc := range w.MatchConditions {
		if expr := strings.TrimSpace(mc.Expression); expr != "" {
			results[j] = compiler.Compile(expr)
			if results[j].OK() {
				parsed[j] = results[j].AST.Expr()
				checked = append(checked, results[j].AST)
			}
		}
	}
	if len(checked) == 0 {
		return nil // nothing to type-check: match-conditions reports why
	}
	targets := sharedObjectTargets(w, in, cat, crdTypes, celcheck.NamesOf(checked...))
	if len(targets) == 0 {
		return nil
	}
	// A target for which some condition is certainly false never gets
	// past the matcher, whatever the other conditions do.
	live := targets[:0:0]
	for _, t := range targets {
		if !slices.ContainsFunc(parsed, func(e ast.Expr) bool { return e != nil && decide(e, t.request) == decidedFalse }) {
			live = append(live, t)
		}
	}
	var out []conditionFieldFinding
	for j := range w.MatchConditions {
		if parsed[j] == nil {
			continue // empty, or rejected by the server: match-conditions reports it
		}
		out = typeIssues(out, w, j, results[j], live, compiler)
	}
	return out
}

// issueKey identifies one type issue of one condition across targets.
type issueKey struct {
	kind                   celcheck.TypeIssueKind
	offset                 int
	expr, field, op, types string
}

// typeIssues appends to out the findings on the webhook's j-th condition.
func typeIssues(out []conditionFieldFinding, w *Webhook, j int, r celcheck.Result, targets []objectTarget, compiler *celcheck.Compiler) []conditionFieldFinding {
	type group struct {
		issue   celcheck.TypeIssue
		failing []objectTarget
	}
	groups := map[issueKey]*group{}
	hidden := make([]map[int64]bool, len(targets))
	for i, t := range targets {
		for _, is := range compiler.CheckTyped(r, t.typ) {
			if hidden[i] == nil {
				hidden[i] = map[int64]bool{}
				markUndecided(r.AST.Expr(), t.request, hidden[i])
			}
			if !readable(is.Root, t.ops) || hidden[i][is.ExprID] {
				continue
			}
			k := issueKey{is.Kind, is.Offset, is.Expr, is.Field, is.Operator, is.Types}
			g := groups[k]
			if g == nil {
				g = &group{issue: is}
				groups[k] = g
			}
			g.failing = append(g.failing, t)
		}
	}
	keys := make([]issueKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	// In the order they are written: by where the finding points.
	at := func(k issueKey) int {
		if is := groups[k].issue; is.FieldOffset >= 0 {
			return is.FieldOffset
		}
		return k.offset
	}
	slices.SortFunc(keys, func(a, b issueKey) int {
		if d := at(a) - at(b); d != 0 {
			return d
		}
		return strings.Compare(a.expr+"|"+a.field+"|"+a.op, b.expr+"|"+b.field+"|"+b.op)
	})
	// One cause, one finding: several reads of one missing field (has(a.b)
	// && a.b.c…) are reported once, at the first.
	reported := map[string]bool{}
	for _, k := range keys {
		g := groups[k]
		if c := missingFieldCause(g.issue, g.failing); c != "" {
			if reported[c] {
				continue
			}
			reported[c] = true
		}
		// The part is reached for a target whose object it reads and whose
		// request fields do not route around it.
		reached := 0
		for i, t := range targets {
			if hidden[i] == nil {
				hidden[i] = map[int64]bool{}
				markUndecided(r.AST.Expr(), t.request, hidden[i])
			}
			if readable(g.issue.Root, t.ops) && !hidden[i][g.issue.ExprID] {
				reached++
			}
		}
		out = append(out, conditionFieldFinding{condition: j,
			message: typeIssueMessage(g.issue, g.failing, len(g.failing) >= reached),
			within:  *issueSpan(w.MatchConditions[j].Expression, r.Expression, g.issue)})
	}
	return out
}

// missingFieldCause names the missing field an issue reads, whichever way
// (plain, has(), .?), for the resources it fails for; "" for other issues.
func missingFieldCause(is celcheck.TypeIssue, failing []objectTarget) string {
	switch is.Kind {
	case celcheck.NoSuchField, celcheck.NoSuchFieldTested, celcheck.NoSuchFieldOptional:
	default:
		return ""
	}
	subject := strings.ReplaceAll(is.Expr, ".?", ".")
	if inner, ok := strings.CutPrefix(subject, "has("); ok {
		subject = strings.TrimSuffix(inner, ")")
	}
	return subject + "|" + resourceNames(failing, 3)
}

// readable reports whether a chain rooted at root reads an object the
// requests carry: object is null on DELETE and oldObject on CREATE and
// CONNECT, which match-condition-runtime reports on its own.
func readable(root string, ops []admissionv1.OperationType) bool {
	switch root {
	case "object":
		return slices.ContainsFunc(ops, func(op admissionv1.OperationType) bool { return op != admissionv1.Delete })
	case "oldObject":
		return slices.ContainsFunc(ops, func(op admissionv1.OperationType) bool {
			return op == admissionv1.Update || op == admissionv1.Delete
		})
	}
	return true
}

// typeIssueMessage words an issue. The finding's column points at the
// part of the expression that fails, so the message names the field or
// operator, not the expression.
func typeIssueMessage(is celcheck.TypeIssue, failing []objectTarget, everywhere bool) string {
	where := ""
	if !everywhere {
		where = " for " + resourceNames(failing, 1)
	}
	types := typeNames(failing)
	if !everywhere && strings.Contains(types, " more") {
		// Many kinds: the resources already name them.
		types = "their kinds"
	}
	// The resources a finding is limited to name their kinds.
	noField := types + " " + have(types) + " no field"
	if !everywhere {
		noField = "no field"
	}
	var what string
	switch is.Kind {
	case celcheck.NoSuchField:
		what = fmt.Sprintf("fails%s: %s %q", where, noField, is.Field)
	case celcheck.NoSuchFieldTested:
		what = fmt.Sprintf("is always false%s: %s %q", where, noField, is.Field)
	case celcheck.NoSuchFieldOptional:
		what = fmt.Sprintf("is always empty%s: %s %q", where, noField, is.Field)
	case celcheck.NoFields:
		what = fmt.Sprintf("fails%s: in %s it selects %q on a %s, which has no fields", where, types, is.Field, is.Types)
	case celcheck.NeverEqual:
		always := "false"
		if is.Operator == operators.NotEquals {
			always = "true"
		}
		what = fmt.Sprintf("is always %s%s: it compares %s in %s",
			always, where, strings.Replace(argumentTypes(is.Types), ", ", " with ", 1), types)
	case celcheck.NoOverload:
		what = fmt.Sprintf("fails%s: in %s %s does not take %s",
			where, types, operatorName(is.Operator), argumentTypes(is.Types))
	}
	suggestion := suggestPath(is, failing)
	var fix string
	switch {
	case !everywhere && is.Kind != celcheck.NeverEqual && is.Kind != celcheck.NoOverload:
		fix = "check `request.resource.resource` first"
	case suggestion != "":
		fix = fmt.Sprintf("did you mean `%s`?", suggestion)
	case is.Kind == celcheck.NeverEqual || is.Kind == celcheck.NoOverload:
		fix = "use a value of the field's type"
	default:
		fix = "fix the field path"
	}
	return what + "; " + fix
}

// have agrees with a list of kinds.
func have(kinds string) string {
	if strings.Contains(kinds, ", ") || strings.HasPrefix(kinds, "their ") {
		return "have"
	}
	return "has"
}

// argumentTypes renders a checker signature: "(int, string)" as
// "int, string", "int.(string)" as "int with argument string".
func argumentTypes(sig string) string {
	if target, args, ok := strings.Cut(sig, ".("); ok && !strings.HasPrefix(sig, "(") {
		args = strings.TrimSuffix(args, ")")
		if args == "" {
			return target
		}
		return target + " with argument " + args
	}
	return strings.TrimSuffix(strings.TrimPrefix(sig, "("), ")")
}

func operatorName(op string) string {
	if d, ok := operators.FindReverse(op); ok && d != "" {
		return "`" + d + "`"
	}
	return op + "()"
}

// typeNames lists the distinct types of targets: "Deployment (apps/v1)".
func typeNames(ts []objectTarget) string {
	var names []string
	for _, t := range ts {
		if !slices.Contains(names, t.typeName) {
			names = append(names, t.typeName)
		}
	}
	return joinNames(names, 3)
}

func resourceNames(ts []objectTarget, limit int) string {
	var names []string
	for _, t := range ts {
		if !slices.Contains(names, t.resource) {
			names = append(names, t.resource)
		}
	}
	return joinNames(names, limit)
}

func joinNames(names []string, limit int) string {
	slices.Sort(names)
	if len(names) > limit {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:limit], ", "), len(names)-limit)
	}
	return strings.Join(names, ", ")
}

// suggestPath proposes, for a missing field read from object or oldObject,
// the shortest path in the failing type that ends in that field, if all
// failing targets agree on it.
func suggestPath(is celcheck.TypeIssue, failing []objectTarget) string {
	if is.Field == "" || (is.Root != "object" && is.Root != "oldObject") {
		return ""
	}
	switch is.Kind {
	case celcheck.NoSuchField, celcheck.NoSuchFieldTested, celcheck.NoSuchFieldOptional:
	default:
		return ""
	}
	var found string
	for _, t := range failing {
		p := t.full().FieldPath(is.Field)
		if p == "" || (found != "" && p != found) {
			return ""
		}
		found = p
	}
	if found == "" {
		return ""
	}
	return is.Root + "." + found
}

// issueSpan locates the issue in the YAML value: expr is the trimmed
// expression the offsets refer to, value the string as written.
func issueSpan(value, expr string, is celcheck.TypeIssue) *ValueSpan {
	lead := len([]rune(value)) - len([]rune(strings.TrimLeft(value, " \t\n\r\v\f")))
	if strings.TrimSpace(value) != expr {
		lead = 0
	}
	from := is.Offset
	to := from + len([]rune(is.Expr))
	if is.FieldOffset >= 0 {
		from, to = is.FieldOffset, is.FieldOffset+len([]rune(is.Field))
	}
	return SpanOf(value, lead+from, lead+to)
}

var builtinTypes sync.Map // openapi.GVK -> *celcheck.ObjectType (nil: no schema)

// builtinType is the whole CEL type of a built-in kind, built once per
// process, for what needs all of it (suggestPath).
func builtinType(cat *openapi.Catalog, gvk openapi.GVK) *celcheck.ObjectType {
	if v, ok := builtinTypes.Load(gvk); ok {
		return v.(*celcheck.ObjectType)
	}
	var t *celcheck.ObjectType
	if s, err := cat.ResolveSchema(schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}); err == nil {
		meta, _ := cat.ObjectMeta()
		t = celcheck.NewObjectType(gvk.Kind, &celopenapi.Schema{Schema: s}, meta)
	}
	v, _ := builtinTypes.LoadOrStore(gvk, t)
	return v.(*celcheck.ObjectType)
}

// prunedType is the type of a built-in kind for the field names that the
// conditions seen so far read (celcheck.NewObjectTypeFor): a condition on a
// pod's metadata then neither decodes nor types the PodSpec.
type prunedType struct {
	current atomic.Pointer[prunedVersion] // read without the lock
	mu      sync.Mutex                    // held to build a new version
	built   int                           // versions built, under mu
}

// prunedVersion is one build of a kind's type, never changed.
type prunedVersion struct {
	names *celcheck.FieldNames // nil: every name (the whole type)
	typ   *celcheck.ObjectType // nil: the kind has no schema
}

// maxPrunedBuilds bounds the rebuilds of one kind's type as new names come
// in; past it the kind gets its whole type, which covers every name.
const maxPrunedBuilds = 4

var prunedTypes sync.Map // openapi.GVK -> *prunedType

// builtinTypeFor is the type of a built-in kind for conditions that read
// fields by names. It types at least those names, and maybe more: checking
// gives the same issues for any type that keeps the names of the
// expression (TestPrunedTypesOfEveryKind), so which conditions came first,
// on which worker, changes nothing but the cost.
func builtinTypeFor(cat *openapi.Catalog, gvk openapi.GVK, names *celcheck.FieldNames) *celcheck.ObjectType {
	v, _ := prunedTypes.LoadOrStore(gvk, &prunedType{})
	e := v.(*prunedType)
	if cur := e.current.Load(); cur != nil && cur.names.Covers(names) {
		return cur.typ
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := e.current.Load()
	switch {
	case cur != nil && cur.names.Covers(names):
		return cur.typ // built by another worker meanwhile
	case cur != nil:
		names = cur.names.Union(names)
	}
	if e.built >= maxPrunedBuilds {
		names = nil
	}
	e.built++
	next := &prunedVersion{names: names}
	if names == nil {
		next.typ = builtinType(cat, gvk)
	} else {
		next.typ = prunedBuiltinType(cat, gvk, names)
	}
	e.current.Store(next)
	return next.typ
}

// prunedBuiltinType builds the type of a built-in kind for names.
func prunedBuiltinType(cat *openapi.Catalog, gvk openapi.GVK, names *celcheck.FieldNames) *celcheck.ObjectType {
	s, err := cat.ResolvePruned(schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, names.Keeps)
	if err != nil {
		return nil
	}
	meta, _ := cat.ObjectMetaPruned(names.Keeps)
	return celcheck.NewObjectTypeFor(gvk.Kind, &celopenapi.Schema{Schema: s}, meta, names)
}

// crdTypeKey names a custom resource version's type within one input.
type crdTypeKey struct{ group, version, plural string }

// crdTypes gives the type of a custom resource version of the input for
// conditions that read fields by names (nil: all), or nil when its CRD
// gives no schema.
type crdTypes func(k crdTypeKey, names *celcheck.FieldNames) *celcheck.ObjectType

type crdVersionsKey struct{}

// crdNamesKey is the Derived key of a custom resource version's type for
// a set of field names.
type crdNamesKey struct {
	crdTypeKey
	names string // celcheck.FieldNames.Key
}

// unitFieldNames are the names the conditions of a unit's webhooks read.
type unitFieldNames struct {
	names *celcheck.FieldNames
	key   string
}

// crdVersion is the CRD and served version a crdTypeKey names.
type crdVersion struct {
	crd     *apiextensionsv1.CustomResourceDefinition
	version string
}

// customResourceTypes gives the types of the custom resources the input's
// CustomResourceDefinitions define, each built once per input, when a
// webhook's rules first target it: a unit of large CRDs whose webhooks
// match a few of them pays for those few. The type is built for the field
// names that the conditions of all the unit's webhooks read, as built-in
// kinds are for names (builtinTypeFor: checking gives the same issues for
// any type that keeps an expression's names): a webhook on every resource
// (apiGroups ["*"]) with a condition on the metadata then types no CRD's
// spec, and each schema is converted once, not kept.
func customResourceTypes(in *Inventory, cat *openapi.Catalog, compiler *celcheck.Compiler) crdTypes {
	if in == nil || len(in.CRDs) == 0 {
		return func(crdTypeKey, *celcheck.FieldNames) *celcheck.ObjectType { return nil }
	}
	versions := in.Derived(crdVersionsKey{}, func() any {
		out := map[crdTypeKey]crdVersion{}
		for _, crd := range in.CRDs {
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					continue
				}
				k := crdTypeKey{crd.Spec.Group, v.Name, crd.Spec.Names.Plural}
				if _, dup := out[k]; !dup { // the first CRD of the input defines it
					out[k] = crdVersion{crd, v.Name}
				}
			}
		}
		return out
	}).(map[crdTypeKey]crdVersion)
	type unitNamesKey struct{ compiler *celcheck.Compiler }
	unitNames := in.Derived(unitNamesKey{compiler}, func() any {
		var checked []*ast.AST
		for _, c := range in.Configs {
			for i := range c.Webhooks {
				for _, mc := range c.Webhooks[i].MatchConditions {
					if expr := strings.TrimSpace(mc.Expression); expr != "" {
						if r := compiler.Compile(expr); r.OK() {
							checked = append(checked, r.AST)
						}
					}
				}
			}
		}
		names := celcheck.NamesOf(checked...)
		return unitFieldNames{names, names.Key()}
	}).(unitFieldNames)
	return func(k crdTypeKey, names *celcheck.FieldNames) *celcheck.ObjectType {
		cv, ok := versions[k]
		if !ok {
			return nil
		}
		key := crdNamesKey{crdTypeKey: k}
		if names != nil && unitNames.names.Covers(names) {
			names, key.names = unitNames.names, unitNames.key
		} else {
			key.names = names.Key() // all names, or a configuration not of the unit's list
		}
		return in.Derived(key, func() any {
			s, ok := openapi.CRDVersionSchema(cv.crd, cv.version)
			if !ok {
				return (*celcheck.ObjectType)(nil)
			}
			meta, _ := cat.ObjectMeta()
			return celcheck.NewObjectTypeFor(cv.crd.Spec.Names.Kind, s, meta, names)
		}).(*celcheck.ObjectType)
	}
}

// objectTargets lists what the webhook's rules match, with types; targets
// without a known schema are left out (nothing is said about them).
func objectTargets(w *Webhook, in *Inventory, cat *openapi.Catalog, crds crdTypes,
	names *celcheck.FieldNames) []objectTarget {
	var out []objectTarget
	seen := map[string]int{}
	add := func(t objectTarget) {
		if t.typ == nil || len(t.ops) == 0 {
			return
		}
		k := t.resource + "|" + t.typeName
		if i, ok := seen[k]; ok {
			for _, op := range t.ops {
				if !slices.Contains(out[i].ops, op) {
					out[i].ops = append(out[i].ops, op)
				}
			}
			return
		}
		seen[k] = len(out)
		out = append(out, t)
	}
	for _, r := range w.Rules {
		targets := ExpandRule(r)
		for _, res := range targets.Builtin {
			for _, v := range ruleVersions(r, cat.Versions(res.Group, res.Resource, res.Subresource)) {
				gvk, ok := cat.ObjectKind(res.Group, v, res.Resource, res.Subresource)
				if !ok {
					continue
				}
				t := newTarget(res.Group, v, res.Resource, res.Subresource, gvk, builtinTypeFor(cat, gvk, names), res.Operations)
				t.full = func() *celcheck.ObjectType { return builtinType(cat, gvk) }
				add(t)
			}
		}
		if targets.Others && in != nil {
			for _, t := range customResourcesMatched(r, in, cat, crds, names) {
				add(t)
			}
		}
	}
	return out
}

// sharedObjectTargets is objectTargets, shared by the whole process for
// units that declare no CRD: the targets then follow from the webhook's
// rules and the conditions' field names alone, and a folder of loose
// files repeats both. Callers must not modify the result.
func sharedObjectTargets(w *Webhook, in *Inventory, cat *openapi.Catalog, crds crdTypes,
	names *celcheck.FieldNames) []objectTarget {
	if in != nil && len(in.CRDs) > 0 {
		return objectTargets(w, in, cat, crds, names)
	}
	k := keyBuilder(names.Key() + "|")
	k.rules(w.Rules)
	key := string(k)
	return noCRDTargets.get(key, func() any { return objectTargets(w, in, cat, crds, names) }).([]objectTarget)
}

// noCRDTargets holds sharedObjectTargets' results; one can be hundreds of
// targets, so few are kept.
var noCRDTargets = boundedMemo{limit: 256}

func newTarget(group, version, resource, sub string, gvk openapi.GVK, typ *celcheck.ObjectType, ops []admissionv1.OperationType) objectTarget {
	name := resource
	if group != "" {
		name += "." + group
	}
	if sub != "" {
		name += "/" + sub
	}
	gv := gvk.Version
	if gvk.Group != "" {
		gv = gvk.Group + "/" + gvk.Version
	}
	req := map[string]string{
		"request.resource.group": group, "request.resource.version": version, "request.resource.resource": resource,
		"request.kind.group": gvk.Group, "request.kind.version": gvk.Version, "request.kind.kind": gvk.Kind,
		// The object's own type fields, which conditions also dispatch on.
		"object.apiVersion": gv, "object.kind": gvk.Kind, "oldObject.apiVersion": gv, "oldObject.kind": gvk.Kind,
	}
	if sub != "" {
		req["request.subResource"] = sub
	}
	if len(ops) == 1 {
		req["request.operation"] = string(ops[0])
	}
	return objectTarget{resource: name, typeName: fmt.Sprintf("%s (%s)", gvk.Kind, gv), typ: typ,
		full: func() *celcheck.ObjectType { return typ }, ops: ops, request: req}
}

// ruleVersions are the served versions a rule's apiVersions select. With
// matchPolicy Equivalent a request in another version is converted to one
// the rule names, so the object always has a version the rule names.
func ruleVersions(r admissionv1.RuleWithOperations, served []string) []string {
	if slices.Contains(r.APIVersions, "*") {
		return served
	}
	var out []string
	for _, v := range served {
		if slices.Contains(r.APIVersions, v) {
			out = append(out, v)
		}
	}
	return out
}

var crdOperations = []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete}

// customResourcesMatched lists the custom resources of the input's CRDs
// that rule r matches: the resource itself, and its status and scale
// subresources when enabled (scale requests carry an autoscaling/v1 Scale).
func customResourcesMatched(r admissionv1.RuleWithOperations, in *Inventory, cat *openapi.Catalog,
	crds crdTypes, names *celcheck.FieldNames) []objectTarget {
	var out []objectTarget
	scope := EffectiveScope(r.Rule)
	for _, crd := range in.CRDs {
		group, plural := crd.Spec.Group, crd.Spec.Names.Plural
		if !ruleHasGroup(r.APIGroups, group) || IsBuiltinGroup(group) {
			continue
		}
		namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
		if (scope == admissionv1.NamespacedScope && !namespaced) || (scope == admissionv1.ClusterScope && namespaced) {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served || (!slices.Contains(r.APIVersions, "*") && !slices.Contains(r.APIVersions, v.Name)) {
				continue
			}
			subs := []string{""}
			if v.Subresources != nil && v.Subresources.Status != nil {
				subs = append(subs, "status")
			}
			if v.Subresources != nil && v.Subresources.Scale != nil {
				subs = append(subs, "scale")
			}
			for _, sub := range subs {
				if !ruleHasResource(r.Resources, plural, sub) {
					continue
				}
				ops := ruleOperationsOn(r.Operations, crdOperations)
				if sub != "" {
					ops = ruleOperationsOn(r.Operations, []admissionv1.OperationType{admissionv1.Update})
				}
				if sub != "scale" {
					gvk := openapi.GVK{Group: group, Version: v.Name, Kind: crd.Spec.Names.Kind}
					k := crdTypeKey{group, v.Name, plural}
					t := newTarget(group, v.Name, plural, sub, gvk, crds(k, names), ops)
					t.full = func() *celcheck.ObjectType { return crds(k, nil) }
					out = append(out, t)
					continue
				}
				scale := openapi.GVK{Group: "autoscaling", Version: "v1", Kind: "Scale"}
				t := newTarget(group, v.Name, plural, sub, scale, builtinTypeFor(cat, scale, names), ops)
				t.full = func() *celcheck.ObjectType { return builtinType(cat, scale) }
				out = append(out, t)
			}
		}
	}
	return out
}

// decision is a three-valued outcome.
type decision int

const (
	undecided decision = iota
	decidedFalse
	decidedTrue
)

// decide evaluates the parts of a condition a target fixes: request
// fields from the target's facts, string literals and lists of them,
// combined with !, &&, ||, ==, != and in.
func decide(e ast.Expr, facts map[string]string) decision {
	v := evalFacts(e, facts)
	if v.isBool {
		if v.b {
			return decidedTrue
		}
		return decidedFalse
	}
	return undecided
}

func evalFacts(e ast.Expr, facts map[string]string) value {
	return partial{field: func(x ast.Expr) value {
		if s, ok := requestFact(x, facts); ok {
			return value{isString: true, s: s}
		}
		return unknown
	}}.eval(e)
}

// requestFact resolves a selection such as request.kind.kind or
// object.kind from facts.
func requestFact(e ast.Expr, facts map[string]string) (string, bool) {
	var path []string
	for e.Kind() == ast.SelectKind {
		sel := e.AsSelect()
		if sel.IsTestOnly() {
			return "", false
		}
		path = append([]string{sel.FieldName()}, path...)
		e = sel.Operand()
	}
	if e.Kind() != ast.IdentKind {
		return "", false
	}
	s, ok := facts[e.AsIdent()+"."+strings.Join(path, ".")]
	return s, ok
}

// markUndecided records in hidden the nodes whose errors cannot matter for
// a target: the side of && the other side makes false, the side of || the
// other makes true (CEL's && and || absorb errors), the branch of ?: the
// condition does not take.
func markUndecided(e ast.Expr, facts map[string]string, hidden map[int64]bool) {
	var hide func(ast.Expr)
	hide = func(x ast.Expr) {
		hidden[x.ID()] = true
		forChildren(x, hide)
	}
	if e.Kind() == ast.CallKind {
		c := e.AsCall()
		args := c.Args()
		switch c.FunctionName() {
		case operators.LogicalAnd, operators.LogicalOr:
			absorbing := decidedFalse
			if c.FunctionName() == operators.LogicalOr {
				absorbing = decidedTrue
			}
			l, r := decide(args[0], facts), decide(args[1], facts)
			if l == absorbing {
				hide(args[1])
			}
			if r == absorbing {
				hide(args[0])
			}
		case operators.Conditional:
			switch decide(args[0], facts) {
			case decidedTrue:
				hide(args[2])
			case decidedFalse:
				hide(args[1])
			}
		}
	}
	forChildren(e, func(x ast.Expr) {
		if !hidden[x.ID()] {
			markUndecided(x, facts, hidden)
		}
	})
}

func forChildren(e ast.Expr, fn func(ast.Expr)) {
	switch e.Kind() {
	case ast.SelectKind:
		fn(e.AsSelect().Operand())
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			fn(c.Target())
		}
		for _, a := range c.Args() {
			fn(a)
		}
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			fn(x)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			m := en.AsMapEntry()
			fn(m.Key())
			fn(m.Value())
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			fn(f.AsStructField().Value())
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			fn(x)
		}
	}
}
