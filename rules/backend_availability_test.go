package rules

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/webhooklint/webhooklint/diag"
)

// backendUnit is a fail-closed webhook calling Service ns/name, whose pods
// are the given workload.
func backendUnit(t *testing.T, wl Workload, budgets ...DisruptionBudget) (*Config, *Inventory) {
	t.Helper()
	c := decodeTestConfig(t, `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: hook}
webhooks:
- name: pods.hook.example.com
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig:
    service: {namespace: hook-system, name: hook}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
`)
	wl.Object.Namespace = "hook-system"
	wl.PodLabels = map[string]string{"app": "hook"}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hook", Namespace: "hook-system"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "hook"}, Ports: []corev1.ServicePort{{Port: 443}}}}
	return c, &Inventory{Configs: []*Config{c}, Services: []*corev1.Service{svc}, Workloads: []Workload{wl}, DisruptionBudgets: budgets}
}

func deployment(name string, replicas int32, fromValues, readiness, spread bool) Workload {
	pod := &PodSummary{Containers: []ContainerSummary{{Name: "server", Readiness: readiness}}}
	if spread {
		pod.SpreadKeys = []string{"kubernetes.io/hostname"}
	}
	return Workload{Object: diag.Object{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
		Replicas: replicas, ReplicasFromValues: fromValues, Pod: pod}
}

// One severity model: each gap has one level, values-driven ones are info,
// and the finding takes its worst gap's level and consequence. The shapes
// are the layouts' backends.
func TestBackendAvailabilitySeverityModel(t *testing.T) {
	one := intstr.FromInt32(1)
	budget := DisruptionBudget{Namespace: "hook-system", Name: "hook",
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "hook"}}, MaxUnavailable: &one}
	for _, tc := range []struct {
		name    string
		wl      Workload
		budgets []DisruptionBudget
		want    string // severity and the message; "" for none
	}{
		// kubernetes-sigs/cluster-api config/manager: replicas 1 in the manifest.
		{"manifest single replica", deployment("capi-controller-manager", 1, false, true, false), nil,
			"warning 1 replica; run 2+ replicas"},
		// cert-manager's chart: webhook.replicaCount 1 in values, with a readinessProbe.
		{"values single replica", deployment("cert-manager-webhook", 1, true, true, false), nil,
			"info 1 replica (chart value); run 2+ replicas"},
		// fluid's chart: webhook.replicas 1 in values, no readinessProbe in the template.
		{"values single replica, template without probe", deployment("fluid-webhook", 1, true, false, false), nil,
			"warning 1 replica (chart value), no readinessProbe; add a readinessProbe"},
		// 3scale-ops/marin3r's OLM bundle: 2 replicas, no budget, no spread.
		{"two replicas without budget or spread", deployment("marin3r-controller-webhook", 2, false, true, false), nil,
			"info no PDB, 2 replicas not spread; add a PodDisruptionBudget"},
		// Two replicas from values with a budget allowing one disruption: no drain
		// can empty it, only losing the node they share.
		{"values two replicas with a budget", deployment("hook", 2, true, true, false), []DisruptionBudget{budget},
			"info 2 replicas not spread; spread them over nodes"},
		{"two spread replicas with a budget", deployment("hook", 2, false, true, true), []DisruptionBudget{budget}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, in := backendUnit(t, tc.wl, tc.budgets...)
			var got []Finding
			NewPass(MustLookup("backend-availability"), c, in, DefaultSettings(), func(f Finding) { got = append(got, f) }).Run()
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("want no finding, got %+v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one finding, got %+v", got)
			}
			sev, msg, _ := strings.Cut(tc.want, " ")
			if got[0].Severity.String() != sev || got[0].Message != msg {
				t.Errorf("got %s %q, want %s %q", got[0].Severity, got[0].Message, sev, msg)
			}
		})
	}
}
