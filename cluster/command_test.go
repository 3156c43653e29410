package cluster

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/webhooklint/webhooklint/diag"
)

func TestCommandUsageErrors(t *testing.T) {
	// Nothing listens here: a usage error must be found before any request.
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--resource-version-match=Exact"}, "--resource-version-match needs --resource-version"},
		{[]string{"--resource-version=0", "--resource-version-match=exact"}, "forbidden for --resource-version=0"},
		{[]string{"--resource-version=9", "--resource-version-match=Newest"}, "must be Exact or NotOlderThan"},
		{[]string{"--watch", "--watch-list=sometimes"}, "--watch-list must be auto, always or never"},
		{[]string{"--format=xml"}, "--format must be text or json"},
		{[]string{"--fail-on=fatal"}, `--fail-on: unknown value "fatal" (want error, warning, info or never)`},
		{[]string{"--fail-on=nevr"}, `(did you mean "never"?)`},
		{[]string{"--color=sometimes"}, "--color: want auto, always or never"},
		{[]string{"--fail-of=never"}, "unknown flag: --fail-of (did you mean --fail-on?)"},
		{[]string{"--chunk-size=-1"}, "--chunk-size must not be negative"},
		{[]string{"manifests/"}, "the cluster command reads no files"},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stdout, &stderr, cfg)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

func TestCommandUnreachableCluster(t *testing.T) {
	// --fail-on never is a value the command takes, as the file mode's.
	for _, args := range [][]string{{"--no-live", "--timeout=5s"}, {"--no-live", "--timeout=5s", "--fail-on", "never"}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr, &rest.Config{Host: "http://127.0.0.1:1"})
		if code != exitFailure || !strings.Contains(stderr.String(), "list validatingwebhookconfigurations") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// --color always colors the severity and dims the rule, as the file mode;
// a finding is headed by its object, and located by its field path.
func TestPrinterColor(t *testing.T) {
	d := diag.Diagnostic{Object: &diag.Object{Kind: "ValidatingWebhookConfiguration", Name: "p"}, Path: "webhooks[0]", Severity: diag.Warning, Message: "m", Rule: "r"}
	var plain, colored bytes.Buffer
	(&printer{w: &plain}).change(Change{Type: Found, Diagnostic: &d})
	(&printer{w: &colored, color: true}).change(Change{Type: Found, Diagnostic: &d})
	if plain.String() != "In ValidatingWebhookConfiguration \"p\":\n+ webhooks[0]: warning: m [r]\n" ||
		colored.String() != "In ValidatingWebhookConfiguration \"p\":\n+ \x1b[1mwebhooks[0]\x1b[0m: \x1b[1;33mwarning\x1b[0m: m \x1b[2m[r]\x1b[0m\n" {
		t.Errorf("plain %q\ncolored %q", plain.String(), colored.String())
	}
}
