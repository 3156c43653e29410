package manifest

import (
	"slices"
	"testing"
)

func TestWorkloadSecretsAreThoseItsPodsNeed(t *testing.T) {
	src := `apiVersion: apps/v1
kind: Deployment
metadata: {name: hooks, namespace: system}
spec:
  template:
    spec:
      containers: [{name: manager, image: manager:v1}]
      volumes:
      - name: cert
        secret: {secretName: webhook-server-cert}
      - name: again
        secret: {secretName: webhook-server-cert}
      - name: maybe
        secret: {secretName: extra-ca, optional: true}
      - name: bundle
        projected:
          sources:
          - secret: {name: metrics-cert}
          - secret: {name: spare, optional: true}
          - configMap: {name: settings}
      - name: scratch
        emptyDir: {}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: rotate, namespace: system}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: rotate, image: rotate:v1}]
          volumes: [{name: cert, secret: {secretName: rotated}}]
`
	inv := Inventory([]*File{Parse("workloads.yaml", []byte(src))})
	if len(inv.Workloads) != 2 {
		t.Fatalf("workloads %+v", inv.Workloads)
	}
	if got, want := inv.Workloads[0].Secrets, []string{"webhook-server-cert", "metrics-cert"}; !slices.Equal(got, want) {
		t.Errorf("Deployment's Secrets %q, want %q (optional ones left out, each once)", got, want)
	}
	if got, want := inv.Workloads[1].Secrets, []string{"rotated"}; !slices.Equal(got, want) {
		t.Errorf("CronJob's Secrets %q, want %q", got, want)
	}
}
