package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestSourceFlags(t *testing.T) {
	const chart = "../testdata/sources/helm/webhook-chart"
	cases := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"--helm", chart}, ExitOK, ""},
		{[]string{"--helm", chart, "--values", chart + "/values-broken.yaml"}, ExitFindings, "templates/webhook.yaml:16:19: error: cannot unmarshal string"},
		{[]string{"--helm", chart, "--values", chart + "/values-broken.yaml", "--placeholders=error"}, ExitFindings, "templates/webhook.yaml:23:15: error: placeholder `${CA_BUNDLE}`"},
		{[]string{"--values", chart + "/values.yaml", "../examples"}, ExitUsage, "--values and --set need a chart"},
		{[]string{"--helm", chart, "--set", "webhook.failurePolicy=Sometimes"}, ExitFindings, "templates/webhook.yaml:15:18: error: webhooks[0].failurePolicy: Unsupported value: \"Sometimes\""},
		{[]string{"--helm", chart, "--set", "webhook.=x"}, ExitFindings, "error: --set webhook.=x:"},
		{[]string{"--helm", "../examples"}, ExitUsage, "no Chart.yaml"},
		{[]string{"--placeholders=loud", "../examples"}, ExitUsage, "--placeholders: want error, warning, info or off"},
		{[]string{"--helm", chart, "--namespace", "Policy_System"}, ExitUsage, `--namespace "Policy_System": a lowercase RFC 1123 label`},
		{[]string{"--helm", chart, "--namespace", "policy-system"}, ExitOK, ""},
		{[]string{"../testdata/sources/kubebuilder/config"}, ExitFindings, "config/default/webhook_failurepolicy_patch.yaml:8:3: error: unknown field"},
		{[]string{"--no-kustomize", "../testdata/sources/kubebuilder/config/default/webhook_failurepolicy_patch.yaml"}, ExitFindings, "webhook_failurepolicy_patch.yaml:8:3"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := Main(append([]string{"--color", "never"}, c.args...), strings.NewReader(""), &out, &errOut)
		all := out.String() + errOut.String()
		if code != c.code || !strings.Contains(all, c.contains) {
			t.Errorf("%v: exit %d, want %d; output does not contain %q:\n%s", c.args, code, c.code, c.contains, all)
		}
	}
}
