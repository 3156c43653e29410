package manifest

import (
	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"

	"github.com/webhooklint/webhooklint/rules"
)

// readCRD keeps a CustomResourceDefinition with its per-version schemas,
// which type the objects webhooks on its custom resources receive, and its
// conversion webhook. A v1beta1 CRD (served until 1.21) is read into v1's
// shape by the API server's own conversion, so the rules of v1 CRDs judge
// it as the server of its time stored it; its TypeMeta keeps the version it
// is written in (rules.IsV1beta1CRD).
func readCRD(src *source, obj *yaml.Node, apiVersion, kind string, b *budget) (*apiextensionsv1.CustomResourceDefinition, bool) {
	if kind != "CustomResourceDefinition" {
		return nil, false
	}
	var crd *apiextensionsv1.CustomResourceDefinition
	switch apiVersion {
	case apiextensionsv1.SchemeGroupVersion.String():
		crd = &apiextensionsv1.CustomResourceDefinition{}
		if !decodeLenient(src, obj, crd, b) {
			return nil, false
		}
	case rules.CRDV1beta1:
		var old apiextensionsv1beta1.CustomResourceDefinition
		if !decodeLenient(src, obj, &old, b) {
			return nil, false
		}
		crd = fromV1beta1(&old)
	}
	if crd == nil || crd.Spec.Group == "" || crd.Spec.Names.Plural == "" {
		return nil, false
	}
	return crd, true
}

// fromV1beta1 converts a v1beta1 CRD to v1 through the internal type, as
// the server does when a v1 client reads it: spec.version becomes the one
// version, spec.validation each version's schema, and
// conversion.webhookClientConfig conversion.webhook.clientConfig. Nil when
// the conversion fails (a schema default that is not JSON).
func fromV1beta1(old *apiextensionsv1beta1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	// The v1beta1 defaults v1 has no field or no default for
	// (SetDefaults_CustomResourceDefinitionSpec): unknown fields are
	// preserved, which forbids a conversion webhook, and the webhook is
	// sent v1beta1 ConversionReviews on port 443. The rest of the
	// defaults do not change what the rules read.
	if old.Spec.PreserveUnknownFields == nil {
		preserve := true
		old.Spec.PreserveUnknownFields = &preserve
	}
	if c := old.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1beta1.WebhookConverter && len(c.ConversionReviewVersions) == 0 {
		c.ConversionReviewVersions = []string{apiextensionsv1beta1.SchemeGroupVersion.Version}
	}
	if c := old.Spec.Conversion; c != nil && c.WebhookClientConfig != nil && c.WebhookClientConfig.Service != nil {
		// The internal type has no unset port.
		apiextensionsv1beta1.SetDefaults_ServiceReference(c.WebhookClientConfig.Service)
	}
	var internal apiextensions.CustomResourceDefinition
	if apiextensionsv1beta1.Convert_v1beta1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(old, &internal, nil) != nil {
		return nil
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if apiextensionsv1.Convert_apiextensions_CustomResourceDefinition_To_v1_CustomResourceDefinition(&internal, &crd, nil) != nil {
		return nil
	}
	crd.TypeMeta = old.TypeMeta
	return &crd
}
