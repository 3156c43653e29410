package rules

import (
	"bytes"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// openShiftInjector is the annotation OpenShift's service-ca operator
// fills caBundle from.
const openShiftInjector = "service.beta.openshift.io/inject-cabundle"

var _ = register(&Rule{
	Name:     "provider-ca-injector",
	Summary:  "caBundle is left to OpenShift's service-ca operator on a platform that has none (--provider gke, eks, aks)",
	Severity: diag.Warning,
	Category: Practice,
	Since:    "0.2.0",
	Doc: Doc{
		Why: "On OpenShift the service-ca operator fills `clientConfig.caBundle` of every webhook in a " +
			"configuration annotated `service.beta.openshift.io/inject-cabundle: \"true\"`, so an empty caBundle " +
			"there is expected, and `ca-bundle` accepts it on every platform since it cannot tell where the " +
			"manifest goes. Other platforms have no service-ca operator: nothing reads the annotation, caBundle " +
			"stays empty, the API server verifies the webhook's certificate against its system roots, and every " +
			"call fails (`x509: certificate signed by unknown authority`) — requests are rejected with " +
			"`failurePolicy: Fail`, the webhook is skipped with `Ignore`. With `--provider gke`, `eks` or `aks` " +
			"this rule reports configurations that rely on the annotation alone; with `openshift` and `generic` " +
			"it is silent.",
		Fix: "Outside OpenShift, let cert-manager's cainjector fill caBundle (`cert-manager.io/inject-ca-from`), " +
			"have the webhook server write its own CA into the configuration, or set caBundle in the manifest.",
		Sources: []string{
			"https://github.com/openshift/service-ca-operator",
			"https://access.redhat.com/documentation/en-us/openshift_container_platform/4.5/html/security/add-service-certificate-mutating-webhook_service-serving-certificate",
			"https://cert-manager.io/docs/concepts/ca-injector/",
			"https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#contacting-the-webhook",
		},
	},
	Check: checkProviderCAInjector,
})

func checkProviderCAInjector(p *Pass) {
	switch p.provider() {
	case GKE, EKS, AKS:
	default:
		return
	}
	ann := p.Config.Meta.Annotations
	if strings.TrimSpace(ann[openShiftInjector]) != "true" {
		return
	}
	for _, inj := range caInjectors {
		if inj.annotation != openShiftInjector && ann[inj.annotation] != "" {
			return // another injector fills it in
		}
	}
	var empty []string
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if w.ClientConfig.Service != nil && len(bytes.TrimSpace(w.ClientConfig.CABundle)) == 0 {
			empty = append(empty, quoteWebhook(w))
		}
	}
	if len(empty) == 0 {
		return
	}
	p.Reportf(field.NewPath("metadata", "annotations").Key(openShiftInjector), "%s has no service-ca operator for this "+
		"annotation: caBundle of %s stays empty and every call fails (x509: unknown authority); "+
		"use cert-manager.io/inject-ca-from or set caBundle", p.provider().Name(), listNames(empty, 2))
}
