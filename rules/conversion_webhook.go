package rules

import (
	"bytes"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// v1 paths of a conversion webhook's client, where findings on what the
// server accepts go.
var conversionWebhookClient = field.NewPath("spec", "conversion", "webhook", "clientConfig")

// ConversionWebhookRule is the name of the rule, for the packages that judge its findings.
const ConversionWebhookRule = "conversion-webhook"

func init() {
	register(&Rule{
		Name:     ConversionWebhookRule,
		Summary:  "a CRD's versions are not converted, or its conversion webhook has a caBundle or a backend that makes reads and writes of its custom resources fail",
		Severity: diag.Warning,
		Category: Practice,
		// The backend's namespace, the Service, replicas and CA injection
		// are what a kustomize overlay sets.
		DependsOnOverlay: true,
		Since:            "0.3.0",
		Doc: Doc{
			Why: "A CustomResourceDefinition with `conversion.strategy: Webhook` and more than one version has the " +
				"API server call its webhook whenever an object is read or written in a version other than the " +
				"one stored: `kubectl get` of the other version, every watch and list by a controller that uses it, " +
				"garbage collection and namespace deletion. When the call fails, so does the request, whatever the " +
				"client; there is no failure policy to fail open. The webhook is a webhook client like an admission " +
				"webhook, with the same failure modes:\n\n" +
				"- a `caBundle` that does not verify the serving certificate (expired, not yet valid, not a CA, " +
				"not PEM) fails every call (`x509: certificate has expired or is not yet valid`); a caBundle the " +
				"server cannot parse at all keeps it from serving the resource even for requests that need no " +
				"conversion (kubernetes/kubernetes#123835);\n" +
				"- an empty `caBundle` without CA injection (`cert-manager.io/inject-ca-from`) makes the server " +
				"trust only its system roots, so calls to an in-cluster Service fail; controllers that write the " +
				"caBundle themselves at runtime exist (Knative, some operators), which the input may not show, so " +
				"this is info, and none when the input shows such a writer: a workload of the backend's namespace " +
				"that RBAC lets update or patch the CRD (a ClusterRole, or one aggregating it, that names " +
				"`apiextensions.k8s.io` `customresourcedefinitions` as written, for every CRD or with this one among " +
				"its `resourceNames`; not a `*` grant, which any GitOps controller has), as Knative Serving's webhook is " +
				"(https://github.com/knative/serving/blob/41a3ae714a56b7a2bcd09e372ec8f3a02c753e0b/config/core/200-roles/clusterrole.yaml), " +
				"or a backend image known to write it;\n" +
				"- a backend with one replica leaves the custom resources unreadable in their other versions while " +
				"its pod restarts or a node drains. One replica is judged as backend-availability judges it, " +
				"whatever carries the count: a warning when the manifest writes it (`replicas`, an autoscaler's " +
				"`minReplicas`, or `replicas` unset, or a value given to the render such as `--set replicas=1`), " +
				"info when a chart's default value decides it (the installer's choice).\n\n" +
				"A CRD with a single version never calls its conversion webhook, so none of this applies there.\n\n" +
				"Without a conversion webhook (`strategy: None`, the default) the server converts only by rewriting " +
				"`apiVersion`, and then prunes what the requested version's schema does not have. When two served " +
				"versions' schemas differ, a field only one of them has is lost whenever a client writes the object " +
				"through the other (info: a project may accept that for a deprecated version), and a field whose type " +
				"changed reaches clients of the other version in a shape they cannot decode (a warning). The usual " +
				"cause is kubebuilder's conversion patch (`patches/webhook_in_<plural>.yaml`) left out of " +
				"`config/crd/kustomization.yaml`. Metadata and fields under `x-kubernetes-preserve-unknown-fields` are " +
				"not compared.",
			Fix: "Add the conversion webhook (or stop serving the old version) when served versions differ. " +
				"Let cert-manager inject the CA (`cert-manager.io/inject-ca-from: <namespace>/<certificate>`) " +
				"and drop the hard-coded caBundle, or renew it; run the conversion webhook's backend with 2 or " +
				"more replicas and a PodDisruptionBudget.",
			Sources: []string{
				docsCRDConversion,
				docsCAInjector,
				"https://github.com/kubernetes/kubernetes/issues/123835",
				issueExpiredCA,
				"https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#specify-multiple-versions",
			},
		},
		Options: []Option{{
			Name:    "expiry-days",
			Doc:     "warn when a CA certificate in the conversion webhook's caBundle expires within this many days",
			Default: 30,
		}},
		CheckCRD: checkConversionWebhook,
	})
}

func checkConversionWebhook(p *Pass) {
	crd := p.CRD
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy == apiextensionsv1.NoneConverter {
		checkUnconvertedVersions(p)
		return
	}
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return
	}
	if len(crd.Spec.Versions) < 2 {
		return // nothing to convert between: the webhook is never called
	}
	cc := conv.Webhook.ClientConfig
	// The report's header names the CRD.
	what := "conversion webhook"
	bundle := bytes.TrimSpace(cc.CABundle)
	injector := crdCAInjector(crd)
	switch {
	case injector != "" || (len(bundle) == 0 && cc.URL != nil):
		// Injected, or a URL whose certificate the system roots may verify.
	case len(bundle) == 0:
		if cc.Service != nil && !writesOwnCABundle(p.Input, cc.Service) && !crdCAWriter(p.Input, crd.Name, cc.Service.Namespace) {
			p.Emit(Finding{Severity: diag.Info, Path: PathString(conversionWebhookClient.Child("service")), AtKey: true, DependsOnOverlay: true,
				Message: what + ": empty caBundle and no CA injector; annotate cert-manager.io/inject-ca-from or set caBundle"})
		}
	default:
		for _, problem := range bundleContentProblems(p, bundle) {
			p.Emit(Finding{Path: PathString(conversionWebhookClient.Child("caBundle")),
				Message: what + ": " + problem})
		}
	}
	if ref := cc.Service; ref != nil && ref.Name != "" && ref.Namespace != "" {
		checkConversionBackend(p, what, &admissionv1.ServiceReference{Namespace: ref.Namespace, Name: ref.Name, Path: ref.Path, Port: ref.Port})
	}
}

// checkUnconvertedVersions reports served versions whose schemas differ
// while strategy None converts nothing: the kubebuilder conversion patch
// left out of config/crd/kustomization.yaml.
func checkUnconvertedVersions(p *Pass) {
	a, b, fields, retyped := unconvertedFields(p.CRD)
	if len(fields) == 0 {
		return
	}
	path := "spec.versions"
	if p.CRD.Spec.Conversion != nil {
		path = "spec.conversion"
	}
	// A field of another type breaks every client reading the other
	// version; fields one version lacks are lost only when a client
	// writes through it, which a project may accept for a deprecated
	// version.
	sev, what := diag.Info, "prunes"
	if retyped {
		sev, what = diag.Warning, "mistypes or prunes"
	}
	p.Emit(Finding{Severity: sev, Path: path, AtKey: true, Message: fmt.Sprintf("versions %s and %s differ in %s, which "+
		"strategy None %s; add a conversion webhook", a, b, listNames(fields, 1), what)})
}

// writesOwnCABundle reports whether the Service's pods run a backend known
// to write the caBundle of the CRDs it converts at runtime (the
// certManagingImages of ca-bundle: Kueue's internal certificates,
// MetalLB's and Gatekeeper's cert-controller).
func writesOwnCABundle(in *Inventory, ref *apiextensionsv1.ServiceReference) bool {
	for _, wl := range findBackend(in, &admissionv1.ServiceReference{Namespace: ref.Namespace, Name: ref.Name}).Workloads {
		for _, c := range wl.Containers {
			for _, m := range certManagingImages {
				if imageRepository(c.Image, m.repository) && (m.disabledBy == "" || !hasFlag(c, m.disabledBy)) {
					return true
				}
			}
		}
	}
	return false
}

// crdCAWriter reports whether a workload of the backend's namespace (an
// operator's controller, or the webhook itself, as Knative's writes the
// caBundle of the CRDs it converts) may update or patch the CRD by RBAC:
// the grant every such controller needs. A workload of another namespace
// may be another project's, in the same folder.
func crdCAWriter(in *Inventory, crd, namespace string) bool {
	for i := range in.Workloads {
		wl := &in.Workloads[i]
		if (wl.Object.Namespace == namespace || wl.Object.Namespace == "") && mayWriteCRD(in, wl, crd) {
			return true
		}
	}
	return false
}

// checkConversionBackend reports a conversion webhook served by one pod,
// once per backend: the CRDs of one project share it, and the fix (more
// replicas) is one edit.
func checkConversionBackend(p *Pass, what string, ref *admissionv1.ServiceReference) {
	bp := servingPods(p.Input, ref)
	if bp.Service == nil || len(bp.Groups) != 1 {
		return // not in the input, or several workloads: nothing certain
	}
	sharing := conversionCRDsOf(p.Input, ref.Namespace, ref.Name)
	if len(sharing) == 0 || sharing[0] != p.CRD || servesFailClosedWebhook(p.Input, ref) {
		return
	}
	if len(sharing) > 1 {
		what = fmt.Sprintf("conversion webhook of %d CRDs", len(sharing)) // the header names this one
	}
	g := bp.Groups[0]
	if g.Replicas != 1 {
		return
	}
	sev := p.rule.Severity
	why := "1 replica"
	// One level per gap, whatever carries the count (backend-availability's
	// table): a chart value is the installer's choice, autoscaler or not.
	switch {
	case g.Autoscaler != "" && g.FromValues:
		why, sev = fmt.Sprintf("1 replica (HorizontalPodAutoscaler %q minReplicas, chart value)", g.Autoscaler), diag.Info
	case g.Autoscaler != "" && g.GivenBy != "":
		why = fmt.Sprintf("1 replica (HorizontalPodAutoscaler %q minReplicas, %s)", g.Autoscaler, g.GivenBy)
	case g.Autoscaler != "":
		why = fmt.Sprintf("1 replica (HorizontalPodAutoscaler %q minReplicas)", g.Autoscaler)
	case g.FromValues:
		why, sev = "1 replica (chart value)", diag.Info
	case g.GivenBy != "":
		why = "1 replica (" + g.GivenBy + ")"
	case g.Defaulted:
		why = "1 replica (replicas unset)"
	}
	// On the service key: the CRD's reference to the backend.
	p.Emit(Finding{Severity: sev, Path: PathString(conversionWebhookClient.Child("service")), AtKey: true, DependsOnOverlay: true,
		Message: fmt.Sprintf("%s: its backend %s has %s; run 2+ replicas", what, g.Who, why)})
}

// crdCAInjector is the first CA injector annotation a CRD carries, as
// caInjectorOf finds them on webhook configurations (cert-manager's
// cainjector also injects into CRD conversion webhooks).
func crdCAInjector(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, inj := range caInjectors {
		v, ok := crd.Annotations[inj.annotation]
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch inj.annotation {
		case "cert-manager.io/inject-ca-from", "cert-manager.io/inject-ca-from-secret":
			if ns, name, ok := strings.Cut(v, "/"); ok && ns != "" && name != "" {
				return inj.annotation
			}
		default:
			if v == "true" {
				return inj.annotation
			}
		}
	}
	return ""
}

// conversionCRDsOf lists, once per unit, the multi-version CRDs of the
// input whose conversion webhook is the Service namespace/name.
func conversionCRDsOf(in *Inventory, namespace, name string) []*apiextensionsv1.CustomResourceDefinition {
	type key struct{ namespace, name string }
	return in.Derived(key{namespace, name}, func() any {
		var out []*apiextensionsv1.CustomResourceDefinition
		for _, crd := range in.CRDs {
			conv := crd.Spec.Conversion
			if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil ||
				conv.Webhook.ClientConfig == nil || len(crd.Spec.Versions) < 2 {
				continue
			}
			if s := conv.Webhook.ClientConfig.Service; s != nil && s.Namespace == namespace && s.Name == name {
				out = append(out, crd)
			}
		}
		return out
	}).([]*apiextensionsv1.CustomResourceDefinition)
}

// servesFailClosedWebhook reports whether the Service also serves a
// fail-closed admission webhook of the unit: backend-availability then
// reports its replicas (one cause, one finding).
func servesFailClosedWebhook(in *Inventory, ref *admissionv1.ServiceReference) bool {
	for _, c := range in.Configs {
		for i := range c.Webhooks {
			w := &c.Webhooks[i]
			if s := w.ClientConfig.Service; s != nil && s.Namespace == ref.Namespace && s.Name == ref.Name && w.FailsClosed() {
				return true
			}
		}
	}
	return false
}
