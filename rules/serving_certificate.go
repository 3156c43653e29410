package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/placeholder"
)

// ServingCertificateRule is the name of the rule, for the packages that judge its findings.
const ServingCertificateRule = "serving-certificate"

func init() {
	register(&Rule{
		Name:     ServingCertificateRule,
		Summary:  "the cert-manager Certificate injected as a webhook's CA is not issued for the Service the API server calls",
		Severity: diag.Warning,
		Category: Practice,
		// Names and namespaces are what an overlay rewrites.
		DependsOnOverlay: true,
		Since:            "0.3.0",
		Doc: Doc{
			Why: "The API server calls a service reference at `<service>.<namespace>.svc` and verifies the " +
				"backend's certificate for exactly that name. When the serving certificate comes from cert-manager " +
				"(`cert-manager.io/inject-ca-from: <namespace>/<certificate>` on the configuration or CRD, the " +
				"Certificate's Secret mounted by the backend), the Certificate's `spec.dnsNames` must list that name, " +
				"or a wildcard `*.<namespace>.svc` that covers it; otherwise every call fails with `x509: certificate " +
				"is valid for …, not <service>.<namespace>.svc`: a fail-closed webhook rejects what it matches, a " +
				"fail-open one is silently skipped, a conversion webhook fails reads in other versions. A name in " +
				"`commonName` alone does not help: Go, and so the API server, ignores the common name since Go 1.15 " +
				"(`x509: certificate relies on legacy Common Name field`). The usual cause is a rename the " +
				"Certificate did not follow: a Helm release name prefixed to the Service but written out by hand in " +
				"`dnsNames`, a kustomize `namePrefix` without the `SERVICE_NAME` replacement.\n\n" +
				"The rule judges only what the unit shows: the annotation, the Certificate it names (not a CA " +
				"certificate, whose names do not matter) and the Service the webhook calls must all be in the unit, " +
				"and names that are still placeholders (`$(SERVICE_NAME)`) are left alone. A chart's Service and " +
				"Certificate names usually follow the release name, so on a chart whose release name nobody gave, a " +
				"finding that goes away under another release name is info and says so.",
			Fix: "Add `<service>.<namespace>.svc` (and `<service>.<namespace>.svc.cluster.local` for in-cluster " +
				"clients) to the Certificate's `spec.dnsNames`, built from the same template or kustomize replacement " +
				"as the Service's name.",
			Sources: []string{
				srcWebhookClient,
				docsCAInjector,
				"https://cert-manager.io/docs/usage/certificate/",
				"https://go.dev/doc/go1.15#commonname",
				"https://github.com/zilliztech/milvus-operator/pull/513",
				"https://github.com/cert-manager/cert-manager/pull/2733",
			},
		},
		Check:    checkServingCertificate,
		CheckCRD: checkConversionServingCertificate,
	})
}

func checkServingCertificate(p *Pass) {
	cert, ok := injectedCertificate(p.Input, p.Config.Meta.Annotations)
	if !ok {
		return
	}
	reported := map[string]bool{}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		ref := w.ClientConfig.Service
		if ref == nil || ref.Name == "" || ref.Namespace == "" || reported[ref.Namespace+"/"+ref.Name] {
			continue
		}
		// One finding per Service: the cure is one edit of the Certificate.
		reported[ref.Namespace+"/"+ref.Name] = true
		if msg := uncoveredService(p.Input, cert, ref.Namespace, ref.Name); msg != "" {
			p.Emit(Finding{Path: w.FieldString("clientConfig", "service"), AtKey: true,
				Message: fmt.Sprintf("%s: %s; %s", quoteWebhook(w), msg, dnsNamesFix()),
				Cause:   certificateCause(cert)})
		}
	}
}

func checkConversionServingCertificate(p *Pass) {
	conv := p.CRD.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil ||
		conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil {
		return
	}
	cert, ok := injectedCertificate(p.Input, p.CRD.Annotations)
	if !ok {
		return
	}
	ref := conv.Webhook.ClientConfig.Service
	if ref.Name == "" || ref.Namespace == "" {
		return
	}
	if msg := uncoveredService(p.Input, cert, ref.Namespace, ref.Name); msg != "" {
		p.Emit(Finding{Path: PathString(conversionWebhookClient.Child("service")), AtKey: true,
			// The header names the CRD.
			Message: fmt.Sprintf("conversion webhook: %s; %s", msg, dnsNamesFix()),
			Cause:   certificateCause(cert)})
	}
}

// injectedCertificate is the Certificate of the unit that
// cert-manager.io/inject-ca-from names, when it is the serving certificate
// itself rather than a CA that signs it.
func injectedCertificate(in *Inventory, annotations map[string]string) (*Certificate, bool) {
	ns, name, ok := strings.Cut(strings.TrimSpace(annotations[annotationInjectCAFrom]), "/")
	if !ok || ns == "" || name == "" {
		return nil, false
	}
	for i := range in.Certificates {
		c := &in.Certificates[i]
		if c.Name == name && (c.Namespace == ns || c.Namespace == "") {
			if c.IsCA {
				return nil, false
			}
			if c.Namespace == "" {
				cc := *c
				cc.Namespace = ns // installed where the annotation says
				return &cc, true
			}
			return c, true
		}
	}
	return nil, false
}

// uncoveredService says how cert fails to name the Service
// namespace/name the API server verifies, or "" when it names it, the
// Service is not in the unit, or a name is still a placeholder.
func uncoveredService(in *Inventory, cert *Certificate, namespace, name string) string {
	if findBackend(in, &admissionv1.ServiceReference{Namespace: namespace, Name: name}).Service == nil {
		return "" // unresolved-reference's, or another install's
	}
	want := name + "." + namespace + ".svc"
	for _, n := range append([]string{cert.CommonName}, cert.DNSNames...) {
		if _, ok := placeholder.Find(n); ok {
			return ""
		}
	}
	for _, n := range cert.DNSNames {
		if coversHost(n, want) {
			return ""
		}
	}
	id := fmt.Sprintf("Certificate %q", cert.Name)
	switch {
	case len(cert.DNSNames) == 0 && coversHost(cert.CommonName, want):
		return fmt.Sprintf("%s names %s only as commonName, which the API server ignores", id, want)
	case len(cert.DNSNames) == 0:
		return "" // no names at all: cert-manager refuses it
	}
	return fmt.Sprintf("%s does not name %s, the host the API server checks (it names %s)",
		id, want, excerpt(hostsOf(cert.DNSNames), maxQuoted))
}

// hostsOf lists names by their first label, which is where a rename
// shows.
func hostsOf(names []string) string {
	var out []string
	for _, n := range names {
		first, _, _ := strings.Cut(n, ".")
		if !slices.Contains(out, first) {
			out = append(out, first)
		}
	}
	return strings.Join(out, ", ")
}

// coversHost reports whether a certificate name matches host as a TLS
// client checks it: equal ignoring case, or a wildcard for its first label.
func coversHost(pattern, host string) bool {
	pattern, host = strings.ToLower(strings.TrimSuffix(pattern, ".")), strings.ToLower(host)
	if pattern == host {
		return true
	}
	rest, ok := strings.CutPrefix(pattern, "*.")
	if !ok {
		return false
	}
	_, hostRest, ok := strings.Cut(host, ".")
	return ok && hostRest == rest
}

func dnsNamesFix() string {
	return "add it to dnsNames"
}

// certificateCause locates the finding at the Certificate's names, where
// the fix goes.
func certificateCause(c *Certificate) *Cause {
	path := "spec.dnsNames"
	if len(c.DNSNames) == 0 {
		path = "spec.commonName"
	}
	return &Cause{Object: diag.Object{APIVersion: "cert-manager.io/v1", Kind: "Certificate", Namespace: c.Namespace, Name: c.Name}, Path: path}
}
