package rules

import (
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// API versions and kinds the linter understands.
const (
	GroupName = "admissionregistration.k8s.io"
	// CRDGroupName is the group of CustomResourceDefinitions, whose
	// conversion webhooks are webhook clients too.
	CRDGroupName = "apiextensions.k8s.io"
	V1           = GroupName + "/v1"
	V1beta1      = GroupName + "/v1beta1"
	Validating   = "ValidatingWebhookConfiguration"
	Mutating     = "MutatingWebhookConfiguration"
	ListSuffix   = "List"
	CoreVersion  = "v1"
)

// IsWebhookKind reports whether apiVersion/kind is one of the two webhook
// configuration kinds in a version webhooklint lints.
func IsWebhookKind(apiVersion, kind string) bool {
	return (apiVersion == V1 || apiVersion == V1beta1) && (kind == Validating || kind == Mutating)
}

// Config is the kind-independent view of one webhook configuration. Both
// kinds and both API versions decode into the v1 Go types (their fields are
// identical); APIVersion says which defaults apply.
type Config struct {
	APIVersion string
	Kind       string
	Meta       metav1.ObjectMeta
	Webhooks   []Webhook

	// The typed object, for a front end that shows it (the live
	// cluster's); no rule reads it, and manifests leave both nil once the
	// view is made, so that a unit of thousands does not hold each
	// configuration twice.
	Validating *admissionv1.ValidatingWebhookConfiguration
	Mutating   *admissionv1.MutatingWebhookConfiguration
}

// Webhook is one entry of webhooks[], with pointers into the typed object.
type Webhook struct {
	Index                   int
	Name                    string
	ClientConfig            admissionv1.WebhookClientConfig
	Rules                   []admissionv1.RuleWithOperations
	FailurePolicy           *admissionv1.FailurePolicyType
	MatchPolicy             *admissionv1.MatchPolicyType
	NamespaceSelector       *metav1.LabelSelector
	ObjectSelector          *metav1.LabelSelector
	SideEffects             *admissionv1.SideEffectClass
	TimeoutSeconds          *int32
	AdmissionReviewVersions []string
	MatchConditions         []admissionv1.MatchCondition
	// ReinvocationPolicy is only ever set on mutating webhooks.
	ReinvocationPolicy *admissionv1.ReinvocationPolicyType
	// CABundleRegenerated is set when two renders of the chart that
	// writes this webhook gave different caBundles: the chart generates
	// its CA while rendering and does not reuse the installed one.
	CABundleRegenerated bool
	// CABundleLookup is set when that chart calls lookup: with
	// CABundleRegenerated, its lookup does not keep the CA at helm
	// upgrade; alone, it keeps it there, but every render without a
	// cluster (helm template, Argo CD) generates a new one.
	CABundleLookup bool
	// TimeoutFromValues is set when a chart template writes
	// timeoutSeconds from its values: the installer's choice.
	TimeoutFromValues bool
	// TimeoutGivenBy is set instead when the value comes from what the
	// user gave the render (`--set key=10`, `--values FILE:line`): the
	// deployment's choice, judged as a written value and named so.
	TimeoutGivenBy string

	Config *Config
}

// FromValidating wraps a decoded ValidatingWebhookConfiguration.
func FromValidating(apiVersion string, o *admissionv1.ValidatingWebhookConfiguration) *Config {
	c := &Config{APIVersion: apiVersion, Kind: Validating, Meta: o.ObjectMeta, Validating: o}
	c.Webhooks = make([]Webhook, len(o.Webhooks))
	for i := range o.Webhooks {
		w := &o.Webhooks[i]
		c.Webhooks[i] = Webhook{
			Index: i, Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules,
			FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
			NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
			SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
			AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
			Config: c,
		}
	}
	return c
}

// FromMutating wraps a decoded MutatingWebhookConfiguration.
func FromMutating(apiVersion string, o *admissionv1.MutatingWebhookConfiguration) *Config {
	c := &Config{APIVersion: apiVersion, Kind: Mutating, Meta: o.ObjectMeta, Mutating: o}
	c.Webhooks = make([]Webhook, len(o.Webhooks))
	for i := range o.Webhooks {
		w := &o.Webhooks[i]
		c.Webhooks[i] = Webhook{
			Index: i, Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules,
			FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
			NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
			SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
			AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
			ReinvocationPolicy: w.ReinvocationPolicy,
			Config:             c,
		}
	}
	return c
}

// IsV1beta1 reports whether the configuration uses the removed v1beta1 API,
// whose defaults differ from v1.
func (c *Config) IsV1beta1() bool { return c.APIVersion == V1beta1 }

// IsMutating reports whether this is a MutatingWebhookConfiguration.
func (c *Config) IsMutating() bool { return c.Kind == Mutating }

// Object identifies the configuration in diagnostics.
func (c *Config) Object() *diag.Object {
	return &diag.Object{APIVersion: c.APIVersion, Kind: c.Kind, Name: c.Meta.Name}
}

// Path is the field path of this webhook: webhooks[i].
func (w *Webhook) Path() *field.Path {
	if w.Index >= 0 && w.Index < len(webhookPaths) {
		return webhookPaths[w.Index]
	}
	return field.NewPath("webhooks").Index(w.Index)
}

// webhookPaths are the first webhooks' paths, made once: every rule asks
// for its webhook's path, and a folder of 24,000 configurations made 44 MB
// of them while its rules ran, which the collector keeps alive while it
// marks. A field.Path is never changed once made, so one can be shared.
var webhookPaths = func() (ps [32]*field.Path) {
	for i := range ps {
		ps[i] = field.NewPath("webhooks").Index(i)
	}
	return ps
}()

// FieldPath is w.Path().Child(names...), shared for the fields of the
// first webhooks as their paths are (webhookPaths): rules ask for them on
// every webhook whether or not they report, and each was a new path.
func (w *Webhook) FieldPath(names ...string) *field.Path {
	if ps := w.sharedFieldPaths(names); ps != nil {
		return ps.paths[w.Index]
	}
	return w.Path().Child(names[0], names[1:]...)
}

// FieldString is PathString(w.FieldPath(names...)), its text shared as the paths are.
func (w *Webhook) FieldString(names ...string) string {
	if ps := w.sharedFieldPaths(names); ps != nil {
		return ps.strings[w.Index]
	}
	return PathString(w.Path().Child(names[0], names[1:]...))
}

// sharedFieldPaths are the paths of the field names in each of the first
// webhooks, or nil when w is not one of them or the field has none.
func (w *Webhook) sharedFieldPaths(names []string) *fieldPaths {
	if w.Index < 0 || w.Index >= len(webhookPaths) || len(names) == 0 || len(names) > 2 {
		return nil
	}
	var k [2]string
	copy(k[:], names)
	return webhookFieldPaths()[k]
}

// fieldPaths are one field's paths, and their text, in each of the first
// webhooks.
type fieldPaths struct {
	paths   [len(webhookPaths)]*field.Path
	strings [len(webhookPaths)]string
}

// webhookFieldPaths are the paths of a webhook's fields, and of its client
// configuration's, for each of the first webhooks.
var webhookFieldPaths = sync.OnceValue(func() map[[2]string]*fieldPaths {
	fields := [][2]string{
		{"name"}, {"clientConfig"}, {"rules"}, {"failurePolicy"}, {"matchPolicy"},
		{"namespaceSelector"}, {"objectSelector"}, {"sideEffects"}, {"timeoutSeconds"},
		{"admissionReviewVersions"}, {"matchConditions"}, {"reinvocationPolicy"},
		{"clientConfig", "service"}, {"clientConfig", "url"}, {"clientConfig", "caBundle"},
	}
	out := make(map[[2]string]*fieldPaths, len(fields))
	for _, f := range fields {
		ps := &fieldPaths{}
		for i, w := range webhookPaths {
			ps.paths[i] = w.Child(f[0])
			if f[1] != "" {
				ps.paths[i] = ps.paths[i].Child(f[1])
			}
			ps.strings[i] = ps.paths[i].String()
		}
		out[f] = ps
	}
	return out
})

// Defaults the API server applies, per version (webhook-facts §B).

// EffectiveFailurePolicy is failurePolicy after defaulting: Fail in v1,
// Ignore in v1beta1.
func (w *Webhook) EffectiveFailurePolicy() admissionv1.FailurePolicyType {
	if w.FailurePolicy != nil {
		return *w.FailurePolicy
	}
	if w.Config != nil && w.Config.IsV1beta1() {
		return admissionv1.Ignore
	}
	return admissionv1.Fail
}

// FailsClosed reports whether a failure to call the webhook rejects the request.
func (w *Webhook) FailsClosed() bool { return w.EffectiveFailurePolicy() == admissionv1.Fail }

// EffectiveMatchPolicy is matchPolicy after defaulting: Equivalent in v1,
// Exact in v1beta1.
func (w *Webhook) EffectiveMatchPolicy() admissionv1.MatchPolicyType {
	if w.MatchPolicy != nil {
		return *w.MatchPolicy
	}
	if w.Config != nil && w.Config.IsV1beta1() {
		return admissionv1.Exact
	}
	return admissionv1.Equivalent
}

// EffectiveTimeout is timeoutSeconds after defaulting: 10 in v1, 30 in v1beta1.
func (w *Webhook) EffectiveTimeout() int32 {
	if w.TimeoutSeconds != nil {
		return *w.TimeoutSeconds
	}
	if w.Config != nil && w.Config.IsV1beta1() {
		return 30
	}
	return 10
}

// EffectiveSideEffects is sideEffects after defaulting: none in v1 (the
// field is required), Unknown in v1beta1. The empty string means unset.
func (w *Webhook) EffectiveSideEffects() admissionv1.SideEffectClass {
	if w.SideEffects != nil {
		return *w.SideEffects
	}
	if w.Config != nil && w.Config.IsV1beta1() {
		return admissionv1.SideEffectClassUnknown
	}
	return ""
}

// EffectiveAdmissionReviewVersions is admissionReviewVersions after
// defaulting: none in v1 (required), [v1beta1] in v1beta1.
func (w *Webhook) EffectiveAdmissionReviewVersions() []string {
	if len(w.AdmissionReviewVersions) > 0 {
		return w.AdmissionReviewVersions
	}
	if w.Config != nil && w.Config.IsV1beta1() {
		return []string{"v1beta1"}
	}
	return nil
}

// EffectiveReinvocationPolicy is reinvocationPolicy after defaulting (Never).
func (w *Webhook) EffectiveReinvocationPolicy() admissionv1.ReinvocationPolicyType {
	if w.ReinvocationPolicy != nil {
		return *w.ReinvocationPolicy
	}
	return admissionv1.NeverReinvocationPolicy
}

// EffectiveScope is a rule's scope after defaulting ("*").
func EffectiveScope(r admissionv1.Rule) admissionv1.ScopeType {
	if r.Scope != nil {
		return *r.Scope
	}
	return admissionv1.AllScopes
}

// Inventory is everything else found in the same input, for rules that look
// across objects (the Service a webhook calls, the pods behind it, the
// namespaces it may intercept). Objects whose namespace is not stated have
// an empty Namespace.
type Inventory struct {
	Configs []*Config
	// Policies are the unit's admission policies and policy bindings.
	Policies []*Policy
	// Objects are the unit's other objects (not webhook configurations nor
	// policies), with their labels: what a policy binding's paramRef may
	// find.
	Objects    []ObjectRef
	Services   []*corev1.Service
	Namespaces []*corev1.Namespace
	Workloads  []Workload
	// DisruptionBudgets are the PodDisruptionBudgets of the input.
	DisruptionBudgets []DisruptionBudget
	// Autoscalers are the HorizontalPodAutoscalers of the input: they, not
	// spec.replicas, decide how many pods the workloads they target run.
	Autoscalers []Autoscaler
	// Roles and RoleBindings are the unit's ClusterRoles and Roles (only
	// their rules on admissionregistration.k8s.io) and their bindings:
	// they tell which ServiceAccounts may write webhook configurations.
	Roles        []Role
	RoleBindings []RoleBinding
	// ClusterServiceVersions names the OLM ClusterServiceVersions of the
	// unit: an operator bundle whose webhooks OLM installs, with the CA.
	ClusterServiceVersions []string
	// Labels are the labels the unit's own objects set (metadata.labels,
	// and the pod templates' labels), as "key=value", each with the first
	// object that sets it (`Deployment "name"`).
	Labels map[string]string
	// CRDs are the CustomResourceDefinitions (apiextensions.k8s.io/v1),
	// whose per-version schemas type what webhooks on custom resources
	// receive.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// Certificates are the cert-manager Certificates of the input, which
	// cert-manager.io/inject-ca-from annotations name.
	Certificates []Certificate
	// Live is what a running cluster reports (set only by `webhooklint
	// cluster`); nil when linting files.
	Live *LiveInventory
	// Listed holds the kinds of which the input has every object: those a
	// live cluster listed. An object of such a kind that is not in the
	// input does not exist, where a unit of files may install it next to
	// objects from elsewhere.
	Listed map[string]bool
	// Base is set when the unit is a kustomize base linted without the
	// overlay that deploys it (another kustomization reads it; the caller
	// knows from the graph, not from names such as "system"): its
	// namespaces, names, selectors and CA injection are placeholders an
	// overlay rewrites. Rules whose findings depend on
	// them mark those findings DependsOnOverlay, and avoid suggesting fixes
	// the overlay would break.
	Base bool
	// HelmRelease is set on a rendered chart: Helm creates the release's
	// objects in its own order of kinds (InstallOrder), not the files'.
	HelmRelease bool
	// KustomizeBuild is set on a kustomize build, which kustomize orders
	// by kind (webhook configurations last) before kubectl applies it.
	KustomizeBuild bool
	// Loose is set on a plain folder's unit of several files that nothing
	// states or gives are one install (kubectl apply -f DIR is assumed):
	// a finding that rests on one file's object meeting another's holds
	// only under that assumption (see Apart).
	Loose *LooseFolder
	// Applied is set when the unit is given, or stated, to be applied as
	// written: units.entries names it, a GitOps entry installs it, Go code
	// registers the configuration it builds. A configuration without its
	// Service is then no part of an install whose rest is elsewhere (see
	// Fragment).
	Applied bool
	// files maps the objects rules compare across files (configurations,
	// Services, CRDs, Certificates) to the file each came from, on a
	// Loose unit (SetFile).
	files map[any]string

	// derived holds what rules compute from the whole input, once per run
	// rather than once per configuration (see Derived).
	derived sync.Map
}

// Derived returns the value computed for key over this input, computing it
// once even when passes over several configurations ask at the same time.
// Rules whose findings depend on all of the input use it to keep a run
// linear in the number of configurations. compute must be pure, and the
// input must not change once a run has started.
func (in *Inventory) Derived(key any, compute func() any) any {
	if v, ok := in.derived.Load(key); ok {
		return v.(func() any)()
	}
	v, _ := in.derived.LoadOrStore(key, sync.OnceValue(compute))
	return v.(func() any)()
}

// derivedOf is Derived for a compute that reads only the input: it needs
// no closure made at each call, so asking for a value already computed
// allocates nothing, where rules ask for a unit's indexes on every webhook.
func derivedOf[K comparable](in *Inventory, key K, compute func(*Inventory) any) any {
	if v, ok := in.derived.Load(key); ok {
		return v.(func() any)()
	}
	v, _ := in.derived.LoadOrStore(key, sync.OnceValue(func() any { return compute(in) }))
	return v.(func() any)()
}

// holds reports whether c is one of the input's configurations.
func (in *Inventory) holds(c *Config) bool { return in.configIndex(c) >= 0 }

// configIndex is the index of c in the input's configurations (its first,
// as slices.Index), or -1, from a map built once: rules ask it for every
// configuration, and scanning a unit of thousands for each is quadratic.
func (in *Inventory) configIndex(c *Config) int {
	type key struct{}
	index := derivedOf(in, key{}, func(in *Inventory) any {
		m := make(map[*Config]int, len(in.Configs))
		for i, c := range in.Configs {
			if _, dup := m[c]; !dup {
				m[c] = i
			}
		}
		return m
	}).(map[*Config]int)
	if i, ok := index[c]; ok {
		return i
	}
	return -1
}

// boundedMemo is Derived for the whole process, for results that depend on
// no unit: a folder of loose files is thousands of units that would each
// compute them again. Past limit distinct keys it stops remembering, so
// memory stays bounded however many distinct inputs a run has.
type boundedMemo struct {
	limit int
	mu    sync.Mutex
	m     map[any]func() any
}

func (b *boundedMemo) get(key any, compute func() any) any {
	b.mu.Lock()
	f, ok := b.m[key]
	if !ok && len(b.m) < b.limit {
		if b.m == nil {
			b.m = map[any]func() any{}
		}
		f, ok = sync.OnceValue(compute), true
		b.m[key] = f
	}
	b.mu.Unlock()
	if !ok {
		return compute()
	}
	return f()
}

// contentMemo is boundedMemo for results that follow from a webhook's own
// fields, keyed by their text (keyBuilder): a folder of thousands of
// configurations repeats a few webhooks, and a key already seen is looked
// up without allocating. Two workers may compute the same key at once;
// compute must be pure, so either result is the one kept.
type contentMemo[T any] struct {
	limit int
	mu    sync.RWMutex
	m     map[string]T
}

func (c *contentMemo[T]) get(key []byte, compute func() T) T {
	c.mu.RLock()
	v, ok := c.m[string(key)]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	if kept, ok := c.m[string(key)]; ok {
		v = kept
	} else if len(c.m) < c.limit {
		if c.m == nil {
			c.m = map[string]T{}
		}
		c.m[string(key)] = v
	}
	c.mu.Unlock()
	return v
}

// atPlace is get for results that name the paths of w's fields (the API
// server's errors): keyed by w's place as well as by what content writes,
// and remembered only for the first webhooks, whose paths are shared;
// past them compute runs every time.
func (c *contentMemo[T]) atPlace(w *Webhook, content func(*keyBuilder), compute func() T) T {
	if w.Index < 0 || w.Index >= len(webhookPaths) {
		return compute()
	}
	k := borrowKey()
	defer keyBuffers.Put(k)
	k.number(w.Index)
	content(k)
	return c.get(*k, compute)
}

// sameNamespace reports whether two objects' namespaces can be the same:
// an unstated namespace ("") is set at install, and matches any.
func sameNamespace(a, b string) bool { return a == "" || b == "" || a == b }

// ObjectRef is an object of the input, by kind, name and labels.
type ObjectRef struct {
	APIVersion, Kind, Namespace, Name string
	Labels                            map[string]string
	// AfterConfigs is how many of the unit's configurations come before
	// the object in its files: `kubectl apply` creates them first.
	AfterConfigs int
	// HelmHook is set on an object with a helm.sh/hook annotation, which
	// Helm creates before or after the release's objects, not with them.
	HelmHook bool
	// File is the file the object came from, on a unit of several files.
	File string
}

// Certificate is a cert-manager Certificate of the input.
type Certificate struct {
	Namespace, Name string
	SecretName      string
	// CommonName and DNSNames are the names it is issued for; IsCA marks
	// a CA certificate (one that signs serving certificates, not one).
	CommonName string
	DNSNames   []string
	IsCA       bool
}

// Workload is anything that creates pods: its pod template labels and
// where it lives.
type Workload struct {
	Object    diag.Object // apiVersion, kind, name, namespace of the workload
	PodLabels map[string]string
	// Controllers the API server will create on the workload's behalf, as
	// group/resource pairs (for a Deployment: apps/replicasets, then pods).
	Creates []GroupResource
	// Containers are the pod template's init containers and containers:
	// what they run tells, for example, whether the workload writes its
	// webhook's caBundle itself.
	Containers []Container
	// Replicas is how many pods the workload keeps running: spec.replicas,
	// 1 when it is unset (ReplicasDefaulted) and for a Pod; 0 when it is
	// not a fixed number (a DaemonSet runs one per node, Jobs run to
	// completion, a value that is not a number).
	Replicas          int32
	ReplicasDefaulted bool
	// ReplicasFromValues is set when a chart template writes the replica
	// count from its values: the count is the rendered values', which the
	// user installing the chart chooses.
	ReplicasFromValues bool
	// ReplicasGivenBy is set instead when the value comes from what the
	// user gave the render (see Webhook.TimeoutGivenBy).
	ReplicasGivenBy string
	// Pod summarizes the pod template; nil when it could not be read.
	Pod *PodSummary
	// ServiceAccount is the pod template's serviceAccountName ("default"
	// when unset).
	ServiceAccount string
	// HelmTestHook is set on a Helm test hook (`helm.sh/hook: test`): it
	// runs only under `helm test`, and serves nothing.
	HelmTestHook bool
	// Secrets are the Secrets its pods cannot start without (secret
	// volumes and projected sources not marked optional): a backend's
	// serving certificate comes in one, and whatever makes that Secret
	// knows the CA.
	Secrets []string
}

// Role is a ClusterRole or Role: its rules that can apply to webhook
// configurations.
type Role struct {
	Kind, Namespace, Name string
	Rules                 []rbacv1.PolicyRule
	// Labels and Aggregates are a ClusterRole's: the controller manager
	// adds to a ClusterRole the rules of every ClusterRole its
	// aggregationRule selects by label.
	Labels     map[string]string
	Aggregates []metav1.LabelSelector
}

// RoleBinding is a ClusterRoleBinding or RoleBinding: the role it grants
// and to whom.
type RoleBinding struct {
	Kind, Namespace, Name string
	RoleRef               rbacv1.RoleRef
	Subjects              []rbacv1.Subject
}

// Container is what a pod template's container runs.
type Container struct {
	Image         string
	Command, Args []string
}

// GroupResource names a resource kind the way webhook rules do.
type GroupResource struct {
	Group, Resource string
}

// PodSummary is what the backend checks read from a pod template or a
// live pod: the ports each container declares, whether it has a readiness
// probe, and how the pods are spread. It is built by SummarizePod for both
// front ends, so files and a live cluster are judged alike.
type PodSummary struct {
	Containers []ContainerSummary
	// SpreadKeys are the topology keys of the podAntiAffinity terms and
	// topologySpreadConstraints that select the pod's own labels: the
	// ways its replicas are kept apart (kubernetes.io/hostname, a zone).
	SpreadKeys []string
}

// ContainerSummary is one container (or restartable init container, a
// sidecar that serves like any other) of a pod.
type ContainerSummary struct {
	Name      string
	Ports     []ContainerPort
	Readiness bool
}

// ContainerPort is a declared containerPort and its name.
type ContainerPort struct {
	Name string
	Port int32
}

// DisruptionBudget is a PodDisruptionBudget of the input: the pods it
// covers and how many of them a drain may evict.
type DisruptionBudget struct {
	Namespace, Name string
	Selector        *metav1.LabelSelector
	MinAvailable    *intstr.IntOrString
	MaxUnavailable  *intstr.IntOrString
}

// Autoscaler is a HorizontalPodAutoscaler of the input: the workload it
// scales and the fewest replicas it keeps (0: not a number).
type Autoscaler struct {
	Namespace, Name        string
	TargetKind, TargetName string
	MinReplicas            int32
	// MinReplicasFromValues is set when a chart template writes
	// minReplicas from its values: the installer's choice, judged as a
	// workload's replicas from values are.
	MinReplicasFromValues bool
	// MinReplicasGivenBy is set instead when the value comes from what
	// the user gave the render (see Webhook.TimeoutGivenBy).
	MinReplicasGivenBy string
}
