package cluster

import (
	"context"
	"errors"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"

	"github.com/webhooklint/webhooklint/rules"
)

// kind is one of the kinds the cluster command reads (the two webhook
// configuration kinds, the four admission policy kinds), with the calls the
// list and watch loops need, independent of the Go type. A list returns
// configurations or policies, never both.
type kind struct {
	Kind     string // rules.Validating, rules.Mutating or a policy kind
	Resource string // plural resource name, as RBAC and URLs spell it
	list     func(context.Context, metav1.ListOptions) ([]*rules.Config, []*rules.Policy, metav1.ListMeta, error)
	watch    func(context.Context, metav1.ListOptions) (watch.Interface, error)
}

// objectOf converts a watched object to a configuration or a policy.
// Bookmarks carry an object of the same type holding only metadata, so the
// conversion also serves them.
func objectOf(o runtime.Object) (*rules.Config, *rules.Policy, bool) {
	switch o := o.(type) {
	case *admissionv1.ValidatingWebhookConfiguration:
		return rules.FromValidating(rules.V1, o), nil, true
	case *admissionv1.MutatingWebhookConfiguration:
		return rules.FromMutating(rules.V1, o), nil, true
	case *admissionv1.ValidatingAdmissionPolicy:
		return nil, policyOf(o.ObjectMeta, rules.ValidatingPolicy, func(p *rules.Policy) { p.Validating = o }), true
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		return nil, policyOf(o.ObjectMeta, rules.ValidatingPolicyBinding, func(p *rules.Policy) { p.ValidatingBinding = o }), true
	case *admissionv1.MutatingAdmissionPolicy:
		return nil, policyOf(o.ObjectMeta, rules.MutatingPolicy, func(p *rules.Policy) { p.Mutating = o }), true
	case *admissionv1.MutatingAdmissionPolicyBinding:
		return nil, policyOf(o.ObjectMeta, rules.MutatingPolicyBinding, func(p *rules.Policy) { p.MutatingBinding = o }), true
	}
	return nil, nil, false
}

// policyOf wraps a live policy object. The server's objects carry no
// apiVersion and kind in lists, so both are set here.
func policyOf(m metav1.ObjectMeta, kindName string, set func(*rules.Policy)) *rules.Policy {
	p := &rules.Policy{APIVersion: rules.V1, Kind: kindName, Meta: m}
	set(p)
	return p
}

func kindsOf(c kubernetes.Interface) []*kind {
	v := c.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	m := c.AdmissionregistrationV1().MutatingWebhookConfigurations()
	return []*kind{
		{
			Kind: rules.Validating, Resource: "validatingwebhookconfigurations",
			list: func(ctx context.Context, o metav1.ListOptions) ([]*rules.Config, []*rules.Policy, metav1.ListMeta, error) {
				l, err := v.List(ctx, o)
				if err != nil {
					return nil, nil, metav1.ListMeta{}, err
				}
				out := make([]*rules.Config, len(l.Items))
				for i := range l.Items {
					out[i] = rules.FromValidating(rules.V1, &l.Items[i])
				}
				return out, nil, l.ListMeta, nil
			},
			watch: v.Watch,
		},
		{
			Kind: rules.Mutating, Resource: "mutatingwebhookconfigurations",
			list: func(ctx context.Context, o metav1.ListOptions) ([]*rules.Config, []*rules.Policy, metav1.ListMeta, error) {
				l, err := m.List(ctx, o)
				if err != nil {
					return nil, nil, metav1.ListMeta{}, err
				}
				out := make([]*rules.Config, len(l.Items))
				for i := range l.Items {
					out[i] = rules.FromMutating(rules.V1, &l.Items[i])
				}
				return out, nil, l.ListMeta, nil
			},
			watch: m.Watch,
		},
	}
}

// policyListOf lists one policy kind: items picks the objects out of a
// list, and objectOf, which also converts watched objects, makes them
// policies.
func policyListOf[L any, T any, PT interface {
	*T
	runtime.Object
}](list func(context.Context, metav1.ListOptions) (L, error), items func(L) ([]T, metav1.ListMeta)) func(context.Context, metav1.ListOptions) ([]*rules.Config, []*rules.Policy, metav1.ListMeta, error) {
	return func(ctx context.Context, o metav1.ListOptions) ([]*rules.Config, []*rules.Policy, metav1.ListMeta, error) {
		l, err := list(ctx, o)
		if err != nil {
			return nil, nil, metav1.ListMeta{}, err
		}
		objs, meta := items(l)
		out := make([]*rules.Policy, len(objs))
		for i := range objs {
			_, out[i], _ = objectOf(PT(&objs[i]))
		}
		return nil, out, meta, nil
	}
}

// allPolicyKinds are the four admission policy kinds, in output order.
func allPolicyKinds(c kubernetes.Interface) []*kind {
	a := c.AdmissionregistrationV1()
	vp, vb := a.ValidatingAdmissionPolicies(), a.ValidatingAdmissionPolicyBindings()
	mp, mb := a.MutatingAdmissionPolicies(), a.MutatingAdmissionPolicyBindings()
	return []*kind{
		{
			Kind: rules.ValidatingPolicy, Resource: "validatingadmissionpolicies",
			list: policyListOf(vp.List, func(l *admissionv1.ValidatingAdmissionPolicyList) ([]admissionv1.ValidatingAdmissionPolicy, metav1.ListMeta) {
				return l.Items, l.ListMeta
			}),
			watch: vp.Watch,
		},
		{
			Kind: rules.ValidatingPolicyBinding, Resource: "validatingadmissionpolicybindings",
			list: policyListOf(vb.List, func(l *admissionv1.ValidatingAdmissionPolicyBindingList) ([]admissionv1.ValidatingAdmissionPolicyBinding, metav1.ListMeta) {
				return l.Items, l.ListMeta
			}),
			watch: vb.Watch,
		},
		{
			Kind: rules.MutatingPolicy, Resource: "mutatingadmissionpolicies",
			list: policyListOf(mp.List, func(l *admissionv1.MutatingAdmissionPolicyList) ([]admissionv1.MutatingAdmissionPolicy, metav1.ListMeta) {
				return l.Items, l.ListMeta
			}),
			watch: mp.Watch,
		},
		{
			Kind: rules.MutatingPolicyBinding, Resource: "mutatingadmissionpolicybindings",
			list: policyListOf(mb.List, func(l *admissionv1.MutatingAdmissionPolicyBindingList) ([]admissionv1.MutatingAdmissionPolicyBinding, metav1.ListMeta) {
				return l.Items, l.ListMeta
			}),
			watch: mb.Watch,
		},
	}
}

// policyKindsOf is the policy kinds the server serves in
// admissionregistration.k8s.io/v1, by discovery, and a note per kind it
// does not serve (MutatingAdmissionPolicy before 1.36) or when discovery
// fails: those kinds are skipped, not an error.
func policyKindsOf(c kubernetes.Interface) ([]*kind, []string) {
	kinds, notes, err := servedPolicyKinds(c)
	if err != nil {
		return nil, []string{err.Error()}
	}
	return kinds, notes
}

// servedPolicyKinds is policyKindsOf with the failure of discovery as an
// error, for callers that must tell "none served" from "not known".
func servedPolicyKinds(c kubernetes.Interface) ([]*kind, []string, error) {
	served, err := servedIn(c.Discovery(), rules.V1)
	all := allPolicyKinds(c)
	if err != nil {
		return nil, nil, errors.New("admission policies not read: discovery of " + rules.V1 + " failed: " + err.Error())
	}
	var out []*kind
	var notes []string
	for _, k := range all {
		if slices.Contains(served, k.Resource) {
			out = append(out, k)
		} else {
			notes = append(notes, k.Resource+": not served by this server in "+rules.V1+"; skipped")
		}
	}
	return out, notes, nil
}

// policiesForbidden is the note of a run whose RBAC does not grant a
// policy kind (a ClusterRole from before webhooklint read policies).
func policiesForbidden(resource string) string {
	return "admission policies not read: listing " + resource + " is forbidden; " +
		"grant get, list and watch on the four admission policy resources (deploy/rbac.yaml)"
}

// servedIn lists the resources discovery reports for one group/version.
func servedIn(d discovery.DiscoveryInterface, groupVersion string) ([]string, error) {
	l, err := d.ServerResourcesForGroupVersion(groupVersion)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range l.APIResources {
		out = append(out, r.Name)
	}
	return out, nil
}
