// Package realcode holds the uses of the admissionregistration types that
// real operators have besides building configurations: watches, decode and
// conversion targets, scheme registration, objects named for a Get or a
// Delete. Only the configurations being built are judged.
package realcode

import (
	"context"
	"encoding/json"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// What controller-runtime's client, builder and source look like to the
// analyzer: calls by name.
type Client interface {
	Get(ctx context.Context, key types.NamespacedName, obj runtime.Object) error
	Create(ctx context.Context, obj runtime.Object) error
	Update(ctx context.Context, obj runtime.Object) error
	Delete(ctx context.Context, obj runtime.Object) error
}

type Builder struct{}

func (b *Builder) For(runtime.Object) *Builder                                   { return b }
func (b *Builder) Owns(runtime.Object) *Builder                                  { return b }
func (b *Builder) Watches(runtime.Object, any) *Builder                          { return b }
func (b *Builder) Complete(any) error                                            { return nil }
func Kind(cache any, obj runtime.Object) any                                     { return nil }
func CreateOrUpdate(context.Context, Client, runtime.Object, func() error) error { return nil }

// Watches name the kind with an empty object: a type token.
func setupWithManager(b *Builder, cache any) error {
	_ = Kind(cache, &admissionregistrationv1.ValidatingWebhookConfiguration{})
	return b.For(&admissionregistrationv1.MutatingWebhookConfiguration{}).
		Owns(&admissionregistrationv1.ValidatingWebhookConfiguration{}).
		Watches(&admissionregistrationv1beta1.MutatingWebhookConfiguration{}, nil).
		Complete(nil)
}

// Scheme registration.
func addKnownTypes(scheme *runtime.Scheme) {
	gv := schema.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}
	scheme.AddKnownTypes(gv,
		&admissionregistrationv1.ValidatingWebhookConfiguration{},
		&admissionregistrationv1.ValidatingWebhookConfigurationList{},
		&admissionregistrationv1beta1.ValidatingWebhookConfiguration{},
	)
}

// Decode and read targets, and an object named to be deleted.
func reconcile(ctx context.Context, c Client, data []byte) error {
	current := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(ctx, types.NamespacedName{Name: "hooks"}, current); err != nil {
		return err
	}
	var decoded admissionregistrationv1.MutatingWebhookConfiguration
	if err := json.Unmarshal(data, &decoded); err != nil {
		return err
	}
	old := &admissionregistrationv1beta1.MutatingWebhookConfiguration{}
	if err := json.Unmarshal(data, old); err != nil {
		return err
	}
	return c.Delete(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "Legacy_Hooks"}})
}

// A conversion helper for clusters that still have v1beta1 objects: it
// builds nothing of its own, so nothing is said about v1beta1.
func fromV1beta1(in *admissionregistrationv1beta1.ValidatingWebhookConfiguration, scheme *runtime.Scheme) (*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	out := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := scheme.Convert(in, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

func toV1beta1(in *admissionregistrationv1.ValidatingWebhookConfiguration) *admissionregistrationv1beta1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1beta1.ValidatingWebhookConfiguration{ObjectMeta: in.ObjectMeta}
}

// A builder that returns a configuration: judged, one finding per cause.
func build() *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "hooks"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "vconfigmap.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/validate")},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassSome), // want `^error: webhooks\[0\]\.sideEffects: Unsupported value: "Some": .* \(also causes dry-run-side-effects\) \[side-effects-value\]$`
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// Objects sent to the API server are judged even without webhooks.
func install(ctx context.Context, c Client) error {
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}} // want `metadata\.name: Invalid value: "Bad_Name"`
	if err := c.Create(ctx, cfg); err != nil {
		return err
	}
	legacy := &admissionregistrationv1beta1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "legacy"}} // want `^error: v1beta1 removed in 1\.22; use v1 \[unserved-api-version\]$`
	return CreateOrUpdate(ctx, c, legacy, func() error { return nil })
}
