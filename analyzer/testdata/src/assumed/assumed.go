// Package assumed builds webhooks whose Service is not in the package:
// the markers generate controller-gen's config/webhook, a part of what
// config/default installs with the Service; the literal is what the code
// registers, applied as written.
package assumed

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// want +1 `^info: blocks its backend: pods \(Service not in the input\); exclude namespace "hooks-system" or fail open \[self-deadlock\]$` `^info: fails closed on kube-system pods; exclude kube-\* namespaces, or fail open \[system-critical-scope\]$`
// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create;update,versions=v1,name=mpod.hooks.example.com,admissionReviewVersions=v1,serviceName=hooks,serviceNamespace=hooks-system

// Register returns the configuration the operator creates at start-up,
// with the CA it made.
func Register(caBundle []byte) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "hooks"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "vpod.hooks.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service:  &admissionregistrationv1.ServiceReference{Namespace: "hooks-system", Name: "hooks", Path: ptr.To("/validate")},
				CABundle: caBundle,
			},
			// want +1 `^warning: fails closed on kube-system pods; exclude kube-\* namespaces, or fail open \[system-critical-scope\]$` `^warning: blocks its backend: pods \(Service not in the input\); exclude namespace "hooks-system" or fail open \[self-deadlock\]$`
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To[int32](5),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}
