package source_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// Helm creates a release's objects by kind, not by template: the
// ClusterIssuer of a template named before the webhook's is still
// created after the webhook configuration, before the backend is up.
func TestInstallOrderInAChartFollowsHelmsKinds(t *testing.T) {
	bad, err := os.ReadFile("../rules/examples/install-order/bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(bad), "\n---\n")
	root := testkit.Repo(t, map[string]string{
		"chart/Chart.yaml":              "apiVersion: v2\nname: kb\nversion: 0.1.0\n",
		"chart/templates/a-object.yaml": docs[len(docs)-1],
		"chart/templates/b-rest.yaml":   strings.Join(docs[:len(docs)-1], "\n---\n"),
	})
	got := find(run(t, []string{filepath.Join(root, "chart")}, source.Options{}).Diagnostics, rules.InstallOrderRule, "templates/b-rest.yaml")
	if len(got) != 1 || !strings.Contains(got[0].Message, `ClusterIssuer "selfsigned" is created`) {
		t.Fatalf("want the webhook reported for the ClusterIssuer:%s", dump(got))
	}
}
