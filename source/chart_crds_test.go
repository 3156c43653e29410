package source_test

import (
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/source"
)

// A chart's crds/ folder is what helm install applies before the
// templates (helm template leaves it out): its CRDs are linted with the
// chart, at their own lines.
func TestChartCRDsFolderIsLinted(t *testing.T) {
	root := testkit.Repo(t, map[string]string{
		"chart/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
		"chart/crds/backups.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backups.example.com
spec:
  group: example.com
  names: {kind: Backup, plural: backups}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {schedule: {type: string}}}}}}
  - name: v2
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {schedule: {type: integer}}}}}}
`,
	})
	got := find(run(t, []string{filepath.Join(root, "chart")}, source.Options{}).Diagnostics, "conversion-webhook", "crds/backups.yaml")
	if len(got) != 1 || got[0].Line != 9 {
		t.Fatalf("want the CRD's unconverted versions at its versions (line 9):%s", dump(got))
	}
}
