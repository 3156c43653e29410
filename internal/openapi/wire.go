package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// decodeSchema decodes one component schema of a bundle. spec.Schema's own
// UnmarshalJSON is general (every JSON Schema keyword, vendor extensions
// inline, names found by reflection per object) and most of the cost of
// typing a kind; a bundle holds only the keywords the generator keeps, so
// those are decoded into wireSchema with encoding/json and copied into a
// spec.Schema. A schema with anything else (another keyword, an array of
// item schemas, a null extension) is left to spec.Schema's decoder, so the
// result is the one spec.Schema would give (TestWireDecodeMatchesSpec checks
// every schema of the embedded bundle) for keys spelled as spec.Schema
// writes them. encoding/json would also take "Type" for "type", which
// spec.Schema keeps as an extra property; bundles are written by Encode,
// through spec.Schema's MarshalJSON, so they never hold such a key.
func decodeSchema(raw []byte) (*spec.Schema, error) {
	var w wireSchema
	if err := decodeStrict(raw, &w); err == nil {
		s := new(spec.Schema)
		if w.fill(s) {
			return s, nil
		}
	}
	s := new(spec.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeStrict decodes raw into v, failing on keys v has no field for.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the schema")
	}
	return nil
}

// wireSchema holds what the generator's compact keeps of a schema, with
// the key names spec.Schema's MarshalJSON writes (Encode writes bundles
// with it, so those are the only spellings a bundle has).
type wireSchema struct {
	Ref                  *string                `json:"$ref"`
	Type                 *string                `json:"type"`
	Format               string                 `json:"format"`
	Required             []string               `json:"required"`
	Enum                 []any                  `json:"enum"`
	Nullable             bool                   `json:"nullable"`
	MaxLength            *int64                 `json:"maxLength"`
	MaxItems             *int64                 `json:"maxItems"`
	MaxProperties        *int64                 `json:"maxProperties"`
	Properties           map[string]*wireSchema `json:"properties"`
	Items                *wireSchema            `json:"items"`
	AdditionalProperties *wireSchemaOrBool      `json:"additionalProperties"`
	AllOf                []*wireSchema          `json:"allOf"`
	OneOf                []*wireSchema          `json:"oneOf"`
	AnyOf                []*wireSchema          `json:"anyOf"`

	// The vendor extensions CEL typing reads (the generator's
	// keptExtensions), kept as JSON values.
	ListType              json.RawMessage `json:"x-kubernetes-list-type"`
	ListMapKeys           json.RawMessage `json:"x-kubernetes-list-map-keys"`
	MapType               json.RawMessage `json:"x-kubernetes-map-type"`
	IntOrString           json.RawMessage `json:"x-kubernetes-int-or-string"`
	PreserveUnknownFields json.RawMessage `json:"x-kubernetes-preserve-unknown-fields"`
	EmbeddedResource      json.RawMessage `json:"x-kubernetes-embedded-resource"`
}

// wireSchemaOrBool is additionalProperties: a schema, or true or false.
type wireSchemaOrBool struct {
	allows bool
	schema *wireSchema
}

func (w *wireSchemaOrBool) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "true", "false":
		w.allows = string(data) == "true"
		return nil
	}
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("additionalProperties: want a schema or a bool")
	}
	w.allows, w.schema = true, new(wireSchema)
	return decodeStrict(data, w.schema)
}

// fill sets s (a zero Schema) to the schema w holds; it returns false for
// what only spec.Schema's decoder reproduces exactly. Children are built in
// place: a spec.Schema is large, and most of them are map values.
func (w *wireSchema) fill(s *spec.Schema) bool {
	if w.Ref != nil {
		ref, err := spec.NewRef(*w.Ref)
		if err != nil {
			return false
		}
		s.Ref = ref
	}
	if w.Type != nil {
		s.Type = spec.StringOrArray{*w.Type}
	}
	s.Format, s.Required, s.Enum, s.Nullable = w.Format, w.Required, w.Enum, w.Nullable
	s.MaxLength, s.MaxItems, s.MaxProperties = w.MaxLength, w.MaxItems, w.MaxProperties
	if w.Properties != nil {
		s.Properties = make(map[string]spec.Schema, len(w.Properties))
		for name, p := range w.Properties {
			var ps spec.Schema
			if p == nil || !p.fill(&ps) {
				return false
			}
			s.Properties[name] = ps
		}
	}
	if w.Items != nil {
		s.Items = &spec.SchemaOrArray{Schema: new(spec.Schema)}
		if !w.Items.fill(s.Items.Schema) {
			return false
		}
	}
	if ap := w.AdditionalProperties; ap != nil {
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: ap.allows}
		if ap.schema != nil {
			s.AdditionalProperties.Schema = new(spec.Schema)
			if !ap.schema.fill(s.AdditionalProperties.Schema) {
				return false
			}
		}
	}
	for _, l := range []struct {
		from []*wireSchema
		to   *[]spec.Schema
	}{{w.AllOf, &s.AllOf}, {w.OneOf, &s.OneOf}, {w.AnyOf, &s.AnyOf}} {
		if l.from == nil {
			continue
		}
		*l.to = make([]spec.Schema, len(l.from))
		for i, x := range l.from {
			if x == nil || !x.fill(&(*l.to)[i]) {
				return false
			}
		}
	}
	for _, e := range []struct {
		key   string
		value json.RawMessage
	}{
		{"x-kubernetes-list-type", w.ListType}, {"x-kubernetes-list-map-keys", w.ListMapKeys},
		{"x-kubernetes-map-type", w.MapType}, {"x-kubernetes-int-or-string", w.IntOrString},
		{"x-kubernetes-preserve-unknown-fields", w.PreserveUnknownFields},
		{"x-kubernetes-embedded-resource", w.EmbeddedResource},
	} {
		if e.value == nil {
			continue
		}
		var v any
		if err := json.Unmarshal(e.value, &v); err != nil || v == nil {
			return false
		}
		if s.Extensions == nil {
			s.Extensions = spec.Extensions{}
		}
		s.Extensions[e.key] = v
	}
	return true
}
