//go:build devtools

// Command gen compacts the OpenAPI v3 documents and aggregated discovery
// fetched from a real kube-apiserver (hack/gen-openapi.sh) into the bundle
// package openapi embeds: for every resource and subresource the server
// serves, the kind of the object an admission webhook receives, and the
// schemas of those kinds with only what CEL typing reads (types, formats,
// properties, items, additionalProperties, required, enum, size limits and
// the x-kubernetes extensions), without descriptions.
//
//	go run -tags devtools ./internal/openapi/gen -in DIR -out internal/openapi/kube.bundle
//
// DIR holds version.json, discovery-api.json and discovery-apis.json
// (aggregated discovery v2) and openapi/<path>.json for each entry of
// /openapi/v3 (path with "/" replaced by "__", as in the kubernetes
// repository's api/openapi-spec/v3).
//
// It builds only with -tags devtools: `go install ./...`, which pre-commit's
// golang hook runs, then installs webhooklint and webhookvet alone.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/webhooklint/webhooklint/internal/openapi"
)

func main() {
	in := flag.String("in", "", "directory with the fetched documents")
	out := flag.String("out", "", "bundle to write (internal/openapi/kube.bundle)")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gen -in DIR -out FILE")
		os.Exit(2)
	}
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type discoveryList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Resources []struct {
				Resource     string        `json:"resource"`
				ResponseKind *responseKind `json:"responseKind"`
				Scope        string        `json:"scope"`
				Verbs        []string      `json:"verbs"`
				Subresources []struct {
					Subresource  string        `json:"subresource"`
					ResponseKind *responseKind `json:"responseKind"`
					Verbs        []string      `json:"verbs"`
				} `json:"subresources"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

type responseKind struct {
	Group, Version, Kind string
}

type document struct {
	Components struct {
		Schemas map[string]*spec.Schema `json:"schemas"`
	} `json:"components"`
}

const refPrefix = "#/components/schemas/"

func run(in, out string) error {
	var ver struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := readJSON(filepath.Join(in, "version.json"), &ver); err != nil {
		return err
	}
	b := openapi.Bundle{KubeVersion: ver.GitVersion, Kinds: map[string]string{}, Schemas: map[string]*spec.Schema{}}

	// Every schema of every document, by name; a name is one Go type, so
	// documents that share it must agree.
	all := map[string]*spec.Schema{}
	byGVK := map[string]string{}
	docs, err := filepath.Glob(filepath.Join(in, "openapi", "*.json"))
	if err != nil {
		return err
	}
	for _, path := range docs {
		var d document
		if err := readJSON(path, &d); err != nil {
			return err
		}
		for name, s := range d.Components.Schemas {
			var gvks []struct{ Group, Version, Kind string }
			if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err == nil {
				for _, g := range gvks {
					byGVK[openapi.KindKey(g.Group, g.Version, g.Kind)] = name
				}
			}
			c := compact(s)
			if prev, ok := all[name]; ok && !reflect.DeepEqual(prev, c) {
				return fmt.Errorf("schema %s differs between documents", name)
			}
			all[name] = c
		}
	}

	for _, f := range []string{"discovery-api.json", "discovery-apis.json"} {
		var d discoveryList
		if err := readJSON(filepath.Join(in, f), &d); err != nil {
			return err
		}
		for _, g := range d.Items {
			for _, v := range g.Versions {
				for _, r := range v.Resources {
					add := func(sub string, rk *responseKind) {
						if rk == nil || rk.Kind == "" {
							return
						}
						kg, kv := rk.Group, rk.Version
						if kv == "" { // discovery leaves the resource's own group/version empty
							kg, kv = g.Metadata.Name, v.Version
						}
						res := openapi.Resource{Group: g.Metadata.Name, Version: v.Version, Resource: r.Resource,
							Subresource: sub, Kind: openapi.GVK{Group: kg, Version: kv, Kind: rk.Kind}}
						key := openapi.KindKey(kg, kv, rk.Kind)
						if name, ok := byGVK[key]; ok {
							b.Kinds[key] = name
						}
						b.Resources = append(b.Resources, res)
					}
					add("", r.ResponseKind)
					for _, s := range r.Subresources {
						add(s.Subresource, s.ResponseKind)
					}
				}
			}
		}
	}
	slices.SortFunc(b.Resources, func(x, y openapi.Resource) int {
		return strings.Compare(x.Group+"|"+x.Version+"|"+x.Resource+"|"+x.Subresource,
			y.Group+"|"+y.Version+"|"+y.Resource+"|"+y.Subresource)
	})

	// Keep only the schemas reachable from the kinds webhooks receive.
	var visit func(name string) error
	visit = func(name string) error {
		if _, done := b.Schemas[name]; done {
			return nil
		}
		s, ok := all[name]
		if !ok {
			return fmt.Errorf("dangling reference to %s", name)
		}
		b.Schemas[name] = s
		for _, ref := range refs(s, nil) {
			if err := visit(ref); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range b.Kinds {
		if err := visit(name); err != nil {
			return err
		}
	}
	if err := visit(openapi.ObjectMetaSchema); err != nil {
		return err
	}

	data, err := openapi.Encode(&b)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %s: %d resources, %d kinds, %d schemas, %d bytes\n",
		b.KubeVersion, len(b.Resources), len(b.Kinds), len(b.Schemas), len(data))
	return os.WriteFile(out, data, 0o644)
}

// keptExtensions are the vendor extensions CEL typing reads.
var keptExtensions = []string{
	"x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
	"x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
}

// compact returns s without what CEL typing does not read.
func compact(s *spec.Schema) *spec.Schema {
	if s == nil {
		return nil
	}
	c := spec.Schema{SchemaProps: spec.SchemaProps{
		Ref: s.Ref, Type: s.Type, Format: s.Format, Required: s.Required, Enum: s.Enum, Nullable: s.Nullable,
		MaxLength: s.MaxLength, MaxItems: s.MaxItems, MaxProperties: s.MaxProperties,
	}}
	for _, k := range keptExtensions {
		if v, ok := s.Extensions[k]; ok {
			c.AddExtension(k, v)
		}
	}
	if len(s.Properties) > 0 {
		c.Properties = make(map[string]spec.Schema, len(s.Properties))
		for k, p := range s.Properties {
			c.Properties[k] = *compact(&p)
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		c.Items = &spec.SchemaOrArray{Schema: compact(s.Items.Schema)}
	}
	if s.AdditionalProperties != nil {
		c.AdditionalProperties = &spec.SchemaOrBool{Allows: s.AdditionalProperties.Allows, Schema: compact(s.AdditionalProperties.Schema)}
	}
	for _, list := range []struct {
		from []spec.Schema
		to   *[]spec.Schema
	}{{s.AllOf, &c.AllOf}, {s.OneOf, &c.OneOf}, {s.AnyOf, &c.AnyOf}} {
		for _, x := range list.from {
			*list.to = append(*list.to, *compact(&x))
		}
	}
	return &c
}

// refs lists the schema names s refers to.
func refs(s *spec.Schema, acc []string) []string {
	if s == nil {
		return acc
	}
	if u := s.Ref.String(); u != "" {
		acc = append(acc, strings.TrimPrefix(u, refPrefix))
	}
	for _, p := range s.Properties {
		acc = refs(&p, acc)
	}
	if s.Items != nil {
		acc = refs(s.Items.Schema, acc)
	}
	if s.AdditionalProperties != nil {
		acc = refs(s.AdditionalProperties.Schema, acc)
	}
	for _, l := range [][]spec.Schema{s.AllOf, s.OneOf, s.AnyOf} {
		for i := range l {
			acc = refs(&l[i], acc)
		}
	}
	return acc
}

func readJSON(path string, into any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
