// Package webhookconfig registers a webhook configuration at start-up,
// as operators that manage their own webhooks do.
package webhookconfig

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Configuration returns the validating webhook configuration to install;
// the CA bundle is only known at run time.
func Configuration(caBundle []byte) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "guestbook-validating"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "vconfigmap.guestbook.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{
					Namespace: "guestbook-system", Name: "guestbook-webhook", Path: ptr.To("/validate-configmap"),
				},
				CABundle: caBundle,
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"},
				},
			}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassSome),
			TimeoutSeconds:          ptr.To[int32](45),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}
