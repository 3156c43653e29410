package openapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	b := Bundle{
		KubeVersion: "v1.2.3",
		Resources:   []Resource{{Group: "g", Version: "v1", Resource: "things", Kind: GVK{"g", "v1", "Thing"}}},
		Kinds:       map[string]string{KindKey("g", "v1", "Thing"): "thing"},
		Schemas: map[string]*spec.Schema{
			"thing": {SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
				"spec": {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(refPrefix + "thingSpec")}},
			}}},
			"thingSpec": {SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
				"note": {SchemaProps: spec.SchemaProps{Type: []string{"string"}, Description: "with\ttab and\nnewline"}},
			}}},
		},
	}
	data, err := Encode(&b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Encode(&b)
	if err != nil || !bytes.Equal(data, again) {
		t.Fatalf("Encode is not deterministic (%v)", err)
	}
	c, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if c.KubeVersion() != "v1.2.3" {
		t.Errorf("KubeVersion %q", c.KubeVersion())
	}
	if k, ok := c.ObjectKind("g", "v1", "things", ""); !ok || k != (GVK{"g", "v1", "Thing"}) {
		t.Errorf("ObjectKind = %v, %v", k, ok)
	}
	for name, want := range b.Schemas {
		got, err := c.component(name)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, %v; want %#v", name, got, err, want)
		}
	}
	s, err := c.ResolveSchema(schema.GroupVersionKind{Group: "g", Version: "v1", Kind: "Thing"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Properties["spec"].Properties["note"].Description; got != "with\ttab and\nnewline" {
		t.Errorf("resolved spec.note description %q", got)
	}
}

func TestDecodeRejectsMalformed(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "no version record"},
		{"no version", "kind\t/v1/X\tx\n", "no version record"},
		{"unknown record", "version\tv1\nfoo\tbar\n", "line 2: unknown record"},
		{"short resource", "version\tv1\nresource\tapps\tv1\n", "line 2: resource record with 3 fields, want 8"},
		{"long kind", "version\tv1\nkind\ta\tb\tc\n", "line 2: kind record with 4 fields"},
		{"schema without JSON", "version\tv1\nschema\tx\t\n", "line 2: schema record without"},
		{"schema without name", "version\tv1\nschema\t\t{}\n", "line 2: schema record without"},
		{"no final newline", "version\tv1\nschema\ta\t{}", "line 2: no final newline"},
		{"duplicate", "version\tv1\nschema\ta\t{}\nschema\ta\t{}\n", "line 3: schema a again"},
	} {
		_, err := Decode([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	// A schema that is not JSON is an error when it is used.
	c, err := Decode([]byte("version\tv1\nkind\t/v1/X\tx\nschema\tx\t{not json\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResolveSchema(schema.GroupVersionKind{Version: "v1", Kind: "X"}); err == nil {
		t.Error("a schema that is not JSON resolved")
	}
	// What cannot be written on one line is refused.
	if _, err := Encode(&Bundle{KubeVersion: "v1", Kinds: map[string]string{"a\tb": "x"}}); err == nil {
		t.Error("Encode wrote a kind key with a tab")
	}
}

// The fast decoder gives what spec.Schema's own decoder gives, on every
// schema of the embedded bundle, and does not fall back on any of them.
func TestWireDecodeMatchesSpec(t *testing.T) {
	c, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range c.schemas {
		var want spec.Schema
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := decodeSchema(raw)
		if err != nil || !reflect.DeepEqual(got, &want) {
			t.Errorf("%s: decodeSchema = %#v, %v\nwant %#v", name, got, err, &want)
		}
		var w wireSchema
		if err := decodeStrict(raw, &w); err != nil {
			t.Errorf("%s: not decoded by the fast path: %v", name, err)
		} else if !w.fill(new(spec.Schema)) {
			t.Errorf("%s: not built by the fast path", name)
		}
	}
}

// What the fast path does not cover still decodes as spec.Schema does.
func TestWireDecodeFallsBack(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","description":"kept by spec.Schema"}`,
		`{"type":["string","null"]}`,
		`{"items":[{"type":"string"},{"type":"integer"}]}`,
		`{"x-kubernetes-list-type":null}`,
		`{"x-custom":{"a":1},"properties":{"a":{"Type":"string"}}}`,
		`{"additionalProperties":{"type":"string","title":"t"}}`,
		`{"allOf":[{"$ref":"#/components/schemas/x"}],"default":{}}`,
		`{"properties":{"a":null}}`,
		`{"$ref":"%zz"}`,
	} {
		var want spec.Schema
		wantErr := json.Unmarshal([]byte(raw), &want)
		got, err := decodeSchema([]byte(raw))
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, &want)) {
			t.Errorf("%s: decodeSchema = %#v, %v\nwant %#v, %v", raw, got, err, &want, wantErr)
		}
	}
}

// inlineRefs gives the tree the API server's PopulateRefs gives, for every
// kind of the embedded bundle and for reference cycles.
func TestInlineRefsMatchesServer(t *testing.T) {
	c, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(ref string) (*spec.Schema, bool) {
		s, err := c.component(strings.TrimPrefix(ref, refPrefix))
		return s, err == nil && s != nil
	}
	names := []string{ObjectMetaSchema}
	for _, name := range c.kinds {
		names = append(names, name)
	}
	for _, name := range names {
		want, wantErr := resolver.PopulateRefs(lookup, refPrefix+name)
		got, err := inlineRefs(lookup, refPrefix+name, nil)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: inlineRefs differs from PopulateRefs (errors %v, %v)", name, err, wantErr)
		}
	}

	ref := func(name string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(refPrefix + name)}}
	}
	wrapped := func(name string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Description: "d", AllOf: []spec.Schema{ref(name)}}}
	}
	object := func(props map[string]spec.Schema) *spec.Schema {
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: props}}
	}
	self := ref("self")
	schemas := map[string]*spec.Schema{
		"a": object(map[string]spec.Schema{"b": ref("b"), "s": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}}}),
		"b": object(map[string]spec.Schema{"a": wrapped("a"), "c": ref("c"),
			"list": {SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &self}}},
			"map":  {SchemaProps: spec.SchemaProps{Type: []string{"object"}, AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: &self}}}}),
		"c":     object(map[string]spec.Schema{"leaf": {SchemaProps: spec.SchemaProps{Type: []string{"integer"}}}}),
		"self":  object(map[string]spec.Schema{"again": ref("self"), "c": ref("c")}),
		"alias": {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(refPrefix + "alias")}},
		"dang":  object(map[string]spec.Schema{"x": ref("missing")}),
	}
	byRef := func(r string) (*spec.Schema, bool) {
		s, ok := schemas[strings.TrimPrefix(r, refPrefix)]
		return s, ok
	}
	for _, root := range []string{"a", "b", "c", "self", "alias", "dang", "missing"} {
		want, wantErr := resolver.PopulateRefs(byRef, refPrefix+root)
		got, err := inlineRefs(byRef, refPrefix+root, nil)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: inlineRefs = %v, %v; PopulateRefs = %v, %v", root, got, err, want, wantErr)
		}
	}
}
