package rules

import (
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

func TestMatchRule(t *testing.T) {
	rule := func(group, version, resource string) admissionv1.RuleWithOperations {
		return admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
			Rule: admissionv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}}}
	}
	exact := admissionv1.Exact
	hpa := &Request{Operation: admissionv1.Create, Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Namespace: "ns"}
	for _, tc := range []struct {
		name string
		w    Webhook
		req  *Request
		want RuleMatch
	}{
		{"exact rule first, even when an earlier rule matches an equivalent",
			Webhook{Rules: []admissionv1.RuleWithOperations{rule("autoscaling", "v1", "horizontalpodautoscalers"), rule("autoscaling", "v2", "horizontalpodautoscalers")}},
			hpa, RuleMatch{Index: 1, Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}},
		{"equivalent version",
			Webhook{Rules: []admissionv1.RuleWithOperations{rule("autoscaling", "v1", "horizontalpodautoscalers")}},
			hpa, RuleMatch{Index: 0, Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers", Equivalent: true}},
		{"matchPolicy Exact",
			Webhook{Rules: []admissionv1.RuleWithOperations{rule("autoscaling", "v1", "horizontalpodautoscalers")}, MatchPolicy: &exact},
			hpa, RuleMatch{Index: -1}},
		{"versions the cluster serves decide",
			Webhook{Rules: []admissionv1.RuleWithOperations{rule("autoscaling", "v1", "horizontalpodautoscalers")}},
			&Request{Operation: admissionv1.Create, Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Namespace: "ns", EquivalentVersions: []string{"v2"}},
			RuleMatch{Index: -1}},
		{"events stored together",
			Webhook{Rules: []admissionv1.RuleWithOperations{rule("events.k8s.io", "v1", "events")}},
			&Request{Operation: admissionv1.Create, Version: "v1", Resource: "events", Namespace: "ns"},
			RuleMatch{Index: 0, Group: "events.k8s.io", Version: "v1", Resource: "events", Equivalent: true}},
	} {
		if got := tc.w.MatchRule(tc.req); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestNeverSentToWebhooks(t *testing.T) {
	for _, tc := range []struct {
		group, resource string
		minor           int
		never           bool
	}{
		{GroupName, "validatingwebhookconfigurations", 30, true},
		{GroupName, "validatingadmissionpolicies", 37, true},
		{"authentication.k8s.io", "tokenreviews", 37, true},
		{"authentication.k8s.io", "tokenreviews", 36, false},
		{"", "pods", 37, false},
	} {
		if got := NeverSentToWebhooks(tc.group, tc.resource, KubeVersion{1, tc.minor}) != ""; got != tc.never {
			t.Errorf("%s/%s on 1.%d: never sent %v, want %v", tc.group, tc.resource, tc.minor, got, tc.never)
		}
	}
}
