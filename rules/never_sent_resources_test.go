package rules

import (
	"regexp"
	"testing"
)

const reviewsConfig = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: reviews}
webhooks:
- name: reviews.example.com
  clientConfig: {service: {name: reviews, namespace: reviews}}
  rules:
  - {apiGroups: ["authentication.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["tokenreviews"]}
  - {apiGroups: ["authorization.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["*"]}
  - {apiGroups: ["", "admissionregistration.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods", "mutatingwebhookconfigurations/*"]}
  - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`

func TestNeverSentResourcesOn137LeavesLiteralReviewsToTheServerWarning(t *testing.T) {
	got := runRuleFindings(t, "never-sent-resources", decodeTestConfig(t, reviewsConfig), nil, settingsForMinor(t, 37))
	expectFindings(t, got,
		"warning webhooks[0].rules[1]: localsubjectaccessreviews.authorization.k8s.io and 3 more are never sent to webhooks; remove the rule",
		"warning webhooks[0].rules[2]: mutatingwebhookconfigurations.admissionregistration.k8s.io is never sent to webhooks; remove it",
	)
}

func TestNeverSentResourcesBefore137SaysReviewsAreSent(t *testing.T) {
	got := runRuleFindings(t, "never-sent-resources", decodeTestConfig(t, reviewsConfig), nil, settingsForMinor(t, 36))
	expectFindings(t, got,
		"warning webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is sent to admission webhooks on Kubernetes 1.36 (excluded only from 1.37)",
		"warning webhooks[0].rules[1]: localsubjectaccessreviews.authorization.k8s.io and 3 more are sent to admission webhooks on Kubernetes 1.36",
		"warning webhooks[0].rules[2]: mutatingwebhookconfigurations.admissionregistration.k8s.io is never sent to webhooks; remove it",
	)
}

func TestNeverSentResourcesStaticManifestSeesConfigurationKinds(t *testing.T) {
	c := decodeTestConfig(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: guard.static.k8s.io}
webhooks:
- name: guard.static.k8s.io
  clientConfig: {url: "https://guard.example.com"}
  rules:
  - {apiGroups: ["admissionregistration.k8s.io"], apiVersions: ["v1"], operations: ["*"], resources: ["*"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`)
	expectFindings(t, runRuleFindings(t, "never-sent-resources", c, nil, nil))
}

// TestNeverSentResourcesDoesNotRepeatTheServerWarning runs this rule and
// excluded-resources (the API server's warning W1) over the same rules and
// checks that no group/resource is reported by both at the same path. It
// is skipped until both rules are in the registry.
func TestNeverSentResourcesDoesNotRepeatTheServerWarning(t *testing.T) {
	if _, ok := Lookup("excluded-resources"); !ok {
		t.Skip("excluded-resources is not registered on this branch")
	}
	c := decodeTestConfig(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: reviews}
webhooks:
- name: reviews.example.com
  clientConfig: {service: {name: reviews, namespace: reviews}}
  rules:
  - {apiGroups: ["authentication.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["tokenreviews", "selfsubjectreviews/*"]}
  - {apiGroups: ["authorization.k8s.io", "authentication.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["subjectaccessreviews", "tokenreviews"]}
  - {apiGroups: ["*"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["tokenreviews"]}
  - {apiGroups: ["authorization.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["*"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`)
	resource := regexp.MustCompile(`[a-z]+\.(authentication|authorization)\.k8s\.io`)
	for _, minor := range []int{36, 37} {
		seen := map[string]string{} // path + resource -> rule
		for _, name := range []string{"excluded-resources", "never-sent-resources"} {
			NewPass(MustLookup(name), c, nil, settingsForMinor(t, minor), func(f Finding) {
				for _, gr := range resource.FindAllString(f.Message, -1) {
					key := f.Path + " " + gr
					if other, dup := seen[key]; dup && other != name {
						t.Errorf("1.%d: %s reported by both %s and %s", minor, key, other, name)
					}
					seen[key] = name
				}
			}).Run()
		}
		if len(seen) == 0 {
			t.Errorf("1.%d: neither rule reported anything", minor)
		}
	}
}
