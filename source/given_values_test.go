package source_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/source"
)

// A value the user passes (--set, --values) is the deployment's choice:
// its findings keep their level and name it, where the chart's own
// default is info (TestHelmReplicasFromValues).
func TestHelmGivenValuesAreChosen(t *testing.T) {
	values := filepath.Join(t.TempDir(), "prod.yaml")
	if err := os.WriteFile(values, []byte("webhook:\n  failurePolicy: Fail\n  timeoutSeconds: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, nil, source.Options{Charts: []string{chartDir}, ValuesFiles: []string{values}, Set: []string{"image=x,replicas=1"}})
	replicas := find(res.Diagnostics, "backend-availability", "templates/deployment.yaml")
	if len(replicas) != 1 || replicas[0].Severity != diag.Warning || !strings.Contains(replicas[0].Message, "1 replica (--set replicas=1); run 2+ replicas") {
		t.Fatalf("want a backend-availability warning naming --set replicas=1:%s", dump(res.Diagnostics))
	}
	for _, r := range replicas[0].Related {
		if strings.HasSuffix(r.File, "values.yaml") {
			t.Errorf("the chart's values.yaml is not where --set sets it: %+v", r)
		}
	}
	timeout := find(res.Diagnostics, "timeout-too-short", "templates/webhook.yaml")
	if len(timeout) != 1 || timeout[0].Severity != diag.Warning || !strings.Contains(timeout[0].Message, "timeoutSeconds 1 (--values "+values+":3)") {
		t.Fatalf("want a timeout-too-short warning naming --values %s:3:%s", values, dump(res.Diagnostics))
	}
}
