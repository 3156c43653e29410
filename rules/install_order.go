package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/webhooklint/webhooklint/diag"
)

// InstallOrderRule is the name of the rule, for the packages that judge its findings.
const InstallOrderRule = "install-order"

func init() {
	register(&Rule{
		Name:     InstallOrderRule,
		Summary:  "a fail-closed webhook rejects objects its own install creates before its backend is ready",
		Severity: diag.Warning,
		Category: Practice,
		// The backend's namespace and the selectors are what an overlay sets.
		DependsOnOverlay: true,
		Since:            "0.3.0",
		Doc: Doc{
			Why: "An install creates its objects one after the other without waiting for any to become ready: " +
				"`kubectl apply` in the order of the documents, Helm in its own order of kinds (`InstallOrder`: " +
				"Namespaces, RBAC, Services and workloads first, then webhook configurations, then every kind it " +
				"does not list, custom resources among them), and `helm install --wait` waits only once all are " +
				"created. When the install registers a webhook that fails closed and is served by a Deployment " +
				"of the same install, and then creates an object the webhook intercepts, the API server calls the " +
				"webhook before its pods are up and rejects the object (`failed calling webhook ... connection " +
				"refused` or `no endpoints available for service`): the first install fails, and so does every " +
				"upgrade that recreates the object while the backend's pods are replaced. cert-manager's chart " +
				"and a ClusterIssuer in the same release are the classic case. webhooklint simulates the " +
				"creation of each object that comes after the webhook configuration (in a rendered chart, of " +
				"each kind Helm creates after it) against the webhook's rules, scope and selectors, and reports " +
				"the webhook when one is certainly called, naming the first object. Objects and configurations with a " +
				"`helm.sh/hook` annotation are left out (Helm creates them apart from the release's objects), " +
				"and so are the backend's own Service and workloads and a webhook that already blocks its backend " +
				"(self-deadlock). A kustomize build is not compared: `kubectl apply -k` creates webhook " +
				"configurations last. In a plain folder only the objects of the webhook's own file count: " +
				"`kubectl apply -f DIR` goes by file name, in a folder only assumed to be one install.",
			Fix: "Create the object once the backend is ready: in a later release or Flux Kustomization " +
				"(`dependsOn` with `wait: true`), or as a `post-install,post-upgrade` Helm hook with " +
				"`helm install --wait`. Or exclude it from the webhook with an `objectSelector`, or fail open " +
				"(`failurePolicy: Ignore`).",
			Sources: []string{
				"https://cert-manager.io/docs/troubleshooting/webhook/",
				"https://github.com/apecloud/kubeblocks/issues/1928",
				"https://github.com/helm/helm/blob/main/pkg/release/v1/util/kind_sorter.go",
				"https://helm.sh/docs/topics/charts_hooks/",
				docsWebhooks + "#failure-policy",
			},
		},
		Check: checkInstallOrder,
	})
}

// HelmInstallOrder are the kinds Helm creates first, in this order
// (helm.sh/helm/v4 pkg/release/v1/util.InstallOrder); every other kind
// comes after them.
var HelmInstallOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole",
	"ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding",
	"RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
	"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
}

func checkInstallOrder(p *Pass) {
	in := p.Input
	if in == nil || in.Live != nil || p.Config == nil {
		return
	}
	ci := in.configIndex(p.Config)
	if ci < 0 || in.KustomizeBuild || p.Config.Meta.Annotations["helm.sh/hook"] != "" {
		// kubectl apply -k creates webhook configurations last
		// (kustomize's legacy order); Helm registers a hook's apart.
		return
	}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		ref := w.ClientConfig.Service
		if !w.FailsClosed() || ref == nil || ref.Namespace == "" {
			continue
		}
		// The backend starts with the install only when it is part of it.
		b := findBackend(in, ref)
		if b.Service == nil || len(b.Workloads) == 0 || selfDeadlocks(p, w) {
			continue
		}
		sim := w.Simulator()
		var blocked []string
		for _, k := range objectsBeside(in, p.Config) {
			o := &in.Objects[k]
			if o.HelmHook || !createdAfter(in, ci, o) || isBackend(b, o) {
				continue
			}
			req := createRequests(in)[k]
			if req == nil || (req.NamespaceLabels != nil && o.Namespace == "") ||
				NeverSentToWebhooks(req.Group, req.Resource, p.Settings.KubeVersion) != "" {
				// A namespaced object without a namespace goes where
				// whoever applies it says.
				continue
			}
			if sim.Simulate(req).Outcome != Called {
				continue
			}
			name := o.Name
			if o.Namespace != "" {
				name = o.Namespace + "/" + name
			}
			blocked = append(blocked, fmt.Sprintf("%s %q", o.Kind, name))
		}
		if len(blocked) == 0 {
			continue
		}
		// At the webhook: one finding for all the objects, and its
		// failurePolicy or objectSelector is one of the fixes.
		path := w.FieldPath("name")
		if w.FailurePolicy != nil {
			path = w.FieldPath("failurePolicy")
		}
		verb, them := "is", "it"
		if len(blocked) > 1 {
			verb, them = "are", "them"
		}
		// The ways to create them later are the doc's: the line stays short.
		p.Emit(Finding{Path: PathString(path), Message: fmt.Sprintf(
			"blocks its install: %s %s created before the backend is up; create %s later or fail open",
			listNames(blocked, 1), verb, them)})
	}
}

// objectsBeside are the indexes of the unit's objects an install of c
// creates, in the unit's order: on a folder only assumed one install, only
// those of c's own file (kubectl applies a folder's files by name, and that
// the folder is one install is itself assumed: too loose). They are
// indexed by file once per unit: a folder of thousands of files would
// otherwise compare every object with every webhook.
func objectsBeside(in *Inventory, c *Config) []int {
	type key struct{}
	byFile := in.Derived(key{}, func() any {
		m := map[string][]int{}
		for k := range in.Objects {
			file := ""
			if in.Loose != nil {
				file = in.Objects[k].File
			}
			m[file] = append(m[file], k)
		}
		return m
	}).(map[string][]int)
	if in.Loose == nil {
		return byFile[""]
	}
	return byFile[in.files[c]]
}

// isBackend reports whether o is the backend's Service or one of its
// workloads: what blocks those is self-deadlock's and gitops-order's.
func isBackend(b backend, o *ObjectRef) bool {
	if o.Kind == "Service" && o.Name == b.Service.Name && (o.Namespace == b.Namespace || o.Namespace == "") {
		return true
	}
	for _, w := range b.Workloads {
		if w.Object.Kind == o.Kind && w.Object.Name == o.Name && w.Object.Namespace == o.Namespace {
			return true
		}
	}
	return false
}

// createdAfter reports whether the install creates o after the
// configuration at index ci of the unit: in a rendered chart, by Helm's
// order of kinds; otherwise by the order of the documents.
func createdAfter(in *Inventory, ci int, o *ObjectRef) bool {
	if in.HelmRelease {
		return !slices.Contains(HelmInstallOrder, o.Kind)
	}
	return o.AfterConfigs > ci
}

// createRequests are the requests creating each object of the unit
// makes (CreateRequest; nil where its resource is not known), made once
// per unit: every fail-closed webhook of every configuration asks them.
func createRequests(in *Inventory) []*Request {
	type key struct{}
	return in.Derived(key{}, func() any {
		reqs := make([]*Request, len(in.Objects))
		for k := range in.Objects {
			if req, ok := CreateRequest(in, &in.Objects[k]); ok {
				reqs[k] = req
			}
		}
		return reqs
	}).([]*Request)
}

// CreateRequest is the request creating o makes, or false when o's
// resource is not known: a kind of no CRD the unit has, or a built-in
// kind at a version the table of built-in resources does not list for it
// (apps/v1beta1 Deployments: the apply fails, so no webhook is called; a
// removed legacy version the table keeps, extensions/v1beta1 Ingresses,
// still counts, as for every rule that reads the table). A namespaced
// object without a namespace is created in "": the caller decides.
func CreateRequest(in *Inventory, o *ObjectRef) (*Request, bool) {
	group, version, found := strings.Cut(o.APIVersion, "/")
	if !found {
		group, version = "", o.APIVersion
	}
	resource, namespaced, ok := resourceOfKind(in, schema.GroupVersion{Group: group, Version: version}, o.Kind)
	if !ok {
		return nil, false
	}
	req := &Request{
		Operation: admissionv1.Create, Group: group, Version: version, Resource: resource,
		Name: o.Name, Object: KnownLabels(o.Labels),
	}
	if namespaced {
		req.Namespace = o.Namespace
		req.NamespaceLabels = in.AssumedNamespaceLabels(req.Namespace)
	}
	return req, true
}

// resourceOfKind is the plural resource of a built-in kind at a version
// the table lists for it, or of a CRD of the unit, and whether it is
// namespaced.
func resourceOfKind(in *Inventory, gv schema.GroupVersion, kind string) (string, bool, bool) {
	for _, b := range BuiltinResources() {
		if b.Group == gv.Group && b.Kind == kind && b.Subresource == "" && slices.Contains(b.Versions, gv.Version) {
			return b.Resource, b.Namespaced, true
		}
	}
	for _, crd := range in.CRDs {
		if crd.Spec.Group == gv.Group && crd.Spec.Names.Kind == kind {
			return crd.Spec.Names.Plural, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, true
		}
	}
	return "", false, false
}
