// Package literalfix has webhook literals whose rule findings carry a
// safe fix, made by the same fix code as the command line's --fix: the
// value written is replaced, or a duplicate element removed.
package literalfix

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"
)

const v1 = "v1"

func hooks() []admissionregistrationv1.ValidatingWebhook {
	return []admissionregistrationv1.ValidatingWebhook{{
		Name:                    "dup.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1", "v1"}, // want `"v1": duplicate version`
	}, {
		Name:         "dup-last.example.com",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		SideEffects:  ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{
			"v1",
			"v1beta1",
			"v1", // want `"v1": duplicate version`
		},
	}, {
		Name:                    "order.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1beta1", `v1`}, // want `lists v1beta1 before v1`
	}, {
		Name:         "conditions.example.com",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		SideEffects:  ptr.To(admissionregistrationv1.SideEffectClassNone),
		MatchConditions: []admissionregistrationv1.MatchCondition{
			{Name: "not-delete", Expression: "request.operation != 'DELETE'"},
			{Name: "not-delete", Expression: "true"}, // want `Duplicate value: "not-delete"`
		},
		AdmissionReviewVersions: []string{"v1"},
	}, {
		// Written through a constant: the fix would change the constant
		// for every use, so none is offered.
		Name:                    "constant.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{v1, v1}, // want `"v1": duplicate version`
	}, {
		// A comment between the duplicate and its neighbour stays: no fix.
		Name:                    "comment.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1", "v1" /* again */, "v1beta1"}, // want `"v1": duplicate version`
	}, {
		// Unsafe fixes (clamping a timeout) are never offered: drivers
		// make every fix they get.
		Name:                    "timeout.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/v")},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		TimeoutSeconds:          ptr.To[int32](45), // want `timeoutSeconds`
		AdmissionReviewVersions: []string{"v1"},
	}}
}
