package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const fixable = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: fixable
webhooks:
  - name: a.example.com
    admissionReviewVersions: ["v1beta1", v1, 'v1'] # keep this comment
    sideEffects: Some
    timeoutSeconds: 45
    failurePolicy: Ignore
    clientConfig:
      url: https://a.example.com/validate
    rules:
      - operations: [CREATE]
        apiGroups: [apps]
        apiVersions: [v1]
        resources: [deployments]
`

func TestFixFlagsUsage(t *testing.T) {
	for _, args := range [][]string{{"--unsafe-fixes", "x.yaml"}, {"--fix", "--diff", "x.yaml"}} {
		if code, _, stderr := run(t, "", args...); code != ExitUsage || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, stderr)
		}
	}
}

// TestDiffThenFix: --diff changes nothing and its output applies with
// patch -p1; --fix makes the same change, reports what remains with the
// exit status a plain run gives, and a second --fix changes nothing.
func TestDiffThenFix(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll("deploy", 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join("deploy", "hooks.yaml")
	if err := os.WriteFile(name, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	code, diff, stderr := run(t, "", "--diff", name)
	if code != ExitFindings || stderr != "" {
		t.Fatalf("--diff: exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(name); string(got) != fixable {
		t.Fatal("--diff changed the file")
	}
	for _, want := range []string{"--- a/deploy/hooks.yaml\n", `+    admissionReviewVersions: ["v1", v1beta1] # keep this comment`} {
		if !strings.Contains(diff, want) {
			t.Errorf("--diff lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "NoneOnDryRun") {
		t.Errorf("--diff without --unsafe-fixes shows an unsafe fix:\n%s", diff)
	}

	code, _, stderr = run(t, "", "--fix", name)
	fixed, _ := os.ReadFile(name)
	if patch, err := exec.LookPath("patch"); err == nil {
		other := filepath.Join(t.TempDir(), "deploy")
		if err := os.MkdirAll(other, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "hooks.yaml"), []byte(fixable), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(patch, "-p1", "--quiet")
		cmd.Dir, cmd.Stdin = filepath.Dir(other), strings.NewReader(diff)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch -p1: %v\n%s", err, out)
		}
		if patched, _ := os.ReadFile(filepath.Join(other, "hooks.yaml")); !bytes.Equal(patched, fixed) {
			t.Errorf("patch -p1 of --diff made\n%s\n--fix made\n%s", patched, fixed)
		}
	}
	if !strings.Contains(stderr, "fixed 2 findings in 1 file") || !strings.Contains(stderr, "2 more fixes with --unsafe-fixes") {
		t.Errorf("--fix stderr: %q", stderr)
	}
	if plain, _, _ := run(t, "", name); code != plain {
		t.Errorf("--fix exit %d, a plain run after it %d", code, plain)
	}

	code, _, stderr = run(t, "", "--fix", "--unsafe-fixes", name)
	after, _ := os.ReadFile(name)
	if !strings.Contains(string(after), "sideEffects: NoneOnDryRun") || !strings.Contains(string(after), "timeoutSeconds: 30") {
		t.Errorf("--unsafe-fixes made:\n%s", after)
	}
	if plain, _, _ := run(t, "", name); code != plain || !strings.Contains(stderr, "fixed 2 findings") {
		t.Errorf("--fix --unsafe-fixes exit %d (plain %d), stderr %q", code, plain, stderr)
	}
	_, _, stderr = run(t, "", "--fix", "--unsafe-fixes", name)
	if again, _ := os.ReadFile(name); !bytes.Equal(again, after) || strings.Contains(stderr, "fixed") {
		t.Errorf("a second --fix changed the file (stderr %q)", stderr)
	}
}
