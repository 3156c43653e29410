package cluster

import (
	"bytes"
	"testing"

	"github.com/webhooklint/webhooklint/internal/linewidth"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

// A watch prints as the file mode does: each finding under a header that
// names its object, located by its field path, with the event's mark in
// front; each snapshot ends with the file mode's summary line.
func TestWatchText(t *testing.T) {
	st := newStateWith(lint.Options{})
	var out bytes.Buffer
	p := &printer{w: &out, excerpt: true}
	print := func(cs []Change) {
		for _, c := range cs {
			p.change(c)
		}
	}
	print(st.syncKind(rules.ValidatingPolicy, nil, []*rules.Policy{testPolicy(vap("p", "1"))}))
	print(st.syncKind(rules.ValidatingPolicyBinding, nil, []*rules.Policy{testBinding(vapBinding("b", "2", "q"))}))
	p.change(Change{Type: Synced})
	print(st.upsertPolicy(testBinding(vapBinding("b", "3", "p"))))
	p.summary()
	want := `# added ValidatingAdmissionPolicy/p (resourceVersion 1)
# added ValidatingAdmissionPolicyBinding/b (resourceVersion 2)
In ValidatingAdmissionPolicy "p":
+ metadata.name: warning: no ValidatingAdmissionPolicyBinding in the cluster names this policy; bind it or remove it [policy-binding-reference]
    metadata.name: p
In ValidatingAdmissionPolicyBinding "b":
+ spec.policyName: warning: no ValidatingAdmissionPolicy "q" in the cluster; name one of the cluster's policies [policy-binding-reference]
    spec.policyName: q

0 errors, 2 warnings in 2 admission policies and bindings
# synced: watching for changes
# changed ValidatingAdmissionPolicyBinding/b (resourceVersion 3)
In ValidatingAdmissionPolicy "p":
- metadata.name: warning: no ValidatingAdmissionPolicyBinding in the cluster names this policy; bind it or remove it [policy-binding-reference] (fixed)
+ spec.matchConstraints.resourceRules: warning: fails closed on kube-system deployments.apps; exclude kube-* namespaces, or fail open [policy-system-critical-scope]
    spec.matchConstraints.resourceRules:
      - apiGroups:
        - apps
        apiVersions:
        - v1
        operations:
        - CREATE
        resources:
        - deployments
In ValidatingAdmissionPolicyBinding "b":
- spec.policyName: warning: no ValidatingAdmissionPolicy "q" in the cluster; name one of the cluster's policies [policy-binding-reference] (fixed)

0 errors, 1 warning in 2 admission policies and bindings
`
	if got := out.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	linewidth.Check(t, "watch", out.String())
}

// An excerpt walks the path as the API server prints it: a bracketed map
// key with dots in it is one step.
func TestExcerptPath(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "x"}},
		"webhooks": []any{map[string]any{"name": "a.b", "timeoutSeconds": 30}},
	}
	for path, want := range map[string]string{
		"metadata.labels[app.kubernetes.io/name]": "metadata.labels[app.kubernetes.io/name]: x",
		"webhooks[0].timeoutSeconds":              "webhooks[0].timeoutSeconds: 30",
		"webhooks[0].sideEffects":                 "webhooks[0]:\n  name: a.b\n  timeoutSeconds: 30",
	} {
		if got := excerptOf(obj, path); got != want {
			t.Errorf("excerptOf(%q) = %q, want %q", path, got, want)
		}
	}
}
