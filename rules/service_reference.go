package rules

import (
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "service-reference",
		Summary:  "clientConfig.service names a Service or namespace that cannot exist",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server only checks that `clientConfig.service.name` and `.namespace` are not empty. " +
				"A Service name must be a DNS-1035 label and a namespace name a DNS-1123 label; a reference " +
				"that is neither (upper case, underscores, dots, too long) can never resolve to a Service, so " +
				"every call to the webhook fails: requests are rejected with failurePolicy Fail, and the " +
				"webhook is silently skipped with Ignore.",
			Bad: "apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: policy\n" +
				"webhooks:\n" +
				"- name: check.policy.example.com\n" +
				"  clientConfig:\n" +
				"    service: {name: Policy_Webhook, namespace: policy}\n" +
				"  rules:\n" +
				"  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}\n" +
				"  sideEffects: None\n" +
				"  admissionReviewVersions: [v1]\n",
			Good: "apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: policy\n" +
				"webhooks:\n" +
				"- name: check.policy.example.com\n" +
				"  clientConfig:\n" +
				"    service: {name: policy-webhook, namespace: policy}\n" +
				"  rules:\n" +
				"  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}\n" +
				"  sideEffects: None\n" +
				"  admissionReviewVersions: [v1]\n",
			Fix: "Use the exact name and namespace of the Service in front of the webhook server.",
			Sources: []string{
				docsNames + "#rfc-1035-label-names",
				srcWebhookValidation,
				srcWebhookClient,
			},
		},
		Check: checkServiceReference,
	})
}

func checkServiceReference(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		svc := w.ClientConfig.Service
		if svc == nil {
			continue
		}
		path := w.Path().Child("clientConfig", "service")
		// Empty values are the server's Required errors.
		if svc.Name != "" && len(validation.IsDNS1035Label(svc.Name)) > 0 {
			p.Reportf(path.Child("name"), "%s: service name %q is not a DNS-1035 label, so no Service has it and "+
				"every call fails; use the name of the Service in front of the webhook", quoteWebhook(w), excerpt(svc.Name, maxQuoted))
		}
		if svc.Namespace != "" && len(validation.IsDNS1123Label(svc.Namespace)) > 0 {
			p.Reportf(path.Child("namespace"), "%s: service namespace %q is not a DNS-1123 label, so no namespace "+
				"has it and every call fails; use the Service's namespace", quoteWebhook(w), excerpt(svc.Namespace, maxQuoted))
		}
	}
}
