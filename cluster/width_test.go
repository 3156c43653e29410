package cluster

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/webhooklint/webhooklint/internal/linewidth"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// clusterOf is a fake cluster holding the objects of a manifest file as
// an API server would: each workload as its pods (owned by a ReplicaSet,
// as a Deployment's are), the rest as written. Documents that do not
// decode are left out.
func clusterOf(t *testing.T, file string) *fake.Clientset {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	for _, doc := range manifest.Documents(data) {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			continue
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			objs = append(objs, podsOf(o)...)
		case *corev1.Namespace, *corev1.Service, *corev1.Pod, *policyv1.PodDisruptionBudget, *discoveryv1.EndpointSlice,
			*admissionv1.ValidatingWebhookConfiguration, *admissionv1.MutatingWebhookConfiguration,
			*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding:
			objs = append(objs, obj)
		}
	}
	c := fake.NewClientset(objs...)
	served := func(groupVersion string, names ...string) *metav1.APIResourceList {
		l := &metav1.APIResourceList{GroupVersion: groupVersion}
		for _, n := range names {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: n})
		}
		return l
	}
	c.Resources = []*metav1.APIResourceList{
		served(rules.V1, "validatingwebhookconfigurations", "mutatingwebhookconfigurations",
			"validatingadmissionpolicies", "validatingadmissionpolicybindings"),
		served("v1", "pods", "pods/binding", "pods/status", "pods/exec", "services", "namespaces", "configmaps", "secrets",
			"serviceaccounts", "serviceaccounts/token", "nodes", "nodes/status", "events", "endpoints"),
		served("apps/v1", "deployments", "replicasets", "statefulsets", "daemonsets"),
		served("coordination.k8s.io/v1", "leases"),
		served("discovery.k8s.io/v1", "endpointslices"),
		served("policy/v1", "poddisruptionbudgets", "pods/eviction"),
		served("certificates.k8s.io/v1", "certificatesigningrequests"),
		served("networking.k8s.io/v1", "ingresses"),
	}
	return c
}

// podsOf are the pods a Deployment runs.
func podsOf(d *appsv1.Deployment) []runtime.Object {
	n := int32(1)
	if d.Spec.Replicas != nil {
		n = *d.Spec.Replicas
	}
	var out []runtime.Object
	for i := range n {
		p := &corev1.Pod{ObjectMeta: *d.Spec.Template.ObjectMeta.DeepCopy(), Spec: *d.Spec.Template.Spec.DeepCopy()}
		p.Namespace, p.Name = d.Namespace, d.Name+"-5d8f-"+string('a'+i)
		p.Labels = maps.Clone(p.Labels)
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels["pod-template-hash"] = "5d8f"
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: d.Name + "-5d8f", Controller: ptrTo(true)}}
		out = append(out, p)
	}
	return out
}

// clusterText is what `webhooklint cluster` and `webhooklint cluster
// --watch` print for the cluster c: the list, then a watch that sees the
// same objects, the first one deleted, and stops.
func clusterText(t *testing.T, c *fake.Clientset) (listed, watched string) {
	t.Helper()
	ctx := context.Background()
	o := Options{Live: true, Settings: rules.DefaultSettings()}
	res, err := Lint(ctx, c, o)
	if err != nil {
		t.Fatal(err)
	}
	objects := liveObjects{configs: map[string]*rules.Config{}, policies: map[string]*rules.Policy{}}
	var configs []*rules.Config
	for _, s := range res.Snapshots {
		for _, cfg := range s.Configs {
			objects.configs[configKey(cfg)] = cfg
			configs = append(configs, cfg)
		}
		for _, p := range s.Policies {
			objects.policies[policyKey(p)] = p
		}
	}
	var out bytes.Buffer
	if err := (&printer{w: &out}).result(res, objects); err != nil {
		t.Fatal(err)
	}
	listed = out.String()

	// The watch: the same snapshots and live state, then a deletion.
	out.Reset()
	p := &printer{w: &out}
	print := func(cs []Change) {
		for _, ch := range cs {
			p.change(ch)
		}
	}
	st := newStateWith(o.lintOptions())
	policyKinds, _ := policyKindsOf(c)
	for _, k := range append(kindsOf(c), policyKinds...) {
		snap, err := list(ctx, k, o.List)
		if err != nil {
			t.Fatal(err)
		}
		print(st.syncKind(k.Kind, snap.Configs, snap.Policies))
	}
	live, _ := readLive(ctx, c, 0)
	print(st.setLive(live))
	p.change(Change{Type: Synced})
	p.summary()
	if len(configs) > 0 {
		print(st.remove(configs[0]))
		p.summary()
	}
	return listed, out.String()
}

// The cluster mode's lines stay within the file mode's width (issue 38),
// in the same layout: a header that names the object, then its findings
// located by field path. The input is the file mode's (TestTextWidth), as
// the API server holds it, with the live checks: the example's pods, no
// endpoints.
func TestClusterTextWidth(t *testing.T) {
	file := filepath.Join("..", "examples", "webhooks.yaml")
	list, watch := clusterText(t, clusterOf(t, file))
	// 10 findings: the 9 of the file mode and the live service-unavailable
	// (the fake cluster has no endpoints).
	for mode, c := range map[string]struct {
		out  string
		want int
	}{"list": {list, 10}, "watch": {watch, 20}} {
		if n := linewidth.Check(t, mode, c.out); n < c.want {
			t.Errorf("%s: %d finding lines checked, want %d or more:\n%s", mode, n, c.want, c.out)
		}
		checkHeaders(t, mode, c.out)
	}
}

var summaryRE = regexp.MustCompile(`^(?:\d+ errors?, \d+ warnings?(?:, \d+ infos?)? in |no findings in )`)

// checkHeaders checks that each finding line comes under a header that
// names its object, as in the file mode.
func checkHeaders(t *testing.T, what, out string) {
	t.Helper()
	header := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "In "):
			header = strings.HasSuffix(line, ":")
		case line == "" || strings.HasPrefix(line, "# ") || summaryRE.MatchString(line):
			header = false
		case strings.HasPrefix(line, " "): // an excerpt or a related location
		default:
			if !header {
				t.Errorf("%s: a line under no header: %s", what, line)
			}
		}
	}
}
