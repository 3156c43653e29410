package rules

// Public sources rule docs cite: the Kubernetes documentation, the
// Kubernetes source at the release webhooklint is conformant with, and
// public issue and incident reports. TestRuleDocsCitePublicSources keeps it
// that way.
const (
	k8sSource        = "https://github.com/kubernetes/kubernetes/blob/v1.37.2/"
	apiserverSource  = k8sSource + "staging/src/k8s.io/apiserver/"
	apimachinerySrc  = k8sSource + "staging/src/k8s.io/apimachinery/"
	webhookPredicate = apiserverSource + "pkg/admission/plugin/webhook/predicates/"

	srcValidation        = k8sSource + "pkg/apis/admissionregistration/validation/validation.go"
	srcDefaultsV1        = k8sSource + "pkg/apis/admissionregistration/v1/defaults.go"
	srcDefaultsV1beta1   = k8sSource + "pkg/apis/admissionregistration/v1beta1/defaults.go"
	srcWarnings          = k8sSource + "pkg/apis/admissionregistration/validation/warnings.go"
	srcStaticSuffix      = k8sSource + "pkg/apis/admissionregistration/validation/static_suffix.go"
	srcExclusion         = k8sSource + "pkg/kubeapiserver/admission/exclusion/resources.go"
	srcNamespaceStrategy = k8sSource + "pkg/registry/core/namespace/strategy.go"
	srcRulesMatcher      = webhookPredicate + "rules/rules.go"
	srcObjectMatcher     = webhookPredicate + "object/matcher.go"
	srcNamespaceMatcher  = webhookPredicate + "namespace/matcher.go"
	srcGenericWebhook    = apiserverSource + "pkg/admission/plugin/webhook/generic/webhook.go"
	srcMatchConditions   = apiserverSource + "pkg/admission/plugin/webhook/matchconditions/matcher.go"
	srcCELCompile        = apiserverSource + "pkg/admission/plugin/cel/compile.go"
	srcValidatingCalls   = apiserverSource + "pkg/admission/plugin/webhook/validating/dispatcher.go"
	srcMutatingCalls     = apiserverSource + "pkg/admission/plugin/webhook/mutating/dispatcher.go"
	srcWebhookClient     = apiserverSource + "pkg/util/webhook/client.go"
	srcWebhookValidation = apiserverSource + "pkg/util/webhook/validation.go"
	srcServiceProxy      = apiserverSource + "pkg/util/proxy/proxy.go"
	srcServerConfig      = apiserverSource + "pkg/server/config.go"
	srcLabelValidation   = apimachinerySrc + "pkg/apis/meta/v1/validation/validation.go"
	srcNameValidation    = apimachinerySrc + "pkg/util/validation/validation.go"
	srcObjectMeta        = apimachinerySrc + "pkg/api/validation/objectmeta.go"

	docsWebhooks      = "https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/"
	docsGoodPractices = "https://kubernetes.io/docs/concepts/cluster-administration/admission-webhooks-good-practices/"
	docsDeprecation   = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22"
	docsNames         = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"
	docsLabels        = "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set"
	docsCAInjector    = "https://cert-manager.io/docs/concepts/ca-injector/"
	docsGKEWebhooks   = "https://cloud.google.com/kubernetes-engine/docs/how-to/optimize-webhooks"
	docsKEP3716       = "https://www.kubernetes.dev/resources/keps/3716/"
	docsVAP           = "https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/"
	// srcPolicyMatchCondition: a ValidatingAdmissionPolicy's matchConditions
	// go to the webhooks' matcher, which is given no namespace.
	srcPolicyMatchCondition = "https://github.com/kubernetes/kubernetes/blob/v1.37.2/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/plugin.go"
	docsMAP                 = "https://kubernetes.io/docs/reference/access-authn-authz/mutating-admission-policy/"

	// Incident and issue reports.
	incidentGKEOutage       = "https://blog.jetstack.io/blog/gke-webhook-outage/"
	issueLeaderElection     = "https://github.com/kubernetes/kubernetes/issues/107678"
	issueGatekeeperLeases   = "https://github.com/open-policy-agent/gatekeeper/issues/870"
	issueCNIDeadlock        = "https://github.com/cozystack/cozystack/issues/3125"
	issueOwnReplicaSets     = "https://github.com/kinvolk/lokomotive/issues/721"
	issueSelectorBypass     = "https://github.com/IBM/portieris/issues/145"
	issueNodeLeases         = "https://github.com/clastix/kamaji/issues/232"
	issueDryRunGatekeeper   = "https://github.com/open-policy-agent/gatekeeper/issues/1353"
	issueDryRunKnative      = "https://github.com/knative/pkg/issues/936"
	issueEmptyCABundle      = "https://github.com/istio/istio.io/issues/2078"
	issueExpiredCA          = "https://github.com/cert-manager/cert-manager/issues/1731"
	issueUpgradeTimeouts    = "https://github.com/digitalocean/clusterlint/issues/167"
	issueAuthnReviews       = "https://github.com/kubernetes/kubernetes/issues/122205"
	prExcludeReviews        = "https://github.com/kubernetes/kubernetes/pull/140019"
	issueMatchConditionNull = "https://github.com/ovn-kubernetes/ovn-kubernetes/issues/6053"
	issueBroadRules         = "https://github.com/open-policy-agent/gatekeeper/issues/545"
	issueUnsetNameLabel     = "https://github.com/bank-vaults/bank-vaults/issues/1464"
)
