package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"

	"github.com/webhooklint/webhooklint/diag"
)

// Limits the server enforces on a ValidatingAdmissionPolicy.
const (
	maxAuditAnnotations              = 20
	maxAuditAnnotationValueExprBytes = 5 * 1024
)

var (
	supportedValidationReasons = []metav1.StatusReason{metav1.StatusReasonForbidden, metav1.StatusReasonInvalid, metav1.StatusReasonRequestEntityTooLarge}
	supportedPatchTypes        = []admissionv1.PatchType{admissionv1.PatchTypeApplyConfiguration, admissionv1.PatchTypeJSONPatch}
)

func init() {
	register(&Rule{
		Name:     "admission-policy",
		Summary:  "admission policy fields and CEL expressions the API server rejects (ValidatingAdmissionPolicy, MutatingAdmissionPolicy)",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.2.0",
		Doc: Doc{
			Why: "The API server validates an admission policy when it is created: `matchConstraints` with at least one " +
				"`resourceRules` entry, a supported `failurePolicy`, a well-formed `paramKind`, unique qualified " +
				"`matchConditions` names, variables named as CEL identifiers, and at least one validation or audit " +
				"annotation (ValidatingAdmissionPolicy) or mutation with a `reinvocationPolicy` (MutatingAdmissionPolicy). " +
				"Every expression must compile in the admission CEL environment of the server's version and return the " +
				"type its field needs: `bool` for validations and matchConditions, `string` for messageExpression, " +
				"`string` or `null` for audit annotations, an `Object` for ApplyConfiguration and a list of `JSONPatch` " +
				"for JSONPatch mutations. `params` exists only with a `paramKind`, `variables` only when the policy " +
				"declares some, and messageExpression has no `authorizer`. A mutating policy never sees DELETE. " +
				"webhooklint compiles each expression with the API server's own compiler, so the message is the server's.",
			Fix: "Declare `paramKind` before using `params`, convert dynamic values to the type the field needs " +
				"(`string(...)`, `== true`), and write the missing required fields.",
			Sources: []string{
				docsVAP,
				docsMAP,
				srcValidation,
				srcCELCompile,
			},
		},
		CheckPolicy: checkAdmissionPolicy,
	})
}

func checkAdmissionPolicy(p *Pass) {
	switch pol := p.Policy; {
	case pol.Validating != nil:
		checkPolicyMeta(p)
		p.ReportFieldErrors(validatingPolicyErrors(p))
	case pol.Mutating != nil:
		checkPolicyMeta(p)
		p.ReportFieldErrors(validateMutatingPolicySpec(p.Settings, &pol.Mutating.Spec, field.NewPath("spec")))
	}
}

// validatingPolicyErrors is what the server's validation of the pass's
// ValidatingAdmissionPolicy finds, computed once per policy of a unit:
// admission-policy reports it, and admission-policy-types type-checks
// only a policy without errors (compiling every expression again in the
// server's environment was a sixth of the policies' CPU).
func validatingPolicyErrors(p *Pass) field.ErrorList {
	pol := p.Policy
	compute := func() any {
		return validateValidatingPolicySpec(p.Settings, pol.Meta, &pol.Validating.Spec, field.NewPath("spec"))
	}
	if p.Input == nil {
		return compute().(field.ErrorList)
	}
	type key struct {
		spec     *admissionv1.ValidatingAdmissionPolicySpec
		settings *Settings
	}
	return p.Input.Derived(key{&pol.Validating.Spec, p.Settings}, compute).(field.ErrorList)
}

// checkPolicyMeta reports the server's metadata checks of the four kinds,
// as for webhook configurations.
func checkPolicyMeta(p *Pass) { checkCreatedMeta(p, p.Policy.Meta) }

// policyCommon is what both policy kinds share.
type policyCommon struct {
	failurePolicy    *admissionv1.FailurePolicyType
	paramKind        *admissionv1.ParamKind
	matchConstraints *admissionv1.MatchResources
	matchConditions  []admissionv1.MatchCondition
	variables        []admissionv1.Variable
}

// validatePolicyCommon checks the shared fields, in the server's order:
// failurePolicy, paramKind, matchConstraints, matchConditions, variables.
// It returns the compiler the policy's other expressions use, nil if the
// CEL environment could not be built (reported as an internal error).
func validatePolicyCommon(s *Settings, c policyCommon, mutating bool, fp *field.Path) (*policyCompiler, field.ErrorList) {
	var errs field.ErrorList
	if c.failurePolicy != nil && !slices.Contains(supportedFailurePolicies, *c.failurePolicy) {
		errs = append(errs, field.NotSupported(fp.Child("failurePolicy"), *c.failurePolicy, supportedFailurePolicies))
	}
	if c.paramKind != nil {
		errs = append(errs, validateParamKind(c.paramKind, fp.Child("paramKind"))...)
	}
	mp := fp.Child("matchConstraints")
	if c.matchConstraints == nil {
		errs = append(errs, field.Required(mp, ""))
	} else {
		errs = append(errs, validateMatchResources(c.matchConstraints, mp)...)
		if len(c.matchConstraints.ResourceRules) == 0 {
			errs = append(errs, field.Required(mp.Child("resourceRules"), ""))
		}
		if mutating {
			errs = append(errs, validateMutatingOperations(c.matchConstraints, mp)...)
		}
	}
	pc, err := newPolicyCompiler(s, len(c.variables), c.paramKind != nil)
	if err != nil {
		return nil, append(errs, field.InternalError(fp, fmt.Errorf("building the CEL environment: %w", err)))
	}
	errs = append(errs, pc.validateMatchConditions(c.matchConditions, fp.Child("matchConditions"))...)
	if len(c.variables) > 0 {
		errs = append(errs, pc.validateVariables(c.variables, fp.Child("variables"))...)
	}
	return pc, errs
}

func validateValidatingPolicySpec(s *Settings, meta metav1.ObjectMeta, spec *admissionv1.ValidatingAdmissionPolicySpec, fp *field.Path) field.ErrorList {
	pc, errs := validatePolicyCommon(s, policyCommon{
		failurePolicy: spec.FailurePolicy, paramKind: spec.ParamKind, matchConstraints: spec.MatchConstraints,
		matchConditions: spec.MatchConditions, variables: spec.Variables,
	}, false, fp)
	if pc == nil {
		return errs
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(fp.Child("validations"), msg), field.Required(fp.Child("auditAnnotations"), msg))
	}
	for i := range spec.Validations {
		errs = append(errs, pc.validateValidation(&spec.Validations[i], fp.Child("validations").Index(i))...)
	}
	ap := fp.Child("auditAnnotations")
	if len(spec.AuditAnnotations) > maxAuditAnnotations {
		errs = append(errs, field.Invalid(ap, internalAuditAnnotations(spec.AuditAnnotations), fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := map[string]bool{}
	for i := range spec.AuditAnnotations {
		a := &spec.AuditAnnotations[i]
		errs = append(errs, pc.validateAuditAnnotation(meta.Name, a, ap.Index(i))...)
		if keys[a.Key] {
			errs = append(errs, field.Duplicate(ap.Index(i).Child("key"), a.Key))
		}
		keys[a.Key] = true
	}
	return errs
}

// internalAuditAnnotations is the list as the server prints it: its
// internal type has no JSON tags, so the keys are the Go field names.
func internalAuditAnnotations(as []admissionv1.AuditAnnotation) any {
	type internal struct{ Key, ValueExpression string }
	out := make([]internal, len(as))
	for i, a := range as {
		out[i] = internal{a.Key, a.ValueExpression}
	}
	return out
}

func (pc *policyCompiler) validateValidation(v *admissionv1.Validation, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	withAuthorizer := plugincel.OptionalVariableDeclarations{HasParams: pc.hasParams, HasAuthorizer: true}
	ep := fp.Child("expression")
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(ep, "expression is not specified"))
	} else if fe := pc.compile(pc.expressions(), validationExpr(v.Expression), withAuthorizer, ep, v.Expression); fe != nil {
		errs = append(errs, fe)
	}
	mp := fp.Child("messageExpression")
	switch trimmed := strings.TrimSpace(v.MessageExpression); {
	case v.MessageExpression != "" && trimmed == "":
		errs = append(errs, field.Invalid(mp, v.MessageExpression, "must be non-empty if specified"))
	case trimmed != "":
		// Message expressions get params but no authorizer.
		decls := plugincel.OptionalVariableDeclarations{HasParams: pc.hasParams}
		if fe := pc.compile(pc.expressions(), messageExpr(v.MessageExpression), decls, mp, v.MessageExpression); fe != nil {
			errs = append(errs, fe)
		}
	}
	msgPath := fp.Child("message")
	switch trimmed := strings.TrimSpace(v.Message); {
	case v.Message != "" && trimmed == "":
		errs = append(errs, field.Invalid(msgPath, v.Message, "must be non-empty if specified"))
	case strings.ContainsAny(trimmed, "\n\r"):
		errs = append(errs, field.Invalid(msgPath, v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(supportedValidationReasons, *v.Reason) {
		errs = append(errs, field.NotSupported(fp.Child("reason"), *v.Reason, supportedValidationReasons))
	}
	return errs
}

func (pc *policyCompiler) validateAuditAnnotation(policyName string, a *admissionv1.AuditAnnotation, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	kp := fp.Child("key")
	if policyName != "" {
		// The annotation is written as <policy name>/<key>.
		full := policyName + "/" + a.Key
		for _, msg := range validation.IsQualifiedName(full) {
			errs = append(errs, field.Invalid(kp, full, msg))
		}
	} else {
		errs = append(errs, field.Invalid(kp, a.Key, "requires metadata.name be non-empty"))
	}
	vp := fp.Child("valueExpression")
	switch trimmed := strings.TrimSpace(a.ValueExpression); {
	case trimmed == "":
		errs = append(errs, field.Required(vp, "valueExpression is not specified"))
	case len(trimmed) > maxAuditAnnotationValueExprBytes:
		errs = append(errs, field.Required(vp, fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExprBytes)))
	default:
		decls := plugincel.OptionalVariableDeclarations{HasParams: pc.hasParams, HasAuthorizer: true}
		if fe := pc.compile(pc.expressions(), auditAnnotationExpr(trimmed), decls, vp, a.ValueExpression); fe != nil {
			errs = append(errs, fe)
		}
	}
	return errs
}

func validateMutatingPolicySpec(s *Settings, spec *admissionv1.MutatingAdmissionPolicySpec, fp *field.Path) field.ErrorList {
	pc, errs := validatePolicyCommon(s, policyCommon{
		failurePolicy: spec.FailurePolicy, paramKind: spec.ParamKind, matchConstraints: spec.MatchConstraints,
		matchConditions: spec.MatchConditions, variables: spec.Variables,
	}, true, fp)
	if pc == nil {
		return errs
	}
	mp := fp.Child("mutations")
	if len(spec.Mutations) == 0 {
		errs = append(errs, field.Required(mp, "mutations must contain at least one item"))
	}
	for i := range spec.Mutations {
		errs = append(errs, pc.validateMutation(&spec.Mutations[i], mp.Index(i))...)
	}
	rp := fp.Child("reinvocationPolicy")
	switch r := spec.ReinvocationPolicy; {
	case r == "":
		errs = append(errs, field.Required(rp, ""))
	case !slices.Contains(supportedReinvocationPolicies, r):
		errs = append(errs, field.NotSupported(rp, r, supportedReinvocationPolicies))
	}
	return errs
}

func (pc *policyCompiler) validateMutation(m *admissionv1.Mutation, fp *field.Path) field.ErrorList {
	applyPath, patchPath := fp.Child("applyConfiguration"), fp.Child("jsonPatch")
	var errs field.ErrorList
	switch m.PatchType {
	case "":
		errs = append(errs, field.Required(fp.Child("patchType"), ""))
	case admissionv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, field.Required(patchPath, "must be specified when patchType is JSONPatch"))
		} else {
			expr := strings.TrimSpace(m.JSONPatch.Expression)
			errs = append(errs, pc.validatePatch(jsonPatchExpr(expr), patchPath.Child("expression"))...)
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(applyPath, "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, field.Required(applyPath, "must be specified when patchType is ApplyConfiguration"))
		} else {
			expr := strings.TrimSpace(m.ApplyConfiguration.Expression)
			errs = append(errs, pc.validatePatch(applyConfigurationExpr(expr), applyPath.Child("expression"))...)
		}
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(patchPath, "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(fp.Child("patchType"), m.PatchType, supportedPatchTypes))
	}
	return errs
}

// validatePatch compiles a mutation's expression (already trimmed, as the
// server compiles and quotes it) with the patch types declared.
func (pc *policyCompiler) validatePatch(acc plugincel.ExpressionAccessor, at *field.Path) field.ErrorList {
	if acc.GetExpression() == "" {
		return field.ErrorList{field.Required(at, "")}
	}
	decls := plugincel.OptionalVariableDeclarations{HasParams: pc.hasParams, HasAuthorizer: true, HasPatchTypes: true}
	if fe := pc.compile(pc.expressions(), acc, decls, at, acc.GetExpression()); fe != nil {
		return field.ErrorList{fe}
	}
	return nil
}
