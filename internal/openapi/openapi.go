// Package openapi holds the OpenAPI v3 schemas of the built-in Kubernetes
// resources, as a real kube-apiserver of the reference release serves them
// (hack/gen-openapi.sh fetches /openapi/v3 and aggregated discovery from
// one and compacts them into kube.bundle), and resolves them the way the
// API server's own schema resolver does for ValidatingAdmissionPolicy type
// checking (k8s.io/apiserver/pkg/cel/openapi/resolver).
package openapi

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

//go:generate sh ../../hack/gen-openapi.sh

//go:embed kube.bundle
var bundleData []byte

// Bundle is the embedded data, as the generator builds it (Encode writes
// it out).
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
//
// Decoding a component schema is the costly part of reading a bundle, and
// one run rarely needs more than the few kinds its webhooks match: the
// catalog keeps each component schema as raw JSON and decodes it the first
// time a resolution reaches it.
type Catalog struct {
	kubeVersion string
	resources   []Resource
	kinds       map[string]string
	schemas     map[string][]byte // component schema name -> its JSON
	byResource  map[string]GVK
	versions    map[string][]string // resourceKey without version -> served versions
	decoded     sync.Map            // schema name -> *onceSchema, as decoded from the bundle
	resolved    sync.Map            // schema name -> *onceSchema, with references replaced
}

// onceSchema is a schema computed once, by whichever goroutine asks first.
type onceSchema struct {
	once sync.Once
	s    *spec.Schema
	err  error
}

var builtin = sync.OnceValues(func() (*Catalog, error) { return Decode(bundleData) })

// Builtin returns the catalog of the embedded schemas, read on first use.
func Builtin() (*Catalog, error) { return builtin() }

// Decode reads a bundle as Encode writes it. Component schemas are only
// split out here, sharing data, which must not change; each is decoded
// when first used.
func Decode(data []byte) (*Catalog, error) {
	x, err := splitBundle(data)
	if err != nil {
		return nil, fmt.Errorf("openapi bundle: %w", err)
	}
	c := &Catalog{kubeVersion: x.kubeVersion, resources: x.resources, kinds: x.kinds, schemas: x.schemas,
		byResource: make(map[string]GVK, len(x.resources)), versions: map[string][]string{}}
	for _, r := range c.resources {
		c.byResource[resourceKey(r.Group, r.Version, r.Resource, r.Subresource)] = r.Kind
		k := resourceKey(r.Group, "", r.Resource, r.Subresource)
		c.versions[k] = append(c.versions[k], r.Version)
	}
	return c, nil
}

func resourceKey(group, version, resource, subresource string) string {
	return group + "|" + version + "|" + resource + "|" + subresource
}

// KubeVersion is the version of the server the schemas come from.
func (c *Catalog) KubeVersion() string { return c.kubeVersion }

// Versions lists the versions in which the server serves group/resource
// (with subresource, if any), in the bundle's order.
func (c *Catalog) Versions(group, resource, subresource string) []string {
	// Clipped: a caller's append must not write into the shared table.
	return slices.Clip(c.versions[resourceKey(group, "", resource, subresource)])
}

// ObjectKind returns the kind of the object a request on
// group/version/resource[/subresource] carries, and false when the server
// does not serve it.
func (c *Catalog) ObjectKind(group, version, resource, subresource string) (GVK, bool) {
	k, ok := c.byResource[resourceKey(group, version, resource, subresource)]
	return k, ok
}

// ErrSchemaNotFound is wrapped by the errors of a look-up the bundle has no
// schema for, as the API server's resolver.ErrSchemaNotFound is. It is this
// package's own so that the resolver package, and client-go's discovery
// client and scheme it brings, stay out of the binaries (webhookvet starts
// once per package go vet builds). Catalog implements resolver.SchemaResolver
// (openapi_test.go checks).
var ErrSchemaNotFound = errors.New("schema not found")

// ResolveSchema returns the schema of gvk with every reference replaced by
// its target, as the API server's resolver.PopulateRefs does (circular
// references become empty objects, as there). The error wraps
// ErrSchemaNotFound when the bundle has no schema for gvk. The
// result is shared: callers must not modify it.
func (c *Catalog) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	key := KindKey(gvk.Group, gvk.Version, gvk.Kind)
	name, ok := c.kinds[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", gvk, ErrSchemaNotFound)
	}
	return c.resolve(name)
}

// Named returns a component schema by name, resolved like ResolveSchema.
func (c *Catalog) Named(name string) (*spec.Schema, error) { return c.resolve(name) }

func (c *Catalog) resolve(name string) (*spec.Schema, error) {
	v, _ := c.resolved.LoadOrStore(name, &onceSchema{})
	r := v.(*onceSchema)
	r.once.Do(func() { r.s, r.err = c.inline(name, nil) })
	return r.s, r.err
}

// ResolvePruned is ResolveSchema for a reader that only looks under the
// properties keep accepts, at any depth: references are replaced under
// those only, the other properties are left as the bundle has them, and
// only the component schemas the kept properties reach are decoded. Pod
// has some hundred of them, a condition on its metadata needs five. The
// result is not cached (it depends on keep) and is shared with the
// catalog: callers must not modify it.
func (c *Catalog) ResolvePruned(gvk schema.GroupVersionKind, keep func(property string) bool) (*spec.Schema, error) {
	name, ok := c.kinds[KindKey(gvk.Group, gvk.Version, gvk.Kind)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", gvk, ErrSchemaNotFound)
	}
	return c.inline(name, keep)
}

// NamedPruned returns a component schema by name, resolved like
// ResolvePruned.
func (c *Catalog) NamedPruned(name string, keep func(property string) bool) (*spec.Schema, error) {
	return c.inline(name, keep)
}

// inline resolves the named component schema's references, under the
// properties keep accepts (nil: all).
func (c *Catalog) inline(name string, keep func(string) bool) (*spec.Schema, error) {
	var broken error
	s, err := inlineRefs(func(ref string) (*spec.Schema, bool) {
		s, err := c.component(strings.TrimPrefix(ref, refPrefix))
		if err != nil && broken == nil {
			broken = err
		}
		return s, s != nil
	}, refPrefix+name, keep)
	if broken != nil {
		return nil, broken
	}
	return s, err
}

// component decodes the named component schema on first use. It returns
// nil and no error when the bundle has no schema of that name.
func (c *Catalog) component(name string) (*spec.Schema, error) {
	raw, ok := c.schemas[name]
	if !ok {
		return nil, nil
	}
	v, _ := c.decoded.LoadOrStore(name, &onceSchema{})
	d := v.(*onceSchema)
	d.once.Do(func() {
		if d.s, d.err = decodeSchema(raw); d.err != nil {
			d.err = fmt.Errorf("openapi bundle: schema %s: %w", name, d.err)
		}
	})
	return d.s, d.err
}
