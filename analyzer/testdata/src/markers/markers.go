// Package markers declares webhooks the kubebuilder way.
package markers

// A fail-closed validating webhook with everything controller-gen needs.
// +kubebuilder:webhook:path=/validate-apps-v1-deployment,mutating=false,failurePolicy=fail,sideEffects=None,groups=apps,resources=deployments,verbs=create;update,versions=v1,name=vdeployment.example.com,admissionReviewVersions=v1

// failurePolicy=ignore is normalized to Ignore by controller-gen, and the
// finding lands on the key=value.
// want +1 `^warning: failurePolicy Ignore lets requests through while the webhook is down \[test-failure-policy\]$`
// +kubebuilder:webhook:path=/validate-v1-pod,mutating=false,failurePolicy=ignore,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=vpod.example.com,admissionReviewVersions=v1

// Operations are the marker's verbs.
// want +1 `operation "CONNECT" is not allowed here`
// +kubebuilder:webhook:path=/validate-v1-secret,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=secrets,verbs=create;connect,versions=v1,name=vsecret.example.com,admissionReviewVersions=v1

// A long timeout on a fail-closed webhook: a cross-field rule, reported on
// timeoutSeconds.
// want +1 `timeout 25s on a fail-closed webhook`
// +kubebuilder:webhook:path=/mutate-v1-configmap,mutating=true,failurePolicy=Fail,sideEffects=NoneOnDryRun,groups="",resources=configmaps,verbs=create,versions=v1,name=mconfigmap.example.com,admissionReviewVersions=v1,timeoutSeconds=25,reinvocationPolicy=IfNeeded

// Selectors come from patch=, so that is where their findings go.
// want +1 `namespaceSelector opts out with NotIn`
// +kubebuilder:webhook:path=/mutate-v1-service,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=services,verbs=create,versions=v1,name=mservice.example.com,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"team","operator":"NotIn","values":["a"]}]}}`

// The names of the webhook configuration objects: a finding about the
// configuration itself goes on this marker.
// want +1 `configuration name "Bad_Name" is not a DNS subdomain`
// +kubebuilder:webhookconfiguration:mutating=true,name=Bad_Name

// controller-gen requires sideEffects in v1; the fix adds None.
// want +1 `^error: controller-gen fails: SideEffects is required .* \[controller-gen\]$`
// +kubebuilder:webhook:path=/validate-v1-namespace,mutating=false,failurePolicy=fail,groups="",resources=namespaces,verbs=delete,versions=v1,name=vnamespace.example.com,admissionReviewVersions=v1

// Markers controller-gen cannot parse.
// want +1 `missing required argument "admissionReviewVersions" \[kubebuilder-marker\]`
// +kubebuilder:webhook:path=/validate-v1-node,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=nodes,verbs=update,versions=v1,name=vnode.example.com
// want +1 `unknown argument "port"`
// +kubebuilder:webhook:path=/validate-v1-event,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=events,verbs=create,versions=v1,name=vevent.example.com,admissionReviewVersions=v1,port=9443
// want +1 `expected integer, got "ten"`
// +kubebuilder:webhook:path=/validate-v1-lease,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=leases,verbs=create,versions=v1,name=vlease.example.com,admissionReviewVersions=v1,timeoutSeconds=ten

// Markers controller-gen accepts but then refuses to generate from.
// want +1 `should not be set to .Some. or .Unknown.`
// +kubebuilder:webhook:path=/validate-v1-pv,mutating=false,failurePolicy=fail,sideEffects=Some,groups="",resources=persistentvolumes,verbs=create,versions=v1,name=vpv.example.com,admissionReviewVersions=v1
// want +1 `unknown value "Similar" for matchPolicy`
// +kubebuilder:webhook:path=/validate-v1-pvc,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=persistentvolumeclaims,verbs=create,versions=v1,name=vpvc.example.com,admissionReviewVersions=v1,matchPolicy=Similar
// want +1 `mutually exclusive`
// +kubebuilder:webhook:url="https://hooks.example.com/validate",path=/validate-v1-sa,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=serviceaccounts,verbs=create,versions=v1,name=vsa.example.com,admissionReviewVersions=v1
// want +1 `unsupported webhook version: v1beta1`
// +kubebuilder:webhook:webhookVersions=v1beta1,path=/validate-v1-rc,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=replicationcontrollers,verbs=create,versions=v1,name=vrc.example.com,admissionReviewVersions=v1

// Validator validates things.
// want +1 `^warning: controller-gen ignores this marker in the doc comment of type Validator`
// +kubebuilder:webhook:path=/validate-v1-endpoints,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=endpoints,verbs=create,versions=v1,name=vendpoints.example.com,admissionReviewVersions=v1
type Validator struct{}

// Setup registers the webhooks.
func Setup() {
	// want +1 `ignores this marker because it is inside func Setup`
	// +kubebuilder:webhook:path=/validate-v1-limitrange,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=limitranges,verbs=create,versions=v1,name=vlimitrange.example.com,admissionReviewVersions=v1
}

// A patch in a quoted string: the finding goes on the escaped key.
// want +1 `namespaceSelector opts out with NotIn`
// +kubebuilder:webhook:path=/mutate-v1-secret,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=secrets,verbs=create,versions=v1,name=msecret.example.com,admissionReviewVersions=v1,patch="{\"namespaceSelector\":{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"NotIn\",\"values\":[\"b\"]}]}}"
