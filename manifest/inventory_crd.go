package manifest

import (
	yaml "go.yaml.in/yaml/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// readCRD keeps a CustomResourceDefinition (apiextensions.k8s.io/v1) with
// its per-version schemas, which type the objects webhooks on its custom
// resources receive. v1beta1 CRDs (removed in 1.22) are not kept: the
// server no longer serves them, so their schemas say nothing of a cluster.
func readCRD(src *source, obj *yaml.Node, apiVersion, kind string, b *budget) (*apiextensionsv1.CustomResourceDefinition, bool) {
	if apiVersion != "apiextensions.k8s.io/v1" || kind != "CustomResourceDefinition" {
		return nil, false
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if !decodeLenient(src, obj, &crd, b) || crd.Spec.Group == "" || crd.Spec.Names.Plural == "" {
		return nil, false
	}
	return &crd, true
}
