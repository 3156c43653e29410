package rules

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

// run runs one rule over c and returns "severity path: message" lines.
func run(t *testing.T, rule string, c *Config, s *Settings) []string {
	t.Helper()
	var out []string
	NewPass(MustLookup(rule), c, nil, s, func(f Finding) {
		out = append(out, f.Severity.String()+" "+f.Path+" | "+f.Message)
	}).Run()
	return out
}

func validHook(name string) admissionv1.ValidatingWebhook {
	none := admissionv1.SideEffectClassNone
	return admissionv1.ValidatingWebhook{
		Name:                    name,
		ClientConfig:            admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Name: "svc", Namespace: "ns"}},
		SideEffects:             &none,
		AdmissionReviewVersions: []string{"v1"},
	}
}

func validating(apiVersion, name string, hooks ...admissionv1.ValidatingWebhook) *Config {
	return FromValidating(apiVersion, &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: hooks,
	})
}

func withRules(resources ...[]string) admissionv1.ValidatingWebhook {
	h := validHook("a.b.c")
	for _, res := range resources {
		h.Rules = append(h.Rules, admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Create},
			Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: res},
		})
	}
	return h
}

func expectLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("finding %d = %q, want it to contain %q", i, got[i], want[i])
		}
	}
}

func TestRuleSyntaxOrderDependentLists(t *testing.T) {
	cases := []struct {
		resources []string
		want      []string
	}{
		// Accepted by the server only in this order: warn.
		{[]string{"pods/log", "pods/*"}, []string{`warning webhooks[0].rules[0].resources[0] | "pods/log" is already matched by "pods/*" (resources[1])`}},
		{[]string{"deployments/scale", "*/scale"}, []string{`warning webhooks[0].rules[0].resources[0] | "deployments/scale" is already matched by "*/scale"`}},
		{[]string{"pods", "*"}, []string{`warning webhooks[0].rules[0].resources[0] | "pods" is already matched by "*"`}},
		{[]string{"pods", "pods"}, []string{`warning webhooks[0].rules[0].resources[1] | "pods" is listed twice in resources (first at index 0)`}},
		// The reversed orders are rejected, with no extra warning.
		{[]string{"pods/*", "pods/log"}, []string{`error webhooks[0].rules[0].resources[1] | webhooks[0].rules[0].resources[1]: Invalid value: "pods/log": if 'pods/*' is present, must not specify pods/log`}},
		{[]string{"*", "pods"}, []string{`error webhooks[0].rules[0].resources | webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources`}},
		// "*" only conflicts with the last plain entry, as on the server.
		{[]string{"pods", "*", "configmaps"}, []string{`error webhooks[0].rules[0].resources | `}},
		// Not overlapping: * does not cover subresources.
		{[]string{"*", "pods/status"}, nil},
		{[]string{"pods/*", "*/status"}, nil},
	}
	for _, c := range cases {
		got := run(t, "rule-syntax", validating(V1, "x", withRules(c.resources)), nil)
		t.Run(strings.Join(c.resources, ","), func(t *testing.T) { expectLines(t, got, c.want...) })
	}
}

func TestRuleSyntaxDuplicatesInOtherLists(t *testing.T) {
	h := withRules([]string{"pods"})
	h.Rules[0].Operations = []admissionv1.OperationType{"CREATE", "UPDATE", "CREATE"}
	h.Rules[0].APIVersions = []string{"v1", "v1"}
	got := run(t, "rule-syntax", validating(V1, "x", h), nil)
	expectLines(t, got,
		`warning webhooks[0].rules[0].operations[2] | "CREATE" is listed twice in operations (first at index 0)`,
		`warning webhooks[0].rules[0].apiVersions[1] | "v1" is listed twice in apiVersions`)
}

func TestObjectNameStaticSuffixDependsOnVersion(t *testing.T) {
	c := validating(V1, "hooks.static.k8s.io")
	expectLines(t, run(t, "object-name", c, &Settings{KubeVersion: KubeVersion{1, 37}}),
		`error metadata.name | metadata.name: Invalid value: "hooks.static.k8s.io": names ending with ".static.k8s.io" are reserved`)
	expectLines(t, run(t, "object-name", c, &Settings{KubeVersion: KubeVersion{1, 36}}),
		`warning metadata.name | metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`)
	expectLines(t, run(t, "object-name", c, &Settings{KubeVersion: KubeVersion{1, 35}}))
}

func TestObjectNameGeneratedNameIsTruncated(t *testing.T) {
	// Like the server's generator: at most 58 prefix characters, then 5.
	prefix := strings.Repeat("a", 60)
	if got := generatedName(prefix); len(got) != 63 || !strings.HasPrefix(got, prefix[:58]) {
		t.Errorf("generatedName(%d chars) = %q (%d chars), want 58 prefix chars + 5", len(prefix), got, len(got))
	}
	c := FromValidating(V1, &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{GenerateName: "hooks-"}})
	expectLines(t, run(t, "object-name", c, nil))
}

func TestExcludedResourcesOnlyFrom137(t *testing.T) {
	h := validHook("a.b.c")
	h.Rules = []admissionv1.RuleWithOperations{{
		Operations: []admissionv1.OperationType{admissionv1.Create},
		Rule: admissionv1.Rule{APIGroups: []string{"authorization.k8s.io", "authentication.k8s.io"}, APIVersions: []string{"v1"},
			Resources: []string{"tokenreviews", "selfsubjectreviews", "subjectaccessreviews", "tokenreviews"}},
	}}
	c := validating(V1, "x", h)
	expectLines(t, run(t, "excluded-resources", c, &Settings{KubeVersion: KubeVersion{1, 37}}),
		"warning webhooks[0].rules[0] | subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect",
		"webhooks[0].rules[0] | tokenreviews.authentication.k8s.io is excluded",
		"webhooks[0].rules[0] | selfsubjectreviews.authentication.k8s.io is excluded")
	expectLines(t, run(t, "excluded-resources", c, &Settings{KubeVersion: KubeVersion{1, 36}}))
}

func TestV1beta1DefaultsAreNotReportedAsMissing(t *testing.T) {
	h := validHook("a.b.c")
	h.SideEffects = nil
	h.AdmissionReviewVersions = nil
	beta := validating(V1beta1, "x", h)
	expectLines(t, run(t, "side-effects-value", beta, nil))
	expectLines(t, run(t, "review-versions", beta, nil))

	v1 := validating(V1, "x", h)
	expectLines(t, run(t, "side-effects-value", v1, nil), "error webhooks[0].sideEffects | webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun")
	expectLines(t, run(t, "review-versions", v1, nil), "error webhooks[0].admissionReviewVersions | webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1")

	some := admissionv1.SideEffectClassSome
	h.SideEffects = &some
	expectLines(t, run(t, "side-effects-value", validating(V1beta1, "x", h), nil))
	expectLines(t, run(t, "side-effects-value", validating(V1, "x", h), nil),
		`error webhooks[0].sideEffects | webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`)
}

func TestClientConfigNamesTheMissingServiceField(t *testing.T) {
	h := validHook("a.b.c")
	h.ClientConfig.Service.Name = ""
	expectLines(t, run(t, "client-config", validating(V1, "x", h), nil),
		"error webhooks[0].clientConfig.service.name | webhooks[0].clientConfig.service.name: Required value")
	h.ClientConfig.Service = &admissionv1.ServiceReference{Name: "svc"}
	expectLines(t, run(t, "client-config", validating(V1, "x", h), nil),
		"error webhooks[0].clientConfig.service.namespace | webhooks[0].clientConfig.service.namespace: Required value")
	// An omitted port is defaulted to 443, not reported.
	h.ClientConfig.Service = &admissionv1.ServiceReference{Name: "svc", Namespace: "ns"}
	expectLines(t, run(t, "client-config", validating(V1, "x", h), nil))
}

func TestReinvocationPolicyOnlyCheckedOnMutating(t *testing.T) {
	always := admissionv1.ReinvocationPolicyType("Always")
	none := admissionv1.SideEffectClassNone
	m := FromMutating(V1, &admissionv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "m"},
		Webhooks: []admissionv1.MutatingWebhook{{
			Name: "a.b.c", ReinvocationPolicy: &always, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Name: "s", Namespace: "n"}},
		}},
	})
	expectLines(t, run(t, "policy-values", m, nil),
		`error webhooks[0].reinvocationPolicy | webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`)
}

func TestServerRulesMetadata(t *testing.T) {
	names := []string{"object-name", "webhook-name", "rule-syntax", "policy-values", "side-effects-value",
		"timeout-range", "review-versions", "label-selector", "client-config", "excluded-resources"}
	for _, n := range names {
		r := MustLookup(n)
		if r.Category != Server {
			t.Errorf("%s: category %s, want server", n, r.Category)
		}
		want := diag.Error
		if n == "excluded-resources" {
			want = diag.Warning
		}
		if r.Severity != want {
			t.Errorf("%s: severity %s, want %s", n, r.Severity, want)
		}
		d, ex := r.Doc, r.Examples()
		if d.Why == "" || ex.Bad == "" || ex.Good == "" || d.Fix == "" || len(d.Sources) == 0 {
			t.Errorf("%s: incomplete documentation", n)
		}
	}
}
