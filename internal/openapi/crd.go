package openapi

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celcommon "k8s.io/apiserver/pkg/cel/common"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"
)

// CRDVersionSchema returns the schema of one version of a custom resource
// as the API server models it for CEL: the structural schema
// (k8s.io/apiextensions-apiserver/pkg/apiserver/schema) of the version's
// openAPIV3Schema, or of the CRD-wide validation schema, through the
// server's own adaptor. ok is false when the version has no schema or the
// schema is not structural (the server rejects such a CRD).
func CRDVersionSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (celcommon.Schema, bool) {
	for _, v := range crd.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return nil, false
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return nil, false
		}
		return &model.Structural{Structural: s}, true
	}
	return nil, false
}

// ObjectMeta returns the ObjectMeta schema, which types the metadata of
// custom resources and of embedded resources as the server prunes them.
func (c *Catalog) ObjectMeta() (celcommon.Schema, bool) {
	s, err := c.Named(ObjectMetaSchema)
	if err != nil {
		return nil, false
	}
	return &celopenapi.Schema{Schema: s}, true
}

// ObjectMetaPruned is ObjectMeta resolved for a reader that only looks
// under the properties keep accepts (see ResolvePruned).
func (c *Catalog) ObjectMetaPruned(keep func(property string) bool) (celcommon.Schema, bool) {
	s, err := c.NamedPruned(ObjectMetaSchema, keep)
	if err != nil {
		return nil, false
	}
	return &celopenapi.Schema{Schema: s}, true
}
