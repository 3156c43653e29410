package cluster

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

func vap(name, rv string) admissionv1.ValidatingAdmissionPolicy {
	return admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: rules.V1, Kind: rules.ValidatingPolicy},
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv, UID: types.UID("uid-" + name)},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				},
			}}},
			Validations: []admissionv1.Validation{{Expression: "object.spec.replicas <= 5"}},
		},
	}
}

func vapBinding(name, rv, policy string) admissionv1.ValidatingAdmissionPolicyBinding {
	return admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rules.V1, Kind: rules.ValidatingPolicyBinding},
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv, UID: types.UID("uid-" + name)},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
}

func testPolicy(o admissionv1.ValidatingAdmissionPolicy) *rules.Policy {
	_, p, _ := objectOf(&o)
	return p
}

func testBinding(o admissionv1.ValidatingAdmissionPolicyBinding) *rules.Policy {
	_, p, _ := objectOf(&o)
	return p
}

func TestPolicyKindsFollowDiscovery(t *testing.T) {
	c := fake.NewClientset()
	c.Resources = []*metav1.APIResourceList{{
		GroupVersion: rules.V1,
		APIResources: []metav1.APIResource{
			{Name: "validatingwebhookconfigurations"}, {Name: "validatingadmissionpolicies"},
			{Name: "validatingadmissionpolicies/status"}, {Name: "validatingadmissionpolicybindings"},
		},
	}}
	kinds, notes := policyKindsOf(c)
	var got []string
	for _, k := range kinds {
		got = append(got, k.Kind)
	}
	if strings.Join(got, ",") != "ValidatingAdmissionPolicy,ValidatingAdmissionPolicyBinding" {
		t.Errorf("kinds %v", got)
	}
	want := "mutatingadmissionpolicies: not served by this server in admissionregistration.k8s.io/v1; skipped\n" +
		"mutatingadmissionpolicybindings: not served by this server in admissionregistration.k8s.io/v1; skipped"
	if strings.Join(notes, "\n") != want {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), want)
	}
}

// The policy kinds are listed and watched as the configurations are.
func TestWatchPolicyBindings(t *testing.T) {
	hold := make(chan struct{})
	f := &fakeAPI{t: t, resource: "validatingadmissionpolicybindings", serve: func(n int, q url.Values, w *fakeResponse) {
		switch {
		case q.Get("sendInitialEvents") == "true":
			end := vapBinding("", "12", "")
			end.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
			w.watch(nil, event("ADDED", vapBinding("b", "11", "p")), event("ADDED", vapBinding("a", "10", "p")),
				event("BOOKMARK", end), event("MODIFIED", vapBinding("a", "13", "q")))
		default:
			w.watch(hold, event("DELETED", vapBinding("b", "14", "p")))
		}
	}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(hold) }) // before the server closes: cleanups run last-in first-out
	got := collect(t, &kindWatcher{k: allPolicyKinds(c)[1], mode: StreamAuto}, 3)
	if want := "snapshot a@10,b@11\nupsert a@13\nremove b"; describe(got) != want {
		t.Errorf("updates:\n%s\nwant:\n%s", describe(got), want)
	}
	if q := f.requests()[1]; q.Get("resourceVersion") != "13" || q.Get("watch") != "true" {
		t.Errorf("resumed watch %v, want it from resourceVersion 13", q)
	}
	if got[0].kind != rules.ValidatingPolicyBinding || got[0].resource != "validatingadmissionpolicybindings" {
		t.Errorf("update of kind %q resource %q", got[0].kind, got[0].resource)
	}
}

// policySummary keeps the policy-binding-reference findings and object events.
func policySummary(cs []Change) string {
	var out []string
	for _, c := range cs {
		switch {
		case c.Diagnostic == nil:
			out = append(out, string(c.Type)+" "+objectKey(c.Object))
		case c.Diagnostic.Rule == "policy-binding-reference":
			s := string(c.Type) + " " + objectKey(c.Object) + " " + c.Diagnostic.Path
			if c.Reason != "" {
				s += " (" + c.Reason + ")"
			}
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

func TestStateLintsPolicies(t *testing.T) {
	st := newStateWith(lint.Options{})
	steps := []struct {
		name string
		do   func() []Change
		want string
	}{
		{"a policy and a binding naming another", func() []Change {
			st.syncKind(rules.ValidatingPolicy, nil, []*rules.Policy{testPolicy(vap("p", "1"))})
			return st.syncKind(rules.ValidatingPolicyBinding, nil, []*rules.Policy{testBinding(vapBinding("b", "2", "q"))})
		}, "added ValidatingAdmissionPolicyBinding/b; " +
			"found ValidatingAdmissionPolicy/p metadata.name; found ValidatingAdmissionPolicyBinding/b spec.policyName"},
		{"the same binding replayed", func() []Change { return st.upsertPolicy(testBinding(vapBinding("b", "2", "q"))) }, ""},
		// The cluster's bindings were listed: with none left, the policy
		// is still unbound, not fixed.
		{"the binding deleted", func() []Change { return st.removePolicy(testBinding(vapBinding("b", "3", "q"))) },
			"deleted ValidatingAdmissionPolicyBinding/b; " +
				"resolved ValidatingAdmissionPolicyBinding/b spec.policyName (binding deleted)"},
		{"the binding back", func() []Change { return st.upsertPolicy(testBinding(vapBinding("b", "4", "q"))) },
			"added ValidatingAdmissionPolicyBinding/b; " +
				"found ValidatingAdmissionPolicyBinding/b spec.policyName"},
		{"the fix", func() []Change { return st.upsertPolicy(testBinding(vapBinding("b", "5", "p"))) },
			"changed ValidatingAdmissionPolicyBinding/b; " +
				"resolved ValidatingAdmissionPolicy/p metadata.name (fixed); resolved ValidatingAdmissionPolicyBinding/b spec.policyName (fixed)"},
		// With no policy left in the cluster, the binding names none.
		{"the policy deleted", func() []Change { return st.removePolicy(testPolicy(vap("p", "6"))) },
			"deleted ValidatingAdmissionPolicy/p; found ValidatingAdmissionPolicyBinding/b spec.policyName"},
		{"a relist without the binding", func() []Change { return st.syncKind(rules.ValidatingPolicyBinding, nil, nil) },
			"deleted ValidatingAdmissionPolicyBinding/b; resolved ValidatingAdmissionPolicyBinding/b spec.policyName (binding deleted)"},
	}
	for _, s := range steps {
		if got := policySummary(s.do()); got != s.want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, s.want)
		}
	}
	if ds := st.diagnostics(); len(ds) != 0 {
		t.Errorf("findings left: %v", ds)
	}
}

// A cluster that has no policy at all still lists its policies: a binding
// there names a policy that does not exist, said of the cluster.
func TestBindingInAClusterWithoutPolicies(t *testing.T) {
	st := newStateWith(lint.Options{})
	st.syncKind(rules.ValidatingPolicy, nil, nil)
	st.syncKind(rules.ValidatingPolicyBinding, nil, []*rules.Policy{testBinding(vapBinding("b", "1", "q"))})
	want := `no ValidatingAdmissionPolicy "q" in the cluster; name one of the cluster's policies`
	var got []string
	for _, d := range st.diagnostics() {
		if d.Rule == "policy-binding-reference" {
			got = append(got, d.Message)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("findings %q, want one: %s", got, want)
	}
}

func TestPolicyExcerpt(t *testing.T) {
	p := testBinding(vapBinding("b", "1", "missing"))
	if got, want := policyExcerpt(p, "spec.policyName"), "spec.policyName: missing"; got != want {
		t.Errorf("excerpt %q, want %q", got, want)
	}
}

// forbiddingPolicies is a cluster that serves the validating policy kinds,
// holds a binding naming a missing policy, and forbids listing and
// watching validatingadmissionpolicies, as a ClusterRole from before
// webhooklint read policies does.
func forbiddingPolicies() *fake.Clientset {
	b := vapBinding("b", "1", "missing")
	c := fake.NewClientset(&b)
	c.Resources = []*metav1.APIResourceList{{
		GroupVersion: rules.V1,
		APIResources: []metav1.APIResource{
			{Name: "validatingwebhookconfigurations"}, {Name: "mutatingwebhookconfigurations"},
			{Name: "validatingadmissionpolicies"}, {Name: "validatingadmissionpolicybindings"},
		},
	}}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}, "", errors.New("RBAC"))
	c.PrependReactor("list", "validatingadmissionpolicies", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, forbidden
	})
	c.PrependWatchReactor("validatingadmissionpolicies", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, forbidden
	})
	return c
}

// A ClusterRole from before webhooklint read policies forbids listing
// them: the run lints the webhook configurations, says what to grant, and
// judges no binding without its policies.
func TestLintPoliciesForbidden(t *testing.T) {
	res, err := Lint(context.Background(), forbiddingPolicies(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "admission policies not read: listing validatingadmissionpolicies is forbidden") {
		t.Errorf("notes: %v", res.Notes)
	}
	for _, d := range res.Diagnostics {
		if rules.IsPolicyKind(d.Object.APIVersion, d.Object.Kind) {
			t.Errorf("a finding on a policy object: %+v", d)
		}
	}
	if len(res.Snapshots) != 2 {
		t.Errorf("%d snapshots, want the two webhook configuration kinds", len(res.Snapshots))
	}
}

// The same in a watch: a note, the run goes on synced, and no policy
// object is judged.
func TestWatchPoliciesForbidden(t *testing.T) {
	c := forbiddingPolicies()
	changes := make(chan Change, 100)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := (&Watcher{Client: c, Options: Options{Stream: StreamNever}, Sink: func(ch Change) { changes <- ch }}).Run(ctx)
		done <- err
	}()
	var noted, synced bool
	timeout := time.After(30 * time.Second)
	for !noted || !synced {
		select {
		case ch := <-changes:
			switch {
			case ch.Type == Note && strings.Contains(ch.Reason, "listing validatingadmissionpolicies is forbidden"):
				noted = true
			case ch.Type == Synced:
				synced = true
			case ch.Diagnostic != nil && rules.IsPolicyKind(ch.Diagnostic.Object.APIVersion, ch.Diagnostic.Object.Kind):
				t.Errorf("a finding on a policy object: %+v", ch.Diagnostic)
			}
		case err := <-done:
			t.Fatalf("the watch stopped: %v", err)
		case <-timeout:
			t.Fatalf("no note and sync (noted %v, synced %v)", noted, synced)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
