package rules

import "testing"

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
	got := runRuleFindings(t, "never-sent-resources", decodeWebhookYAML(t, reviewsConfig), nil, settingsForMinor(t, 37))
	expectFindings(t, got,
		"warning webhooks[0].rules[1]: localsubjectaccessreviews.authorization.k8s.io, selfsubjectaccessreviews.authorization.k8s.io, selfsubjectrulesreviews.authorization.k8s.io, subjectaccessreviews.authorization.k8s.io are never sent to admission webhooks; this rule has no effect",
		"warning webhooks[0].rules[2]: mutatingwebhookconfigurations.admissionregistration.k8s.io is never sent to admission webhooks; this part of the rule has no effect",
	)
}

func TestNeverSentResourcesBefore137SaysReviewsAreSent(t *testing.T) {
	got := runRuleFindings(t, "never-sent-resources", decodeWebhookYAML(t, reviewsConfig), nil, settingsForMinor(t, 36))
	expectFindings(t, got,
		"warning webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is sent to admission webhooks on Kubernetes 1.36 (excluded only from 1.37)",
		"warning webhooks[0].rules[1]: localsubjectaccessreviews.authorization.k8s.io, selfsubjectaccessreviews.authorization.k8s.io, selfsubjectrulesreviews.authorization.k8s.io, subjectaccessreviews.authorization.k8s.io are sent to admission webhooks on Kubernetes 1.36",
		"warning webhooks[0].rules[2]: mutatingwebhookconfigurations.admissionregistration.k8s.io is never sent to admission webhooks; this part of the rule has no effect",
	)
}

func TestNeverSentResourcesStaticManifestSeesConfigurationKinds(t *testing.T) {
	c := decodeWebhookYAML(t, `
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
