package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

const badWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: cfg-test
webhooks:
  - name: a.example.com
    clientConfig:
      service: {namespace: ns, name: svc}
    sideEffects: None
    admissionReviewVersions: ["v1"]
    timeoutSecond: 5
`

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestConfigDiscoveredAbovePaths(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "deploy", "w.yaml"), badWebhook)
	code, out, _ := runCLI(t, filepath.Join(dir, "deploy"))
	if code != ExitFindings || !strings.Contains(out, "[schema]") {
		t.Fatalf("without configuration: exit %d\n%s", code, out)
	}
	// The file two folders up applies to deploy/.
	testkit.WriteFile(t, filepath.Join(dir, ".webhooklint.yaml"), "rules:\n  schema:\n    severity: info\n")
	code, out, errOut := runCLI(t, filepath.Join(dir, "deploy"))
	if code != ExitOK || !strings.Contains(out, ": info: ") {
		t.Errorf("severity override: exit %d\n%s%s", code, out, errOut)
	}
	testkit.WriteFile(t, filepath.Join(dir, ".webhooklint.yaml"), "rules:\n  schema: false\n")
	if code, out, _ := runCLI(t, filepath.Join(dir, "deploy")); code != ExitOK || out != "no findings in 1 webhook configuration, 1 file\n" {
		t.Errorf("disabled rule: exit %d\n%s", code, out)
	}
	testkit.WriteFile(t, filepath.Join(dir, ".webhooklint.yaml"), "ignore: [deploy/w.yaml]\n")
	testkit.WriteFile(t, filepath.Join(dir, "deploy", "other.yaml"), badWebhook)
	code, out, _ = runCLI(t, filepath.Join(dir, "deploy"))
	if code != ExitFindings || strings.Contains(out, "w.yaml") || !strings.Contains(out, "other.yaml") {
		t.Errorf("ignore glob: exit %d\n%s", code, out)
	}
	// --config names another file, and the discovered one is not read.
	testkit.WriteFile(t, filepath.Join(dir, "strict.yaml"), "rules: {}\n")
	code, out, _ = runCLI(t, "--config", filepath.Join(dir, "strict.yaml"), filepath.Join(dir, "deploy"))
	if code != ExitFindings || !strings.Contains(out, "w.yaml") {
		t.Errorf("--config: exit %d\n%s", code, out)
	}
}

func TestConfigErrorsExit2WithPositions(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "w.yaml"), badWebhook)
	testkit.WriteFile(t, filepath.Join(dir, ".webhooklint.yaml"), "kubeVersion: \"1.30\"\nrulez: {}\nrules:\n  no-such-rule: {}\n")
	code, out, errOut := runCLI(t, dir)
	cfg := filepath.Join(dir, ".webhooklint.yaml")
	want := cfg + ":2:1: unknown key \"rulez\" (want kubeVersion, provider, ignore, inlineSuppressions, suppressions, charts, units or rules)\n" +
		cfg + ":4:3: unknown rule \"no-such-rule\"\n" +
		"webhooklint: invalid configuration " + cfg + "\n"
	if code != ExitUsage || out != "" || errOut != want {
		t.Errorf("exit %d\nstdout %q\nstderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}
	if code, _, errOut := runCLI(t, "--config", filepath.Join(dir, "missing.yaml"), dir); code != ExitUsage || !strings.Contains(errOut, "missing.yaml") {
		t.Errorf("missing --config file: exit %d, %s", code, errOut)
	}
}

func TestInitConfig(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := runCLI(t, "--init-config")
	if code != ExitOK || out != "" || errOut != "webhooklint: wrote .webhooklint.yaml\n" {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(".webhooklint.yaml")
	if err != nil || !strings.Contains(string(b), "  schema:\n    enabled: true\n    severity: error\n") {
		t.Fatalf("written file:\n%s (%v)", b, err)
	}
	// The written defaults load and change nothing.
	testkit.WriteFile(t, "w.yaml", badWebhook)
	if code, out, errOut := runCLI(t, "w.yaml"); code != ExitFindings || !strings.Contains(out, "w.yaml:11:5: error:") {
		t.Errorf("lint with the default file: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "--init-config"); code != ExitUsage || !strings.Contains(errOut, "already exists") {
		t.Errorf("second --init-config: exit %d, %s", code, errOut)
	}
}

func TestColorFlag(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "w.yaml"), badWebhook)
	t.Setenv("NO_COLOR", "1")
	_, out, _ := runCLI(t, "--color", "always", dir)
	if !strings.Contains(out, "\x1b[1;31merror\x1b[0m") {
		t.Errorf("--color always (beats NO_COLOR): no color\n%q", out)
	}
	for _, mode := range []string{"never", "auto"} {
		_, out, _ := runCLI(t, "--color", mode, dir)
		if strings.Contains(out, "\x1b[") || !strings.Contains(out, " |     timeoutSecond: 5\n") {
			t.Errorf("--color %s: %q", mode, out)
		}
	}
}

func TestOutputFlagWritesMoreFormatsFromOneRun(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "w.yaml"), badWebhook)
	sarif, counts := filepath.Join(dir, "out.sarif"), filepath.Join(dir, "counts")
	code, out, errOut := runCLI(t, "--format", "github", "--output", "sarif="+sarif, "--output", "counts="+counts, filepath.Join(dir, "w.yaml"))
	if code != ExitFindings || !strings.HasPrefix(out, "::error file=") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(counts); string(b) != "errors=1\nwarnings=0\ninfos=0\nfiles=1\nunchecked=0\n" {
		t.Errorf("counts: %q", b)
	}
	if b, _ := os.ReadFile(sarif); !strings.Contains(string(b), `"exitCode": 1`) || !strings.Contains(string(b), `"ruleId": "schema"`) {
		t.Errorf("sarif:\n%s", b)
	}
	for _, bad := range []string{"sarif", "nope=x", "=x", "sarif=" + filepath.Join(dir, "missing", "x.sarif")} {
		if code, _, _ := runCLI(t, "--output", bad, dir); code != ExitUsage {
			t.Errorf("--output %s: exit %d, want 2", bad, code)
		}
	}
}

// kubeVersion in the file applies; --kube-version on the command line
// wins. The reserved ".static.k8s.io" name suffix is an error from 1.37
// and a warning before.
func TestConfigKubeVersionAndFlagPrecedence(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "w.yaml"), `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy.static.k8s.io
webhooks: []
`)
	severityOf := func(args ...string) string {
		t.Helper()
		_, out, errOut := runCLI(t, append(args, "--format", "counts", dir)...)
		if errOut != "" {
			t.Fatal(errOut)
		}
		return out
	}
	if got := severityOf(); !strings.HasPrefix(got, "errors=1\nwarnings=0\n") {
		t.Fatalf("default 1.37: %q", got)
	}
	testkit.WriteFile(t, filepath.Join(dir, ".webhooklint.yaml"), "kubeVersion: \"1.36\"\n")
	if got := severityOf(); !strings.HasPrefix(got, "errors=0\nwarnings=1\n") {
		t.Errorf("kubeVersion 1.36 from the file: %q", got)
	}
	if got := severityOf("--kube-version", "1.37"); !strings.HasPrefix(got, "errors=1\nwarnings=0\n") {
		t.Errorf("--kube-version 1.37 over the file's 1.36: %q", got)
	}
}

// A rule option set in the file reaches the rule: timeout-too-long's
// threshold.
func TestConfigRuleOption(t *testing.T) {
	dir := t.TempDir()
	manifest, err := os.ReadFile(filepath.Join("..", "testdata", "integrations", "good", "webhooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The good manifest fails closed with timeoutSeconds 5.
	testkit.WriteFile(t, filepath.Join(dir, "w.yaml"), string(manifest))
	if code, out, errOut := runCLI(t, dir); code != ExitOK {
		t.Fatalf("good manifest: exit %d\n%s%s", code, out, errOut)
	}
	testkit.WriteFile(t, filepath.Join(dir, ".webhooklint.yaml"), "rules:\n  timeout-too-long:\n    options:\n      max-fail-closed-seconds: 3\n")
	code, out, _ := runCLI(t, dir)
	if code != ExitFindings || !strings.Contains(out, "[timeout-too-long]") {
		t.Errorf("threshold 3: exit %d\n%s", code, out)
	}
}

// The platform comes from --provider or the file's provider, the flag
// winning; generic (the default) runs no provider-specific check.
func TestProvider(t *testing.T) {
	dir := t.TempDir()
	bundle, err := os.ReadFile(filepath.Join("..", "testdata", "rules", "provider-control-plane-port", "generic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "w.yaml"), string(bundle))
	found := func(args ...string) bool {
		t.Helper()
		code, out, errOut := runCLI(t, append(args, "--color", "never", dir)...)
		if code == ExitUsage || code == ExitInternal {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return strings.Contains(out, "[provider-control-plane-port]")
	}
	if found() {
		t.Error("generic provider reported a control-plane port")
	}
	if !found("--provider", "gke") {
		t.Error("--provider gke: no control-plane port finding")
	}
	testkit.WriteFile(t, filepath.Join(dir, ".webhooklint.yaml"), "provider: eks\n")
	if !found() {
		t.Error("provider eks from the file: no control-plane port finding")
	}
	if found("--provider", "generic") {
		t.Error("--provider generic did not win over the file")
	}
	if code, _, errOut := runCLI(t, "--provider", "gcp", dir); code != ExitUsage || !strings.Contains(errOut, `unknown provider "gcp"`) {
		t.Errorf("--provider gcp: exit %d, %s", code, errOut)
	}
}

// The counts format is what the Action turns into outputs: a source the
// input names but could not be read offline must show there, since its
// notice is only an info.
func TestCountsSayUnchecked(t *testing.T) {
	_, out, errOut := runCLI(t, "--format", "counts", "../testdata/gitops/argocd-example-apps")
	if !strings.Contains(out, "\nunchecked=2\n") {
		t.Errorf("counts of a GitOps entry with two remote sources:\n%s%s", out, errOut)
	}
}
