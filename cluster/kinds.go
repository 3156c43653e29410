package cluster

import (
	"context"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/webhooklint/webhooklint/rules"
)

// kind is one of the two configuration kinds, with the calls the list and
// watch loops need, independent of the Go type.
type kind struct {
	Kind     string // rules.Validating or rules.Mutating
	Resource string // plural resource name, as RBAC and URLs spell it
	list     func(context.Context, metav1.ListOptions) ([]*rules.Config, metav1.ListMeta, error)
	watch    func(context.Context, metav1.ListOptions) (watch.Interface, error)
}

// configOf converts a watched object. Bookmarks carry an object of the
// same type holding only metadata, so the conversion also serves them.
func configOf(o runtime.Object) (*rules.Config, bool) {
	switch o := o.(type) {
	case *admissionv1.ValidatingWebhookConfiguration:
		return rules.FromValidating(rules.V1, o), true
	case *admissionv1.MutatingWebhookConfiguration:
		return rules.FromMutating(rules.V1, o), true
	}
	return nil, false
}

func kindsOf(c kubernetes.Interface) []*kind {
	v := c.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	m := c.AdmissionregistrationV1().MutatingWebhookConfigurations()
	return []*kind{
		{
			Kind: rules.Validating, Resource: "validatingwebhookconfigurations",
			list: func(ctx context.Context, o metav1.ListOptions) ([]*rules.Config, metav1.ListMeta, error) {
				l, err := v.List(ctx, o)
				if err != nil {
					return nil, metav1.ListMeta{}, err
				}
				out := make([]*rules.Config, len(l.Items))
				for i := range l.Items {
					out[i] = rules.FromValidating(rules.V1, &l.Items[i])
				}
				return out, l.ListMeta, nil
			},
			watch: v.Watch,
		},
		{
			Kind: rules.Mutating, Resource: "mutatingwebhookconfigurations",
			list: func(ctx context.Context, o metav1.ListOptions) ([]*rules.Config, metav1.ListMeta, error) {
				l, err := m.List(ctx, o)
				if err != nil {
					return nil, metav1.ListMeta{}, err
				}
				out := make([]*rules.Config, len(l.Items))
				for i := range l.Items {
					out[i] = rules.FromMutating(rules.V1, &l.Items[i])
				}
				return out, l.ListMeta, nil
			},
			watch: m.Watch,
		},
	}
}
