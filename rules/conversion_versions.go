package rules

import (
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// unconvertedFields lists, sorted, the fields that the served versions of
// crd type differently or that some of them lack, for the first pair of
// versions that differ, and whether some field changes type. Nothing
// converts between them under strategy None: the API server only rewrites
// apiVersion, then prunes what the other version's schema does not have.
// A field under x-kubernetes-preserve-unknown-fields in a version is kept
// there, so it is no difference; metadata is the server's.
func unconvertedFields(crd *apiextensionsv1.CustomResourceDefinition) (a, b string, fields []string, retyped bool) {
	var served []*apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Served && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			served = append(served, v)
		}
	}
	for i := 0; i < len(served); i++ {
		for j := i + 1; j < len(served); j++ {
			x, y := schemaFields(served[i].Schema.OpenAPIV3Schema), schemaFields(served[j].Schema.OpenAPIV3Schema)
			var diff []string
			for _, pair := range [][2]map[string]string{{x, y}, {y, x}} {
				for path, typ := range pair[0] {
					if path == "metadata" || strings.HasPrefix(path, "metadata.") {
						continue
					}
					other, ok := pair[1][path]
					if ok && (other == typ || other == "" || typ == "" || other == "*" || typ == "*") || kept(pair[1], path) ||
						slices.Contains(diff, path) {
						continue
					}
					retyped = retyped || ok
					diff = append(diff, path)
				}
			}
			if len(diff) > 0 {
				return served[i].Name, served[j].Name, outermost(diff), retyped
			}
		}
	}
	return "", "", nil, false
}

// outermost sorts paths and drops those under another of them: a field
// one version lacks is one difference, however many fields it has.
func outermost(paths []string) []string {
	slices.Sort(paths)
	var out []string
	for _, p := range paths {
		if n := len(out); n > 0 && len(p) > len(out[n-1]) && strings.HasPrefix(p, out[n-1]) && strings.ContainsRune(".[{", rune(p[len(out[n-1])])) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// schemaFields maps each field path of a structural schema (spec.replicas,
// spec.ports[].name) to its type; a field whose schema preserves unknown
// fields maps to "*", and nothing under it is listed.
func schemaFields(s *apiextensionsv1.JSONSchemaProps) map[string]string {
	out := map[string]string{}
	var walk func(s *apiextensionsv1.JSONSchemaProps, path string, depth int)
	walk = func(s *apiextensionsv1.JSONSchemaProps, path string, depth int) {
		if s == nil || depth > 32 {
			return
		}
		if path != "" {
			out[path] = s.Type
		}
		if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
			out[path] = "*"
			return
		}
		for name, p := range s.Properties {
			child := name
			if path != "" {
				child = path + "." + name
			}
			walk(&p, child, depth+1)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(s.Items.Schema, path+"[]", depth+1)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			walk(s.AdditionalProperties.Schema, path+"{}", depth+1)
		}
	}
	walk(s, "", 0)
	return out
}

// kept reports whether fields keeps path: a parent of it preserves unknown
// fields, or the root does.
func kept(fields map[string]string, path string) bool {
	for p := path; ; {
		i := strings.LastIndexAny(p, ".[{")
		if i < 0 {
			return fields[""] == "*"
		}
		p = p[:i]
		if fields[p] == "*" {
			return true
		}
	}
}
