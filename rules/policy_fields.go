package rules

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/webhooklint/webhooklint/internal/celcheck"
	"github.com/webhooklint/webhooklint/internal/lazy"
)

// What the API server checks in both admission policy kinds and both
// binding kinds (kubernetes pkg/apis/admissionregistration/validation):
// matchConstraints / matchResources, paramKind, paramRef, variables and
// the CEL compile. The server defaults failurePolicy (Fail), matchPolicy
// (Equivalent), the two selectors ({}) and rules' scope ("*") before it
// validates, so an unset one is never an error.

var (
	supportedNotFoundAction = []string{string(admissionv1.DenyAction), string(admissionv1.AllowAction)}
	// The operations a MutatingAdmissionPolicy (and its bindings) may match.
	supportedMutatingOperations = []admissionv1.OperationType{admissionv1.OperationAll, admissionv1.Connect, admissionv1.Create, admissionv1.Update}
)

// validateMatchResources is the server's check of matchConstraints and of
// a binding's matchResources.
func validateMatchResources(m *admissionv1.MatchResources, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m == nil {
		return nil
	}
	if m.MatchPolicy != nil && !slices.Contains(supportedMatchPolicies, *m.MatchPolicy) {
		errs = append(errs, field.NotSupported(fp.Child("matchPolicy"), *m.MatchPolicy, supportedMatchPolicies))
	}
	// Strict selector validation: these types came after kubernetes#99139.
	strict := metav1validation.LabelSelectorValidationOptions{}
	if m.NamespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(m.NamespaceSelector, strict, fp.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(m.ObjectSelector, strict, fp.Child("objectSelector"))...)
	}
	for i := range m.ResourceRules {
		errs = append(errs, validateNamedRule(&m.ResourceRules[i], fp.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&m.ExcludeResourceRules[i], fp.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// validateMutatingOperations: a mutating policy never sees DELETE. The
// server reports each operation at resourceRules.operations, without an
// index.
func validateMutatingOperations(m *admissionv1.MatchResources, fp *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	for _, r := range m.ResourceRules {
		for _, op := range r.Operations {
			if !slices.Contains(supportedMutatingOperations, op) {
				errs = append(errs, field.NotSupported(fp.Child("resourceRules", "operations"), op, supportedMutatingOperations))
			}
		}
	}
	return errs
}

func validateNamedRule(r *admissionv1.NamedRuleWithOperations, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, name := range r.ResourceNames {
		at := fp.Child("resourceNames").Index(i)
		for _, msg := range content.IsPathSegmentName(name) {
			errs = append(errs, field.Invalid(at, name, msg))
		}
		if seen[name] {
			errs = append(errs, field.Duplicate(at, name))
		}
		seen[name] = true
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, fp)...)
}

// validateParamKind checks spec.paramKind as the server does (the group
// as an APIService group, the version and the lower-cased kind as DNS-1035
// labels).
func validateParamKind(k *admissionv1.ParamKind, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	vp := fp.Child("apiVersion")
	switch group, version, err := splitGroupVersion(k.APIVersion); {
	case k.APIVersion == "":
		errs = append(errs, field.Required(vp, ""))
	case err != nil:
		errs = append(errs, field.Invalid(vp, k.APIVersion, err.Error()))
	default:
		if group != "" {
			if msgs := validation.IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(vp, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(vp, k.APIVersion, "version must be specified"))
		} else if msgs := validation.IsDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(vp, version, strings.Join(msgs, ",")))
		}
	}
	kp := fp.Child("kind")
	if k.Kind == "" {
		errs = append(errs, field.Required(kp, ""))
	} else if msgs := validation.IsDNS1035Label(strings.ToLower(k.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(kp, k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// splitGroupVersion reads "group/version" or "version".
func splitGroupVersion(gv string) (group, version string, err error) {
	if gv == "" || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		group, version, _ = strings.Cut(gv, "/")
		return group, version, nil
	}
	return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
}

// validateParamRef checks a binding's paramRef.
func validateParamRef(r *admissionv1.ParamRef, fp *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	const exclusive = "name and selector are mutually exclusive"
	if r.Name != "" {
		for _, msg := range content.IsPathSegmentName(r.Name) {
			errs = append(errs, field.Invalid(fp.Child("name"), r.Name, msg))
		}
		if r.Selector != nil {
			errs = append(errs, field.Forbidden(fp.Child("name"), exclusive))
		}
	}
	if r.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(r.Selector, metav1validation.LabelSelectorValidationOptions{}, fp.Child("selector"))...)
		if r.Name != "" {
			errs = append(errs, field.Forbidden(fp.Child("selector"), exclusive))
		}
	}
	if r.Name == "" && r.Selector == nil {
		errs = append(errs, field.Required(fp, "one of name or selector must be specified"))
	}
	ap := fp.Child("parameterNotFoundAction")
	switch a := r.ParameterNotFoundAction; {
	case a == nil || *a == "":
		errs = append(errs, field.Required(ap, ""))
	case *a != admissionv1.DenyAction && *a != admissionv1.AllowAction:
		errs = append(errs, field.NotSupported(ap, *a, supportedNotFoundAction))
	}
	return errs
}

// validatePolicyName checks a binding's spec.policyName.
func validatePolicyName(name string, fp *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fp, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(fp, name, msg))
	}
	return errs
}

// celIdentifier is CEL's IDENT: a letter or _, then letters, digits or _,
// and not a reserved word.
var celIdentifier = lazy.Regexp(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

var celReserved = []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else",
	"for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}

func isCELIdentifier(s string) bool {
	return celIdentifier().MatchString(s) && !slices.Contains(celReserved, s)
}

// policyCompiler compiles a policy's expressions as the API server does
// when the policy is created: with the server's own plugincel compilers on
// the base environment of the target version. A policy with variables gets
// a compositing compiler (variables are compiled first and typed), one
// without a stateless one; matchConditions are always compiled stateless.
type policyCompiler struct {
	stateless plugincel.Compiler
	composed  *plugincel.CompositedCompiler
	hasParams bool
}

// statelessCompilers holds one stateless compiler per Kubernetes minor:
// it keeps nothing between compiles, so policies share it (the server
// shares one too), and building its environments is most of a policy's cost.
var statelessCompilers [celcheck.MaxKubeMinor + 1]struct {
	once sync.Once
	c    plugincel.Compiler
}

func newPolicyCompiler(s *Settings, variables int, hasParams bool) (*policyCompiler, error) {
	minor := policyKubeMinor(s)
	envs := environment.MustBaseEnvSet(celcheck.CompatibilityVersion(minor))
	slot := &statelessCompilers[minor]
	slot.once.Do(func() { slot.c = plugincel.NewCompiler(envs) })
	pc := &policyCompiler{stateless: slot.c, hasParams: hasParams}
	if variables > 0 {
		c, err := plugincel.NewCompositedCompiler(envs)
		if err != nil {
			return nil, err
		}
		pc.composed = c
	}
	return pc, nil
}

// policyKubeMinor is the target minor, clamped to what celcheck supports.
func policyKubeMinor(s *Settings) int {
	if s.KubeVersion.Major > 1 {
		return celcheck.MaxKubeMinor
	}
	return min(max(s.KubeVersion.Minor, celcheck.MinKubeMinor), celcheck.MaxKubeMinor)
}

// expressions is the compiler for validations, audit annotations and
// mutations.
func (pc *policyCompiler) expressions() plugincel.Compiler {
	if pc.composed != nil {
		return pc.composed
	}
	return pc.stateless
}

// compile compiles one expression and returns the server's field error, or nil.
func (pc *policyCompiler) compile(c plugincel.Compiler, acc plugincel.ExpressionAccessor, decls plugincel.OptionalVariableDeclarations, at *field.Path, written string) (fe *field.Error) {
	defer func() {
		// A linter must not crash on any input, nor on a compiler bug.
		if p := recover(); p != nil {
			fe = field.InternalError(at, fmt.Errorf("CEL compiler panicked: %v", p))
		}
	}()
	res := c.CompileCELExpression(acc, decls, environment.NewExpressions)
	return celFieldError(res.Error, at, written)
}

// compileVariable compiles and stores one variable for the expressions
// after it.
func (pc *policyCompiler) compileVariable(v *admissionv1.Variable, acc plugincel.NamedExpressionAccessor, at *field.Path) (fe *field.Error) {
	defer func() {
		if p := recover(); p != nil {
			fe = field.InternalError(at, fmt.Errorf("CEL compiler panicked: %v", p))
		}
	}()
	decls := plugincel.OptionalVariableDeclarations{HasParams: pc.hasParams, HasAuthorizer: true}
	res := pc.composed.CompileAndStoreVariable(acc, decls, environment.NewExpressions)
	return celFieldError(res.Error, at, v.Expression)
}

// celFieldError converts a compile error as the server does
// (convertCELErrorToValidationError); written is the value it quotes.
func celFieldError(err *apiservercel.Error, at *field.Path, written string) *field.Error {
	if err == nil {
		return nil
	}
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(at, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(at, written, err.Detail)
	}
	return field.InternalError(at, err)
}

// validatePolicyMatchConditions checks a policy's matchConditions: the
// webhooks' checks, with params declared when the policy has a paramKind.
func (pc *policyCompiler) validateMatchConditions(conds []admissionv1.MatchCondition, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > maxMatchConditions {
		errs = append(errs, field.TooMany(fp, len(conds), maxMatchConditions))
	}
	names := sets.New[string]()
	decls := plugincel.OptionalVariableDeclarations{HasParams: pc.hasParams, HasAuthorizer: true}
	for i, mc := range conds {
		at := fp.Index(i)
		if expr := strings.TrimSpace(mc.Expression); expr == "" {
			errs = append(errs, field.Required(at.Child("expression"), ""))
		} else if fe := pc.compile(pc.stateless, &matchconditions.MatchCondition{Expression: expr}, decls, at.Child("expression"), expr); fe != nil {
			errs = append(errs, fe)
		}
		errs = append(errs, validateConditionName(mc.Name, names, func() *field.Path { return at.Child("name") })...)
	}
	return errs
}

// validateVariables checks spec.variables and stores them, in order, for
// the policy's other expressions.
func (pc *policyCompiler) validateVariables(vars []admissionv1.Variable, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range vars {
		v := &vars[i]
		at := fp.Index(i)
		if strings.TrimSpace(v.Name) == "" {
			errs = append(errs, field.Required(at.Child("name"), "name is not specified"))
		} else if !isCELIdentifier(v.Name) {
			errs = append(errs, field.Invalid(at.Child("name"), v.Name, "must be a valid CEL identifier"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, field.Required(at.Child("expression"), "expression is not specified"))
		} else if fe := pc.compileVariable(v, variableExpr{name: v.Name, expression: v.Expression}, at.Child("expression")); fe != nil {
			errs = append(errs, fe)
		}
	}
	return errs
}
