package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// UnresolvedReferenceRule is the name of the rule, for the packages that judge its findings.
const UnresolvedReferenceRule = "unresolved-reference"

func init() {
	register(&Rule{
		Name:     UnresolvedReferenceRule,
		Summary:  "clientConfig.service or cert-manager.io/inject-ca-from names an object the unit does not have, while a near match is there",
		Severity: diag.Warning,
		Category: Practice,
		// Names and namespaces are what an overlay rewrites.
		DependsOnOverlay: true,
		Since:            "0.3.0",
		Doc: Doc{
			Why: "The API server does not check that `clientConfig.service` names an existing Service; every call " +
				"fails later (`service \"...\" not found`): a fail-closed webhook rejects what it matches, a " +
				"fail-open one is silently skipped, a CRD's conversion webhook makes reads in other versions fail. " +
				"The usual cause is a rename the reference did not follow: a kustomize `namePrefix` or `namespace` " +
				"applied to the Service but not written into a patch, a Helm release name prefixed to the Service " +
				"but not to the webhook, a revision suffix (`istiod-canary`).\n\n" +
				"When the unit holds Services (so it is complete enough to tell) but not the one named, and a " +
				"Service with the same name in another namespace, or the same name with a prefix or suffix added, " +
				"is there, the rule names it. A rename to an unrelated name (`webhook-service` to " +
				"`webhook-server-service`) leaves no near match, but a Service nothing calls: when exactly one " +
				"ClusterIP Service of the unit has the port the reference calls, selects a workload of the unit and " +
				"is called by no webhook or conversion webhook (and the unit has no APIService, which calls Services " +
				"too), the rule names it; it looks in every namespace when the unit has nothing in the reference's, " +
				"as after a kustomize `namespace` that could not rewrite a reference to a Service it did not have. " +
				"Otherwise it stays silent: the Service may come from another install.\n\n" +
				"The same holds for `cert-manager.io/inject-ca-from: <namespace>/<certificate>` on a webhook " +
				"configuration or a CRD: when the unit has Certificates but not that one, and one with the same " +
				"name (or a prefixed name) is there, cert-manager injects nothing and the caBundle stays empty.\n\n" +
				"A near match in another file of a plain folder holds only if the folder's files are one install, " +
				"which `kubectl apply -f DIR` assumes but a folder of unrelated examples is not: unless " +
				"`units.folders` or `units.entries` names the folder, or a GitOps entry installs it, the finding " +
				"is info and names the other file (docs/sources.md, \"Plain folders\").",
			Fix: "Name the Service the unit installs (let kustomize's name reference rewrite it: put the webhook " +
				"configuration in the same kustomization as the Service, rather than patching the name in by hand).",
			Sources: []string{
				srcWebhookValidation,
				"https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/nameprefix/",
				"https://github.com/openkruise/kruise/issues/202",
				"https://github.com/projectcapsule/capsule/issues/321",
				"https://github.com/kubernetes-sigs/kernel-module-management/pull/769",
				docsCAInjector,
			},
		},
		Check:    checkUnresolvedReference,
		CheckCRD: checkUnresolvedConversionReference,
	})
}

func checkUnresolvedReference(p *Pass) {
	checkInjectCAFrom(p, p.Config.Meta.Annotations)
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		ref := w.ClientConfig.Service
		if ref == nil {
			continue
		}
		path := w.FieldPath("clientConfig", "service")
		if msg, at, s := nearServiceMatch(p.Input, ref.Namespace, ref.Name, serviceRefPort(ref), path); msg != "" {
			p.Emit(Finding{Path: PathString(at), AtKey: at == path, Message: quoteWebhook(w) + ": " + msg,
				Assumes: p.Input.Apart(p.Config, s)})
		}
	}
}

func checkUnresolvedConversionReference(p *Pass) {
	checkInjectCAFrom(p, p.CRD.Annotations)
	conv := p.CRD.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil ||
		conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil {
		return
	}
	ref := conv.Webhook.ClientConfig.Service
	path := conversionWebhookClient.Child("service")
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	if msg, at, s := nearServiceMatch(p.Input, ref.Namespace, ref.Name, port, path); msg != "" {
		p.Emit(Finding{Path: PathString(at), AtKey: at == path,
			Message: msg, // the header names the CRD
			Assumes: p.Input.Apart(p.CRD, s)})
	}
}

// nearServiceMatch says which Service of the unit is there instead of
// namespace/name, and where the fix goes, and returns that Service, or
// returns "" when the Service is there, the unit has no Services, or
// nothing is near.
func nearServiceMatch(in *Inventory, namespace, name string, port int32, path *field.Path) (string, *field.Path, *corev1.Service) {
	if in == nil || len(in.Services) == 0 || namespace == "" || name == "" {
		return "", nil, nil
	}
	if findBackend(in, &admissionv1.ServiceReference{Namespace: namespace, Name: name}).Service != nil {
		return "", nil, nil
	}
	// Near matches, best first: the same name elsewhere, a renamed
	// Service here, a renamed Service elsewhere (both rewritten, as by
	// kustomize's namespace and namePrefix).
	var renamed, moved *corev1.Service
	for _, s := range in.Services {
		if s == nil {
			continue
		}
		here := s.Namespace == namespace || s.Namespace == ""
		switch {
		case s.Name == name && !here:
			return fmt.Sprintf("no Service %q in the unit, but in namespace %q; set the namespace to it",
				namespace+"/"+name, s.Namespace), path.Child("namespace"), s
		case renamed == nil && here && nearName(s.Name, name):
			renamed = s
		case moved == nil && !here && nearName(s.Name, name):
			moved = s
		}
	}
	switch {
	case renamed != nil:
		return fmt.Sprintf("no Service %q in the unit; did you mean %q?",
			namespace+"/"+name, namespace+"/"+renamed.Name), path.Child("name"), renamed
	case moved != nil:
		return fmt.Sprintf("no Service %q in the unit; did you mean %q?",
			namespace+"/"+name, moved.Namespace+"/"+moved.Name), path, moved
	}
	if s, w := uncalledService(in, namespace, port); s != nil {
		at, there := path.Child("name"), namespace+"/"+s.Name
		if s.Namespace != namespace && s.Namespace != "" {
			at, there = path, s.Namespace+"/"+s.Name // both rewritten, as by kustomize
		}
		return fmt.Sprintf("no Service %q in the unit, but %q serves port %d to %s %q and nothing calls it (renamed?); name the Service installed",
			namespace+"/"+name, there, port, w.Object.Kind, w.Object.Name), at, s
	}
	return "", nil, nil
}

// uncalledService finds the one Service that looks like the renamed
// target of a dangling reference: a ClusterIP Service with the port the
// reference calls, whose selector selects a workload of the unit, and that
// no webhook or conversion webhook of the unit calls. A rename to a name
// unlike the old one (webhook-service to webhook-server-service) leaves
// exactly that; kustomize then rewrites neither the name nor the
// namespace of the reference, so when the unit has nothing in the
// reference's namespace the Service is looked for in every namespace.
// Two such Services, or an APIService in the unit (it calls Services the
// inventory does not follow), leave the reference unjudged.
func uncalledService(in *Inventory, namespace string, port int32) (*corev1.Service, *Workload) {
	for _, o := range in.Objects {
		if o.Kind == "APIService" {
			return nil, nil
		}
	}
	called := map[string]bool{}
	for k := range webhooksCalling(in).byService {
		called[k] = true
	}
	for _, crd := range in.CRDs {
		if c := crd.Spec.Conversion; c != nil && c.Webhook != nil && c.Webhook.ClientConfig != nil && c.Webhook.ClientConfig.Service != nil {
			ref := c.Webhook.ClientConfig.Service
			called[ref.Namespace+"/"+ref.Name] = true
		}
	}
	anywhere := !unitHasNamespace(in, namespace)
	var found *corev1.Service
	var serves *Workload
	for _, s := range in.Services {
		if s == nil || !anywhere && s.Namespace != namespace && s.Namespace != "" {
			continue
		}
		ns := s.Namespace
		if ns == "" {
			ns = namespace
		}
		if called[ns+"/"+s.Name] || s.Spec.Type != "" && s.Spec.Type != corev1.ServiceTypeClusterIP ||
			s.Spec.ClusterIP == corev1.ClusterIPNone || len(s.Spec.Selector) == 0 ||
			!slices.ContainsFunc(s.Spec.Ports, func(sp corev1.ServicePort) bool { return sp.Port == port }) {
			continue
		}
		b := findBackend(in, &admissionv1.ServiceReference{Namespace: ns, Name: s.Name})
		if b.Service != s || len(b.Workloads) == 0 {
			continue
		}
		if found != nil {
			return nil, nil // which one was meant is a guess
		}
		found, serves = s, &b.Workloads[0]
	}
	return found, serves
}

// unitHasNamespace reports whether a Service or workload of the unit is in
// namespace, or carries none (and so would be installed there).
func unitHasNamespace(in *Inventory, namespace string) bool {
	for _, s := range in.Services {
		if s != nil && (s.Namespace == namespace || s.Namespace == "") {
			return true
		}
	}
	for _, w := range in.Workloads {
		if w.Object.Namespace == namespace || w.Object.Namespace == "" {
			return true
		}
	}
	return false
}

// nearName reports whether one name is the other with a dash-separated
// prefix or suffix added (kustomize's namePrefix/nameSuffix, a Helm release
// name, a revision).
func nearName(a, b string) bool {
	if a == b {
		return false
	}
	long, short := a, b
	if len(b) > len(a) {
		long, short = b, a
	}
	return strings.HasPrefix(long, short+"-") || strings.HasSuffix(long, "-"+short)
}

// checkInjectCAFrom reports a cert-manager.io/inject-ca-from annotation
// naming a Certificate the unit does not have while the unit has
// Certificates (cert-manager then injects nothing, and the caBundle stays
// empty), naming the Certificate that is there instead.
func checkInjectCAFrom(p *Pass, annotations map[string]string) {
	v, ok := annotations[annotationInjectCAFrom]
	if !ok || len(p.Input.Certificates) == 0 {
		return
	}
	ns, name, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return // ca-bundle reports a malformed reference
	}
	var near *Certificate
	for i := range p.Input.Certificates {
		c := &p.Input.Certificates[i]
		if c.Name == name && (c.Namespace == ns || c.Namespace == "") {
			return
		}
		if near == nil && (c.Name == name || nearName(c.Name, name)) {
			near = c
		}
	}
	if near == nil || near.Namespace == "" && near.Name == name {
		return
	}
	there := near.Name
	if near.Namespace != "" {
		there = near.Namespace + "/" + near.Name
	}
	var obj any = p.Config
	if p.Config == nil {
		obj = p.CRD
	}
	p.Emit(Finding{Path: PathString(field.NewPath("metadata", "annotations").Key(annotationInjectCAFrom)),
		Message: fmt.Sprintf("no Certificate %q in the unit; did you mean %q?", ns+"/"+name, there),
		Assumes: p.Input.Apart(obj, near)})
}
