package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/webhooklint/webhooklint/internal/openapi"
)

// unitTypes resolves, for the API server's policy TypeChecker, what a
// cluster's discovery and OpenAPI would: the built-in kinds of the
// embedded OpenAPI bundle, and the custom resources of the unit's CRDs
// (their served versions' schemas, with the built-in ObjectMeta).
type unitTypes struct {
	cat  *openapi.Catalog
	crds []*apiextensionsv1.CustomResourceDefinition
}

var errNotMapped = errors.New("no such resource in the embedded OpenAPI or the unit's CRDs")

// ResolveSchema implements resolver.SchemaResolver.
func (u *unitTypes) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	for _, crd := range u.crds {
		if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gvk.Version && v.Served && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				return u.crdSchema(v.Schema.OpenAPIV3Schema)
			}
		}
	}
	return u.cat.ResolveSchema(gvk)
}

// crdSchema reads a CRD version's schema as OpenAPI (the JSON of both is
// the same schema language) and types metadata as the server publishes it.
func (u *unitTypes) crdSchema(props *apiextensionsv1.JSONSchemaProps) (*spec.Schema, error) {
	raw, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	s := &spec.Schema{}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	if s.Properties == nil {
		s.Properties = map[string]spec.Schema{}
	}
	if md, err := u.cat.Named(openapi.ObjectMetaSchema); err == nil {
		s.Properties["metadata"] = *md
	}
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := s.Properties[k]; !ok {
			s.Properties[k] = *spec.StringProperty()
		}
	}
	return s, nil
}

// KindsFor implements the part of meta.RESTMapper the TypeChecker uses.
func (u *unitTypes) KindsFor(r schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	for _, crd := range u.crds {
		if crd.Spec.Group != r.Group || crd.Spec.Names.Plural != r.Resource {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == r.Version && v.Served {
				return []schema.GroupVersionKind{{Group: r.Group, Version: r.Version, Kind: crd.Spec.Names.Kind}}, nil
			}
		}
	}
	if k, ok := u.cat.ObjectKind(r.Group, r.Version, r.Resource, ""); ok {
		return []schema.GroupVersionKind{{Group: k.Group, Version: k.Version, Kind: k.Kind}}, nil
	}
	return nil, fmt.Errorf("%s: %w", r, errNotMapped)
}

// KindFor implements meta.RESTMapper.
func (u *unitTypes) KindFor(r schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	ks, err := u.KindsFor(r)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return ks[0], nil
}

// The rest of meta.RESTMapper: the TypeChecker never calls it.

func (u *unitTypes) ResourceFor(schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, errNotMapped
}

func (u *unitTypes) ResourcesFor(schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return nil, errNotMapped
}

func (u *unitTypes) RESTMapping(schema.GroupKind, ...string) (*meta.RESTMapping, error) {
	return nil, errNotMapped
}

func (u *unitTypes) RESTMappings(schema.GroupKind, ...string) ([]*meta.RESTMapping, error) {
	return nil, errNotMapped
}

func (u *unitTypes) ResourceSingularizer(resource string) (string, error) {
	return strings.TrimSuffix(resource, "s"), nil
}

var _ meta.RESTMapper = (*unitTypes)(nil)
