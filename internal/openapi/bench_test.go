package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// BenchmarkColdPod is what one run that types a matchCondition for pods
// pays for schemas: read the bundle, resolve the Pod schema.
func BenchmarkColdPod(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		c, err := Decode(bundleData)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.ResolveSchema(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode is reading the bundle alone, as every run that checks
// match-condition-fields does before it knows which kinds it needs.
func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bundleData); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeSchemas decodes every component schema of the embedded
// bundle, with decodeSchema and with spec.Schema's own decoder.
func BenchmarkDecodeSchemas(b *testing.B) {
	c, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, raw := range c.schemas {
				if _, err := decodeSchema(raw); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("spec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, raw := range c.schemas {
				if err := json.Unmarshal(raw, new(spec.Schema)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkInlineRefs expands the Pod schema from decoded components, with
// inlineRefs and with the API server's PopulateRefs.
func BenchmarkInlineRefs(b *testing.B) {
	c, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	lookup := func(ref string) (*spec.Schema, bool) {
		s, err := c.component(strings.TrimPrefix(ref, refPrefix))
		return s, err == nil && s != nil
	}
	pod := refPrefix + c.kinds[KindKey("", "v1", "Pod")]
	for _, impl := range []struct {
		name string
		f    func(func(string) (*spec.Schema, bool), string) (*spec.Schema, error)
	}{
		{"inlineRefs", func(l func(string) (*spec.Schema, bool), root string) (*spec.Schema, error) {
			return inlineRefs(l, root, nil)
		}},
		{"PopulateRefs", resolver.PopulateRefs},
	} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := impl.f(lookup, pod); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkColdPodMetadata is BenchmarkColdPod for a reader of the Pod's
// metadata only (ResolvePruned): the schemas it decodes are the Pod's own
// and ObjectMeta's.
func BenchmarkColdPodMetadata(b *testing.B) {
	keep := func(p string) bool { return p == "metadata" || p == "annotations" }
	b.ReportAllocs()
	for b.Loop() {
		c, err := Decode(bundleData)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.ResolvePruned(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, keep); err != nil {
			b.Fatal(err)
		}
		if _, err := c.NamedPruned(ObjectMetaSchema, keep); err != nil {
			b.Fatal(err)
		}
	}
}
