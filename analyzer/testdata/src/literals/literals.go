// Package literals builds webhook configurations in Go.
package literals

import (
	"fmt"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const hookName = "vpod.example.com"

var ignore = admissionregistrationv1.Ignore

// Complete: every value is a constant, so every rule can judge it.
func complete() *admissionregistrationv1.ValidatingWebhookConfiguration {
	none := admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}, // want `configuration name "Bad_Name" is not a DNS subdomain`
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:          hookName,
			FailurePolicy: &ignore, // want `failurePolicy Ignore lets requests through`
			SideEffects:   &none,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Name: "svc", Namespace: "ns", Path: ptr.To("/validate")},
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Connect}, // want `operation "CONNECT" is not allowed here`
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
				},
			}},
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          new(int32(5)),
		}},
	}
}

// A webhook on its own, missing sideEffects: the literal is complete and
// returned as is, so the missing field is judged.
func missingSideEffects() admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{ // want `sideEffects is required`
		Name:                    "mpod.example.com",
		FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
		TimeoutSeconds:          ptr.To[int32](25), // want `timeout 25s on a fail-closed webhook`
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/mutate")},
		AdmissionReviewVersions: []string{"v1"},
		NamespaceSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"a"}, // want `namespaceSelector opts out with NotIn`
			}},
		},
	}
}

// The same literal, but sideEffects is set afterwards: no guess.
func setLater() admissionregistrationv1.MutatingWebhook {
	wh := admissionregistrationv1.MutatingWebhook{
		Name:                    "mlater.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/mutate")},
		AdmissionReviewVersions: []string{"v1"},
	}
	none := admissionregistrationv1.SideEffectClassNone
	wh.SideEffects = &none
	return wh
}

// A value known only at run time hides the findings that depend on it.
func runtimeValues(policy admissionregistrationv1.FailurePolicyType, timeout int32) []admissionregistrationv1.ValidatingWebhook {
	return []admissionregistrationv1.ValidatingWebhook{
		{
			// failurePolicy unknown: rules that reason across fields would judge
			// the default, so this webhook is not judged at all.
			Name:          "vruntime.example.com",
			FailurePolicy: &policy,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Connect},
			}},
		},
		{
			// Only the name is unknown: findings elsewhere still count,
			// but the missing sideEffects is not judged (the literal is
			// not complete).
			Name:          fmt.Sprintf("v%s.example.com", os.Getenv("X")),
			FailurePolicy: ptr.To(admissionregistrationv1.Ignore), // want `failurePolicy Ignore lets requests through`
		},
		{
			// An unknown timeout is as bad as an unknown failurePolicy.
			Name:           "vtimeout.example.com",
			FailurePolicy:  ptr.To(admissionregistrationv1.Ignore),
			TimeoutSeconds: ptr.To(timeout),
		},
	}
}

// A variable assigned twice is not a constant.
func reassigned(debug bool) admissionregistrationv1.ValidatingWebhook {
	policy := admissionregistrationv1.Ignore
	if !debug {
		policy = admissionregistrationv1.Fail
	}
	none := admissionregistrationv1.SideEffectClassNone
	return admissionregistrationv1.ValidatingWebhook{
		Name:                    "vreassigned.example.com",
		FailurePolicy:           &policy,
		SideEffects:             &none,
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		AdmissionReviewVersions: []string{"v1"},
	}
}

// Literals inside calls the evaluator does not follow are judged alone.
func appended(base []admissionregistrationv1.ValidatingWebhook) *admissionregistrationv1.ValidatingWebhookConfiguration {
	none := admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "appended"},
		Webhooks: append(base, admissionregistrationv1.ValidatingWebhook{
			Name:                    "vappended.example.com",
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore), // want `failurePolicy Ignore lets requests through`
			SideEffects:             &none,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
			AdmissionReviewVersions: []string{"v1"},
		}),
	}
}

// A rule without resources, inside an inlined Rule: judged on the element,
// because everything around it is known. The same with the Rule coming
// from elsewhere is not judged, and a webhook with an unknown rule is not
// judged at all.
func rulesWithoutResources(shared admissionregistrationv1.Rule) []admissionregistrationv1.ValidatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	return []admissionregistrationv1.ValidatingWebhook{
		{
			Name:                    "vnoresources.example.com",
			SideEffects:             &none,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
			AdmissionReviewVersions: []string{"v1"},
			Rules: []admissionregistrationv1.RuleWithOperations{{ // want `resources is required`
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}},
			}},
		},
		{
			Name:                    "vshared.example.com",
			SideEffects:             &none,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
			AdmissionReviewVersions: []string{"v1"},
			Rules: []admissionregistrationv1.RuleWithOperations{
				{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}},
				},
				{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       shared,
				},
			},
		},
	}
}

// Only the CA bundle is set afterwards: findings on the other fields still
// count, but not those on fields the literal lacks (sideEffects here).
func caInjectedLater(ca []byte) *admissionregistrationv1.ValidatingWebhookConfiguration {
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "injected"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "vinjected.example.com",
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore), // want `failurePolicy Ignore lets requests through`
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	cfg.Webhooks[0].ClientConfig.CABundle = ca
	return cfg
}

// failurePolicy is overwritten afterwards: the literal says nothing
// reliable about the webhook.
func policyOverwritten(strict bool) admissionregistrationv1.ValidatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	wh := admissionregistrationv1.ValidatingWebhook{
		Name:                    "voverwritten.example.com",
		FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
		SideEffects:             &none,
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		AdmissionReviewVersions: []string{"v1"},
	}
	if strict {
		wh.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	return wh
}

// The removed v1beta1 API: said once, on the type, and judged with the
// v1beta1 defaults (no failurePolicy means Ignore there).
func legacy() *admissionregistrationv1beta1.ValidatingWebhookConfiguration {
	none := admissionregistrationv1beta1.SideEffectClassNone
	return &admissionregistrationv1beta1.ValidatingWebhookConfiguration{ // want `^error: v1beta1 removed in 1\.22; in v1: failurePolicy Ignore, timeoutSeconds 30 \[unserved-api-version\]$`
		ObjectMeta: metav1.ObjectMeta{Name: "legacy"},
		Webhooks: []admissionregistrationv1beta1.ValidatingWebhook{{ // want `failurePolicy Ignore lets requests through`
			Name:                    "vlegacy.example.com",
			SideEffects:             &none,
			ClientConfig:            admissionregistrationv1beta1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
			AdmissionReviewVersions: []string{"v1beta1"},
		}},
	}
}
