package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// Two webhooks whose 30-second timeouts draw timeout-too-long, one
// silenced by a comment, the object by the annotation for another rule.
const suppressedWebhooks = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: suppress-test
  annotations:
    cert-manager.io/inject-ca-from: ns/cert
    webhooklint.io/ignore: "system-critical-scope: the policy must see kube-system"
webhooks:
  - name: a.example.com
    clientConfig:
      service: {namespace: ns, name: svc}
    rules:
      - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"], scope: Namespaced}
    namespaceSelector:
      matchExpressions:
        - {key: kubernetes.io/metadata.name, operator: NotIn, values: ["ns"]}
    failurePolicy: Fail
    sideEffects: None
    admissionReviewVersions: ["v1"]
    # webhooklint:ignore timeout-too-long -- the backend is slow on purpose
    timeoutSeconds: 30
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {selector: {app: svc}, ports: [{port: 443}]}
`

func TestInlineSuppressionsObeyedByDefault(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "w.yaml"), suppressedWebhooks)
	code, out, errOut := runCLI(t, "--color", "never", filepath.Join(dir, "w.yaml"))
	if strings.Contains(out, "[timeout-too-long]") || strings.Contains(out, "[invalid-suppression]") {
		t.Errorf("the comment did not suppress: exit %d\n%s%s", code, out, errOut)
	}
}

func TestNoInlineSuppressions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "w.yaml")
	testkit.WriteFile(t, file, suppressedWebhooks)
	check := func(t *testing.T, args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, append([]string{"--color", "never"}, args...)...)
		if code != ExitFindings {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		// The comment and the annotation are findings where they are
		// written, and what the comment silenced is reported.
		for _, want := range []string{
			"w.yaml:20:5: error: inline suppressions are forbidden (",
			"this comment does not silence timeout-too-long",
			"w.yaml:7:28: error: inline suppressions are forbidden (",
			"this annotation webhooklint.io/ignore does not silence system-critical-scope",
			"w.yaml:21:21: warning: ",
			"w.yaml:14:5: warning: ",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		return out
	}
	t.Run("flag", func(t *testing.T) { check(t, "--no-inline-suppressions", file) })
	t.Run("config key", func(t *testing.T) {
		cfg := filepath.Join(dir, "ci.yaml")
		testkit.WriteFile(t, cfg, "inlineSuppressions: false\n")
		check(t, "--config", cfg, file)
	})
	t.Run("config suppressions still apply", func(t *testing.T) {
		cfg := filepath.Join(dir, "ci.yaml")
		testkit.WriteFile(t, cfg, "suppressions:\n  - rule: timeout-too-long\n    paths: [w.yaml]\n    webhook: a.example.com\n    reason: the backend is slow on purpose\n")
		code, out, errOut := runCLI(t, "--color", "never", "--no-inline-suppressions", "--config", cfg, file)
		if code != ExitFindings || strings.Contains(out, "[timeout-too-long]") || !strings.Contains(out, "[invalid-suppression]") {
			t.Errorf("exit %d\n%s%s", code, out, errOut)
		}
	})
	t.Run("unused config suppression", func(t *testing.T) {
		cfg := filepath.Join(dir, "ci.yaml")
		testkit.WriteFile(t, cfg, "suppressions:\n  - rule: timeout-too-long\n    paths: [other/**]\n    reason: not this file\n")
		_, out, _ := runCLI(t, "--color", "never", "--config", cfg, file)
		if !strings.Contains(out, "ci.yaml:2:5: warning: configured suppression of timeout-too-long matches no finding in other/**; remove it [unused-suppression]") {
			t.Errorf("no unused-suppression finding on the configuration:\n%s", out)
		}
	})
}
