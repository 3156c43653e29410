// Package openapi holds the OpenAPI v3 schemas of the built-in Kubernetes
// resources, as a real kube-apiserver of the reference release serves them
// (hack/gen-openapi.sh fetches /openapi/v3 and aggregated discovery from
// one and compacts them into kube.json.gz), and resolves them the way the
// API server's own schema resolver does for ValidatingAdmissionPolicy type
// checking (k8s.io/apiserver/pkg/cel/openapi/resolver).
package openapi

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

//go:generate sh ../../hack/gen-openapi.sh

//go:embed kube.json.gz
var bundleGzip []byte

// Bundle is the embedded data, as the generator writes it.
type Bundle struct {
	// KubeVersion is the gitVersion of the server the data was fetched from.
	KubeVersion string `json:"kubeVersion"`
	// Resources lists every resource and subresource the server serves, per
	// version, with the kind of the object requests on it carry.
	Resources []Resource `json:"resources"`
	// Kinds maps KindKey(group, version, kind) to the schema of the kind,
	// for the kinds that have one (connect options objects such as
	// PodExecOptions have none).
	Kinds map[string]string `json:"kinds"`
	// Schemas are the component schemas those kinds refer to, by name.
	Schemas map[string]*spec.Schema `json:"schemas"`
}

// Resource is one served (sub)resource in one version.
type Resource struct {
	Group       string `json:"group,omitempty"`
	Version     string `json:"version"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	// Kind is the object webhooks receive: Scale (autoscaling/v1) for
	// deployments/scale, the resource's own kind for status.
	Kind GVK `json:"kind"`
}

// GVK is a group, version and kind.
type GVK struct {
	Group   string `json:"group,omitempty"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// String is group/version, Kind (v1, Kind for the core group).
func (g GVK) String() string {
	if g.Group == "" {
		return g.Version + ", Kind=" + g.Kind
	}
	return g.Group + "/" + g.Version + ", Kind=" + g.Kind
}

// KindKey is the key of Bundle.Kinds.
func KindKey(group, version, kind string) string { return group + "/" + version + "/" + kind }

// ObjectMetaSchema is the name of the ObjectMeta schema, which custom
// resources' metadata is typed with.
const ObjectMetaSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

const refPrefix = "#/components/schemas/"

// Catalog answers schema questions for one bundle.
type Catalog struct {
	b          Bundle
	byResource map[string]GVK
	resolved   sync.Map // KindKey -> *resolvedSchema
}

type resolvedSchema struct {
	once sync.Once
	s    *spec.Schema
	err  error
}

var builtin = sync.OnceValues(func() (*Catalog, error) { return Decode(bundleGzip) })

// Builtin returns the catalog of the embedded schemas, decoded on first use.
func Builtin() (*Catalog, error) { return builtin() }

// Decode reads a bundle as the generator writes it (gzip'd JSON).
func Decode(gz []byte) (*Catalog, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("openapi bundle: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("openapi bundle: %w", err)
	}
	c := &Catalog{byResource: map[string]GVK{}}
	if err := json.Unmarshal(raw, &c.b); err != nil {
		return nil, fmt.Errorf("openapi bundle: %w", err)
	}
	for _, r := range c.b.Resources {
		c.byResource[resourceKey(r.Group, r.Version, r.Resource, r.Subresource)] = r.Kind
	}
	return c, nil
}

func resourceKey(group, version, resource, subresource string) string {
	return group + "|" + version + "|" + resource + "|" + subresource
}

// KubeVersion is the version of the server the schemas come from.
func (c *Catalog) KubeVersion() string { return c.b.KubeVersion }

// Versions lists the versions in which the server serves group/resource
// (with subresource, if any), in the bundle's order.
func (c *Catalog) Versions(group, resource, subresource string) []string {
	var out []string
	for _, r := range c.b.Resources {
		if r.Group == group && r.Resource == resource && r.Subresource == subresource {
			out = append(out, r.Version)
		}
	}
	return out
}

// ObjectKind returns the kind of the object a request on
// group/version/resource[/subresource] carries, and false when the server
// does not serve it.
func (c *Catalog) ObjectKind(group, version, resource, subresource string) (GVK, bool) {
	k, ok := c.byResource[resourceKey(group, version, resource, subresource)]
	return k, ok
}

var _ resolver.SchemaResolver = (*Catalog)(nil)

// ResolveSchema returns the schema of gvk with every reference replaced by
// its target, by the API server's resolver.PopulateRefs (circular
// references become empty objects, as there). The error wraps
// resolver.ErrSchemaNotFound when the bundle has no schema for gvk. The
// result is shared: callers must not modify it.
func (c *Catalog) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	key := KindKey(gvk.Group, gvk.Version, gvk.Kind)
	name, ok := c.b.Kinds[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", gvk, resolver.ErrSchemaNotFound)
	}
	return c.resolve(name)
}

// Named returns a component schema by name, resolved like ResolveSchema.
func (c *Catalog) Named(name string) (*spec.Schema, error) { return c.resolve(name) }

func (c *Catalog) resolve(name string) (*spec.Schema, error) {
	v, _ := c.resolved.LoadOrStore(name, &resolvedSchema{})
	r := v.(*resolvedSchema)
	r.once.Do(func() {
		r.s, r.err = resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
			s, ok := c.b.Schemas[strings.TrimPrefix(ref, refPrefix)]
			return s, ok
		}, refPrefix+name)
	})
	return r.s, r.err
}
