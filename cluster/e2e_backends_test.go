package cluster

// End-to-end test of the backend checks (service-reference,
// backend-availability, service-unavailable) against a real API server:
// the pods, EndpointSlices and PodDisruptionBudgets are real objects, and
// the findings must be the ones the same objects give as files. With no
// controller-manager nothing creates pods, so the test creates them as a
// ReplicaSet would (owner reference, pod-template-hash label).

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

const backendsNS = "backends-e2e"

// backendPodSpec is the pod template of the webhook server, in both forms.
type backendPodSpec struct {
	ready, spread bool
}

func (s backendPodSpec) pod(name string) *corev1.Pod {
	no := false
	c := corev1.Container{Name: "server", Image: "example.com/checker:1.0",
		Ports: []corev1.ContainerPort{{Name: "webhook", ContainerPort: 9443}}}
	if s.ready {
		c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(8081)}}}
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: backendsNS, Name: name,
			Labels: map[string]string{"app": "checker", "pod-template-hash": "5d8f"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "checker-5d8f",
				UID: "0b0e5a3c-0000-4000-8000-000000000001", Controller: ptrTo(true)}},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{c}, AutomountServiceAccountToken: &no},
	}
	if s.spread {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname",
			WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "checker"}}}}
	}
	return p
}

// manifests renders the same objects as files: the Deployment that would
// own those pods, and the Service, budget and configuration as created.
func (s backendPodSpec) manifests(replicas int, budget string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: v1
kind: Service
metadata: {name: checker, namespace: %[1]s}
spec:
  selector: {app: checker}
  ports: [{name: https, port: 443, targetPort: webhook}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: checker, namespace: %[1]s}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: checker}}
  template:
    metadata: {labels: {app: checker}}
    spec:
`, backendsNS, replicas)
	if s.spread {
		b.WriteString("      topologySpreadConstraints:\n      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: checker}}}\n")
	}
	b.WriteString("      containers:\n      - name: server\n        image: example.com/checker:1.0\n        ports: [{name: webhook, containerPort: 9443}]\n")
	if s.ready {
		b.WriteString("        readinessProbe: {httpGet: {path: /readyz, port: 8081}}\n")
	}
	if budget != "" {
		fmt.Fprintf(&b, "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: checker, namespace: %s}\nspec:\n  %s\n  selector: {matchLabels: {app: checker}}\n", backendsNS, budget)
	}
	fmt.Fprintf(&b, `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: backends-e2e}
webhooks:
- name: check.backends.example.com
  clientConfig:
    service: {namespace: %s, name: checker}
  objectSelector: {matchLabels: {backends-e2e/never: "true"}}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  sideEffects: None
  admissionReviewVersions: [v1]
`, backendsNS)
	return b.String()
}

func TestE2EBackendChecks(t *testing.T) {
	c, _ := e2e(t)
	ctx := e2eCtx(t)
	setUpBackendNamespace(t, ctx, c)

	// The Service, a ready endpoint (so service-unavailable stays silent)
	// and a fail-closed webhook that intercepts nothing the other tests do.
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: backendsNS, Name: "checker"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "checker"},
			Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromString("webhook")}}},
	}
	create(t, ctx, func() error {
		_, err := c.CoreV1().Services(backendsNS).Create(ctx, svc, metav1.CreateOptions{})
		return err
	},
		func() error {
			return c.CoreV1().Services(backendsNS).Delete(context.Background(), "checker", metav1.DeleteOptions{})
		})
	ready := true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: backendsNS, Name: "checker-1", Labels: map[string]string{discoveryv1.LabelServiceName: "checker"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptrTo("https"), Port: ptrTo(int32(9443))}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
	}
	create(t, ctx, func() error {
		_, err := c.DiscoveryV1().EndpointSlices(backendsNS).Create(ctx, slice, metav1.CreateOptions{})
		return err
	}, func() error {
		return c.DiscoveryV1().EndpointSlices(backendsNS).Delete(context.Background(), "checker-1", metav1.DeleteOptions{})
	})
	none := admissionv1.SideEffectClassNone
	vwc := &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "backends-e2e"},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name:                    "check.backends.example.com",
			ClientConfig:            admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: backendsNS, Name: "checker"}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"backends-e2e/never": "true"}},
			Rules:                   []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create}, Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	api := c.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	create(t, ctx, func() error { _, err := api.Create(ctx, vwc, metav1.CreateOptions{}); return err },
		func() error { return api.Delete(context.Background(), "backends-e2e", metav1.DeleteOptions{}) })

	pods := c.CoreV1().Pods(backendsNS)
	setPods := func(spec backendPodSpec, n int) {
		t.Helper()
		list, err := pods.List(ctx, metav1.ListOptions{})
		must(t, err)
		for _, p := range list.Items {
			must(t, pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptrTo(int64(0))}))
		}
		for i := range n {
			_, err := pods.Create(ctx, spec.pod(fmt.Sprintf("checker-5d8f-%d-%d", i, len(list.Items))), metav1.CreateOptions{})
			must(t, err)
		}
	}
	t.Cleanup(func() { _ = pods.DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}) })
	budgets := c.PolicyV1().PodDisruptionBudgets(backendsNS)
	setBudget := func(min *intstr.IntOrString) {
		t.Helper()
		_ = budgets.Delete(ctx, "checker", metav1.DeleteOptions{})
		if min == nil {
			return
		}
		pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: backendsNS, Name: "checker"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: min, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "checker"}}}}
		_, err := budgets.Create(ctx, pdb, metav1.CreateOptions{})
		must(t, err)
	}
	t.Cleanup(func() { _ = budgets.Delete(context.Background(), "checker", metav1.DeleteOptions{}) })

	for _, tc := range []struct {
		name     string
		spec     backendPodSpec
		replicas int
		budget   *intstr.IntOrString // minAvailable
		want     string              // "" for no finding
	}{
		{"one bare replica", backendPodSpec{}, 1, nil,
			`Deployment "checker": 1 replica, no readinessProbe; run 2+ replicas`},
		{"a budget allowing no disruption", backendPodSpec{ready: true}, 2, ptrTo(intstr.FromString("100%")),
			`Deployment "checker": PDB "checker" allows no disruption, 2 replicas not spread; allow 1 disruption`},
		{"available", backendPodSpec{ready: true, spread: true}, 2, ptrTo(intstr.FromInt32(1)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setPods(tc.spec, tc.replicas)
			setBudget(tc.budget)
			budget := ""
			if tc.budget != nil {
				budget = "minAvailable: " + tc.budget.String()
				if tc.budget.Type == intstr.String {
					budget = fmt.Sprintf("minAvailable: %q", tc.budget.String())
				}
			}
			live := backendFindings(t, liveDiagnostics(t, ctx, c))
			files := backendFindings(t, fileDiagnostics(t, tc.spec.manifests(tc.replicas, budget)))
			if tc.want == "" && len(live) > 0 || tc.want != "" && (len(live) != 1 || !strings.Contains(live[0], tc.want)) {
				t.Errorf("live findings:\n%s\nwant one with %q", strings.Join(live, "\n"), tc.want)
			}
			// In files the finding is located on the workload, which the
			// report's header names; live, it is on the webhook and the
			// message names the workload.
			for i := range files {
				if !strings.Contains(files[i], `Deployment "checker": `) {
					files[i] = strings.Replace(files[i], "clientConfig.service: ", `clientConfig.service: Deployment "checker": `, 1)
				}
			}
			if strings.Join(live, "\n") != strings.Join(files, "\n") {
				t.Errorf("live and file findings differ:\nlive:  %s\nfiles: %s", strings.Join(live, "\n"), strings.Join(files, "\n"))
			}
		})
	}

	// A named targetPort no pod declares: service-reference on files,
	// service-unavailable's explanation on the cluster.
	svc.Spec.Ports[0].TargetPort = intstr.FromString("webhok")
	cur, err := c.CoreV1().Services(backendsNS).Get(ctx, "checker", metav1.GetOptions{})
	must(t, err)
	cur.Spec.Ports = svc.Spec.Ports
	_, err = c.CoreV1().Services(backendsNS).Update(ctx, cur, metav1.UpdateOptions{})
	must(t, err)
	must(t, c.DiscoveryV1().EndpointSlices(backendsNS).Delete(ctx, "checker-1", metav1.DeleteOptions{}))
	var unavailable string
	for _, d := range liveDiagnostics(t, ctx, c) {
		if d.Rule == "service-unavailable" {
			unavailable = d.Message
		}
	}
	if want := `targetPort "webhok" names no container port of Deployment "checker" (it declares ports 9443 ("webhook"))`; !strings.Contains(unavailable, want) {
		t.Errorf("service-unavailable: %q, want it to contain %q", unavailable, want)
	}
}

func setUpBackendNamespace(t *testing.T, ctx context.Context, c kubernetes.Interface) {
	t.Helper()
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: backendsNS}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// No controller-manager creates the default ServiceAccount, which the
	// ServiceAccount admission plugin requires of every pod.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: backendsNS, Name: "default"}}
	if _, err := c.CoreV1().ServiceAccounts(backendsNS).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// create runs a creation and registers its deletion.
func create(t *testing.T, _ context.Context, do, undo func() error) {
	t.Helper()
	if err := do(); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = undo() })
}

func liveDiagnostics(t *testing.T, ctx context.Context, c kubernetes.Interface) []rulesDiagnostic {
	t.Helper()
	res, err := Lint(ctx, c, Options{Live: true, List: ListOptions{ChunkSize: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) > 0 {
		t.Errorf("notes: %v", res.Notes)
	}
	var out []rulesDiagnostic
	for _, d := range res.Diagnostics {
		if d.Object != nil && d.Object.Name == "backends-e2e" {
			out = append(out, rulesDiagnostic{Rule: d.Rule, Path: d.Path, Message: d.Message})
		}
	}
	return out
}

func fileDiagnostics(t *testing.T, bundle string) []rulesDiagnostic {
	t.Helper()
	res := lint.LintUnit(lint.Unit{Files: []*manifest.File{manifest.Parse("bundle.yaml", []byte(bundle))}}, lint.Options{Settings: rules.DefaultSettings()})
	var out []rulesDiagnostic
	for _, d := range res.Diagnostics {
		// A file finding is located at the backend's field (its cause); the
		// webhook's path is its related location, which a live finding, with
		// no backend object to point at, keeps.
		path := d.Path
		if len(d.Related) > 0 {
			path = d.Related[0].Path
		}
		out = append(out, rulesDiagnostic{Rule: d.Rule, Path: path, Message: d.Message})
	}
	return out
}

// rulesDiagnostic is the part of a finding both front ends must agree on.
type rulesDiagnostic struct{ Rule, Path, Message string }

// backendFindings keeps the backend checks' findings as "rule path: message".
func backendFindings(t *testing.T, ds []rulesDiagnostic) []string {
	t.Helper()
	var out []string
	for _, d := range ds {
		switch d.Rule {
		case "backend-availability", "service-reference", "provider-control-plane-port":
			out = append(out, d.Rule+" "+d.Path+": "+d.Message)
		}
	}
	return out
}
