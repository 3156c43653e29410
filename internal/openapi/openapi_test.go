package openapi

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
)

// The catalog is a schema resolver the API server's CEL type checking
// could use; the package itself does not import the resolver package.
var _ resolver.SchemaResolver = (*Catalog)(nil)

func TestBuiltin(t *testing.T) {
	c, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.KubeVersion(), "v1.37.") {
		t.Errorf("KubeVersion = %q, want the reference release v1.37.x", c.KubeVersion())
	}
	for _, tc := range []struct {
		group, version, resource, sub string
		want                          GVK
		schema                        bool
	}{
		{"apps", "v1", "deployments", "", GVK{"apps", "v1", "Deployment"}, true},
		{"apps", "v1", "deployments", "scale", GVK{"autoscaling", "v1", "Scale"}, true},
		{"apps", "v1", "deployments", "status", GVK{"apps", "v1", "Deployment"}, true},
		{"", "v1", "pods", "", GVK{"", "v1", "Pod"}, true},
		{"", "v1", "pods", "eviction", GVK{"policy", "v1", "Eviction"}, true},
		{"", "v1", "pods", "exec", GVK{"", "v1", "PodExecOptions"}, false},
		{"", "v1", "namespaces", "", GVK{"", "v1", "Namespace"}, true},
	} {
		got, ok := c.ObjectKind(tc.group, tc.version, tc.resource, tc.sub)
		if !ok || got != tc.want {
			t.Errorf("ObjectKind(%s/%s %s/%s) = %v, %v; want %v", tc.group, tc.version, tc.resource, tc.sub, got, ok, tc.want)
			continue
		}
		s, err := c.ResolveSchema(schema.GroupVersionKind{Group: got.Group, Version: got.Version, Kind: got.Kind})
		switch {
		case tc.schema && (err != nil || s == nil || len(s.Properties) == 0):
			t.Errorf("%v: schema %v, %v", got, s, err)
		case !tc.schema && !errors.Is(err, ErrSchemaNotFound):
			t.Errorf("%v: err %v, want ErrSchemaNotFound", got, err)
		}
	}
	if v := c.Versions("autoscaling", "horizontalpodautoscalers", ""); len(v) < 2 {
		t.Errorf("autoscaling/horizontalpodautoscalers versions %v, want v1 and v2", v)
	}
}

// Every kind with a schema resolves, references and all.
func TestEveryKindResolves(t *testing.T) {
	c, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for key := range c.kinds {
		parts := strings.SplitN(key, "/", 3)
		s, err := c.ResolveSchema(schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]})
		if err != nil || s == nil {
			t.Errorf("%s: %v", key, err)
		}
		n++
	}
	if n < 60 { // v1.37.2 serves 75 kinds with a schema by default
		t.Errorf("only %d kinds have a schema", n)
	}
	if _, ok := c.ObjectMeta(); !ok {
		t.Error("no ObjectMeta schema")
	}
}

// The embedded data stays compact: it is in every webhooklint binary.
func TestBundleSize(t *testing.T) {
	if len(bundleData) > 256<<10 {
		t.Errorf("kube.bundle is %d bytes; keep only what CEL typing needs", len(bundleData))
	}
}
