package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/rules"
)

const clean = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: clean
webhooks: []
`

const typo = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: typo
webhooks:
- name: check.example.com
  timeoutSecond: 5
`

func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("..", "testdata", "cli", name), []byte(got))
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"clean input", clean, []string{"-"}, ExitOK},
		{"findings", typo, []string{"-"}, ExitFindings},
		{"findings below --fail-on", typo, []string{"--fail-on", "never", "-"}, ExitOK},
		{"missing path", "", []string{"no/such/file.yaml"}, ExitUsage},
		{"unknown flag", "", []string{"--no-such-flag"}, ExitUsage},
		{"bad --fail-on", "", []string{"--fail-on", "loud", "-"}, ExitUsage},
		{"bad --kube-version", "", []string{"--kube-version", "2.0", "-"}, ExitUsage},
		{"bad --format", "", []string{"--format", "xml", "-"}, ExitUsage},
		{"unknown rule to explain", "", []string{"--explain", "no-such-rule"}, ExitUsage},
		{"help", "", []string{"--help"}, ExitOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(t, c.stdin, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr: %s)", code, c.code, stderr)
			}
		})
	}
}

func TestStdinFilenameAndFormats(t *testing.T) {
	code, out, _ := run(t, typo, "--stdin-filename", "config/webhook.yaml", "-")
	if code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	checkGolden(t, "typo.txt", out)
	_, out, _ = run(t, typo, "--format", "json", "--stdin-filename", "config/webhook.yaml", "-")
	out = strings.Replace(out, `"version": "`+version()+`"`, `"version": "test"`, 1)
	checkGolden(t, "typo.json", out)
}

func TestListAndExplainCoverEveryRule(t *testing.T) {
	_, out, _ := run(t, "", "--list-rules")
	for _, r := range rules.All() {
		if !strings.Contains(out, r.Name) {
			t.Errorf("--list-rules misses %s", r.Name)
		}
		code, doc, _ := run(t, "", "--explain", r.Name)
		if code != ExitOK || !strings.HasPrefix(doc, "# "+r.Name) || !strings.Contains(doc, "## Why") {
			t.Errorf("--explain %s: exit %d, doc %q", r.Name, code, doc)
		}
	}
}

func TestParseKubeVersion(t *testing.T) {
	for in, want := range map[string]rules.KubeVersion{"1.34": {Major: 1, Minor: 34}, "v1.30.2": {Major: 1, Minor: 30}, " 1.37 ": {Major: 1, Minor: 37}} {
		got, err := rules.ParseKubeVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseKubeVersion(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "1", "2.0", "1.x", "1.15", "1.2.3.4"} {
		if _, err := rules.ParseKubeVersion(in); err == nil {
			t.Errorf("ParseKubeVersion(%q) accepted", in)
		}
	}
}
