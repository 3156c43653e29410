package rules

import "testing"

func TestTimeoutTooLongOptionFromConfigFile(t *testing.T) {
	// Options decoded from JSON/YAML arrive as float64.
	s := testSettings()
	s.Options = map[string]map[string]any{"timeout-too-long": {"max-fail-closed-seconds": float64(20)}}
	fs := runRuleOn(t, "timeout-too-long", `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: a.example.com
  timeoutSeconds: 15
- name: b.example.com
  timeoutSeconds: 25
`, s)
	if len(fs) != 1 || fs[0].Path != "webhooks[1].timeoutSeconds" {
		t.Fatalf("got %+v", fs)
	}
}
