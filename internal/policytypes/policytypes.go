// Package policytypes runs the API server's type checking of
// ValidatingAdmissionPolicies (what the controller manager writes into
// status.typeChecking). The CLI and the cluster mode hand it to the rules
// through rules.Settings; the go vet analyzer does without it.
//
// It is validating.TypeChecker (k8s.io/apiserver's
// admission/plugin/policy/validating, typechecking.go) step for step, on
// the same compiler, environment and schema types, without importing that
// package: it is the admission plugin's, and links client-go's informers,
// listers and fake clientsets, gRPC and OpenTelemetry, whose 81 package
// inits cost every run of webhooklint about 4 ms before main. The test
// checks that Check gives what validating.TypeChecker gives on every
// policy of the repository's fixtures and corpora.
package policytypes

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Schemas resolves the kinds a policy matches and its paramKind to their
// resources and OpenAPI schemas, as a cluster's discovery would.
type Schemas interface {
	meta.RESTMapper
	ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error)
}

// maxKinds is how many kinds the checker resolves from a policy's rules
// (validating's maxTypesToCheck).
const maxKinds = 10

// Check type-checks vap's expressions against the kinds of schemas. A
// panic of the checker becomes a warning on the policy, not a crash.
func Check(vap *admissionv1.ValidatingAdmissionPolicy, schemas Schemas) (out []admissionv1.ExpressionWarning) {
	defer func() {
		if r := recover(); r != nil {
			out = []admissionv1.ExpressionWarning{{FieldRef: "spec", Warning: fmt.Sprintf("type checker panicked: %v", r)}}
		}
	}()
	p := newPolicy(vap, schemas)
	validations := field.NewPath("spec", "validations")
	warn := func(path *field.Path, expression string) {
		if w := p.check(expression); w != "" {
			out = append(out, admissionv1.ExpressionWarning{FieldRef: path.String(), Warning: w})
		}
	}
	for i, v := range vap.Spec.Validations {
		warn(validations.Index(i).Child("expression"), v.Expression)
		if v.MessageExpression != "" {
			warn(validations.Index(i).Child("messageExpression"), v.MessageExpression)
		}
	}
	return out
}

// policy is what the checker resolves from a policy once (validating's
// TypeCheckingContext): the kinds it matches that have a schema, with
// their CEL types, its paramKind's and its variables.
type policy struct {
	kinds     []schema.GroupVersionKind
	types     []*apiservercel.DeclType
	hasParams bool
	params    *apiservercel.DeclType
	variables []plugincel.NamedExpressionAccessor
	// compilers are the kinds' compilers, made at the first check.
	compilers []*plugincel.CompositedCompiler
}

func newPolicy(vap *admissionv1.ValidatingAdmissionPolicy, schemas Schemas) *policy {
	p := &policy{}
	for _, gvk := range matchedKinds(vap, schemas) {
		// A kind without a schema, or whose schema cannot be resolved, is
		// not checked (the server logs it at V(2)).
		t, err := declType(schemas, gvk)
		if err != nil {
			continue
		}
		p.kinds = append(p.kinds, gvk)
		p.types = append(p.types, t)
	}
	var params schema.GroupVersionKind
	if pk := vap.Spec.ParamKind; pk != nil {
		if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
			params = gv.WithKind(pk.Kind)
		}
	}
	p.hasParams = !params.Empty()
	p.params, _ = declType(schemas, params)
	for _, v := range vap.Spec.Variables {
		p.variables = append(p.variables, &variable{name: v.Name, expression: v.Expression})
	}
	return p
}

// check compiles expression with object and oldObject typed as each kind
// in turn, and returns the issues as validating.TypeCheckingResults
// prints them; "" when every kind compiles.
func (p *policy) check(expression string) string {
	var issues []string
	options := plugincel.OptionalVariableDeclarations{HasParams: p.hasParams, HasAuthorizer: true}
	if p.compilers == nil {
		// One compiler per kind, with the policy's variables compiled
		// into it, for all of its expressions: compiling an expression
		// changes nothing in the compiler, so the server's making both
		// again for every expression gives the same result for more.
		p.compilers = make([]*plugincel.CompositedCompiler, len(p.kinds))
		for i := range p.kinds {
			compiler, err := p.compiler(p.types[i])
			if err != nil {
				utilruntime.HandleError(err)
				continue
			}
			compiler.CompileAndStoreVariables(p.variables, options, environment.StoredExpressions)
			p.compilers[i] = compiler
		}
	}
	for i, gvk := range p.kinds {
		compiler := p.compilers[i]
		if compiler == nil {
			continue
		}
		result := compiler.CompileCELExpression(expressionOf(expression), options, environment.StoredExpressions)
		switch err := result.Error; {
		case err == nil:
		case err.Type == apiservercel.ErrorTypeInvalid:
			issues = append(issues, fmt.Sprintf("%v: %s\n", gvk, err))
		default:
			issues = append(issues, fmt.Sprintf("%v: type checking error: %v\n", gvk, err))
		}
	}
	return strings.Join(issues, "\n")
}

// compiler is the admission compiler with object typed as object, params
// as p.params (dyn when nil), and the expressions' output types left
// free.
func (p *policy) compiler(object *apiservercel.DeclType) (*plugincel.CompositedCompiler, error) {
	envs, err := envSet(p.hasParams, object, p.params)
	if err != nil {
		return nil, err
	}
	compiler, err := plugincel.NewCompositedCompilerForTypeChecking(envs)
	if err != nil {
		return nil, err
	}
	compiler.Compiler = &typeChecking{compiler: compiler}
	return compiler, nil
}

// envSet is the server's base environment with the variables of an
// admission policy's expressions declared: namespace and request as the
// admission plugin types them, object and oldObject, params when the
// policy has a paramKind, and authorizer.
func envSet(hasParams bool, object, params *apiservercel.DeclType) (*environment.EnvSet, error) {
	namespace, request := plugincel.BuildNamespaceType(), plugincel.BuildRequestType()
	types := []*apiservercel.DeclType{namespace, request}
	var vars []cel.EnvOption
	vars = append(vars, variables(namespace, plugincel.NamespaceVarName)...)
	vars = append(vars, variables(request, plugincel.RequestVarName)...)
	if object != nil {
		types = append(types, object)
	}
	vars = append(vars, variables(object, plugincel.ObjectVarName, plugincel.OldObjectVarName)...)
	if hasParams {
		if params != nil {
			types = append(types, params)
		}
		vars = append(vars, variables(params, plugincel.ParamsVarName)...)
	}
	vars = append(vars, cel.Variable("authorizer", library.AuthorizerType))
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		// Present at every version (the feature came in 1.26; the server
		// dates these options 1.0).
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        vars,
		DeclTypes:         types,
	})
}

// variables declares names of type t, dyn when t is nil.
func variables(t *apiservercel.DeclType, names ...string) []cel.EnvOption {
	ct := cel.DynType
	if t != nil {
		ct = t.CelType()
	}
	opts := make([]cel.EnvOption, 0, len(names))
	for _, n := range names {
		opts = append(opts, cel.Variable(n, ct))
	}
	return opts
}

// declType is the CEL type of gvk's schema, named after its kind; nil
// for no kind or a schema CEL cannot type.
func declType(schemas Schemas, gvk schema.GroupVersionKind) (*apiservercel.DeclType, error) {
	if gvk.Empty() {
		return nil, nil
	}
	s, err := schemas.ResolveSchema(gvk)
	if err != nil {
		return nil, err
	}
	t := common.SchemaDeclType(&openapi.Schema{Schema: s}, true)
	if t == nil {
		return nil, nil
	}
	// The server names the type after the kind and the clock's
	// nanoseconds, so that two kinds' types never share a name.
	return t.MaybeAssignTypeName(fmt.Sprintf("%s%d", gvk.Kind, time.Now().Nanosecond())), nil
}

// matchedKinds are the kinds matchConstraints' resource rules resolve to,
// sorted by group, version and kind, at most maxKinds of them: rules with
// a wildcard group or version are left out, and wildcard and subresource
// names; the RESTMapper is reset and asked again once per policy when a
// resource does not resolve.
func matchedKinds(vap *admissionv1.ValidatingAdmissionPolicy, mapper meta.RESTMapper) []schema.GroupVersionKind {
	mc := vap.Spec.MatchConstraints
	if mc == nil || len(mc.ResourceRules) == 0 {
		return nil
	}
	seen := map[schema.GroupVersionKind]bool{}
	refreshed, count := false, 0
	for _, rule := range mc.ResourceRules {
		groups, versions := exact(rule.APIGroups), exact(rule.APIVersions)
		resources := slices.DeleteFunc(slices.Clone(rule.Resources), func(r string) bool { return strings.ContainsAny(r, "*/") })
		if len(groups) == 0 || len(versions) == 0 || len(resources) == 0 {
			continue
		}
		slices.Sort(groups)
		slices.Sort(versions)
		slices.Sort(resources)
		for _, g := range groups {
			for _, v := range versions {
				for _, r := range resources {
					gvr := schema.GroupVersionResource{Group: g, Version: v, Resource: r}
					kinds, err := mapper.KindsFor(gvr)
					if err != nil {
						if refreshed {
							continue
						}
						if m, ok := mapper.(meta.ResettableRESTMapper); ok {
							m.Reset()
						}
						refreshed = true
						if kinds, err = mapper.KindsFor(gvr); err != nil {
							continue
						}
					}
					for _, k := range kinds {
						if k.Empty() {
							continue
						}
						seen[k] = true
						if count++; count == maxKinds {
							return sortedKinds(seen)
						}
					}
				}
			}
		}
	}
	return sortedKinds(seen)
}

// exact is names, or nil when one of them is a wildcard.
func exact(names []string) []string {
	if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "*") }) {
		return nil
	}
	return slices.Clone(names)
}

func sortedKinds(set map[schema.GroupVersionKind]bool) []schema.GroupVersionKind {
	if len(set) == 0 {
		return nil
	}
	kinds := make([]schema.GroupVersionKind, 0, len(set))
	for k := range set {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b schema.GroupVersionKind) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		if c := strings.Compare(a.Version, b.Version); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return kinds
}

// typeChecking compiles as the admission compiler does, in the
// environment of compiler, but leaves an expression's output type free and
// makes no program: only whether it type-checks matters.
type typeChecking struct {
	compiler *plugincel.CompositedCompiler
}

func (c *typeChecking) CompileCELExpression(e plugincel.ExpressionAccessor, _ plugincel.OptionalVariableDeclarations, mode environment.Type) plugincel.CompilationResult {
	failed := func(t apiservercel.ErrorType, detail string) plugincel.CompilationResult {
		return plugincel.CompilationResult{Error: &apiservercel.Error{Type: t, Detail: detail}, ExpressionAccessor: e}
	}
	env, err := c.compiler.Env(mode)
	if err != nil {
		return failed(apiservercel.ErrorTypeInternal, fmt.Sprintf("fail to build env: %v", err))
	}
	ast, issues := env.Compile(e.GetExpression())
	if issues != nil {
		return failed(apiservercel.ErrorTypeInvalid, issues.String())
	}
	return plugincel.CompilationResult{OutputType: ast.OutputType()}
}

// expressionOf is an expression whose output may be of any type.
type expressionOf string

func (e expressionOf) GetExpression() string    { return string(e) }
func (e expressionOf) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType} }

// variable is one of spec.variables.
type variable struct{ name, expression string }

func (v *variable) GetName() string          { return v.name }
func (v *variable) GetExpression() string    { return v.expression }
func (v *variable) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType, cel.DynType} }
