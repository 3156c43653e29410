package openapi

import (
	"fmt"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// inlineRefs returns the schema rootRef names with every reference in
// properties, additionalProperties and items replaced by its target: the
// same tree as the API server's resolver.PopulateRefs gives (a reference
// back to a schema being expanded becomes an empty object; a reference
// node is replaced whole by its target; allOf is only looked into for a
// wrapped reference), which TestInlineRefsMatchesServer checks on every
// kind. It differs in cost only: PopulateRefs copies every node it visits
// to the heap and makes a properties map for each, where this copies a node
// only when something under it changes, and Pod has thousands of nodes.
// Unchanged subtrees are shared with the input, which must not be
// modified.
//
// keep, if not nil, limits the work to the properties it accepts, at any
// depth: the others are left as they are, references included, so that a
// reader that only looks at kept properties (celcheck.NewObjectTypeFor)
// sees what a full resolution gives it, and the schemas only the other
// properties refer to are never looked up.
func inlineRefs(lookup func(ref string) (*spec.Schema, bool), rootRef string, keep func(property string) bool) (*spec.Schema, error) {
	root, ok := lookup(rootRef)
	if !ok {
		return nil, fmt.Errorf("cannot resolve the root schema %q: %w", rootRef, ErrSchemaNotFound)
	}
	in := inliner{lookup: lookup, keep: keep, expanding: map[string]bool{rootRef: true}}
	out, err := in.inline(root)
	if out == nil && err == nil {
		return root, nil
	}
	return out, err
}

type inliner struct {
	lookup    func(ref string) (*spec.Schema, bool)
	keep      func(property string) bool // nil: every property
	expanding map[string]bool            // references on the path from the root
}

// inline returns nil when nothing under s refers to anything (never s
// itself: that would move every property it is called on to the heap).
func (in *inliner) inline(s *spec.Schema) (*spec.Schema, error) {
	var out *spec.Schema // a copy of the node, made on the first change
	if ref, ok := referenceOf(s); ok {
		if in.expanding[ref] {
			return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}}, nil
		}
		target, ok := in.lookup(ref)
		if !ok {
			return nil, fmt.Errorf("cannot resolve reference %q: %w", ref, ErrSchemaNotFound)
		}
		in.expanding[ref] = true
		defer delete(in.expanding, ref)
		out = new(spec.Schema)
		*out = *target
		s = target
	}

	var props map[string]spec.Schema
	for name := range s.Properties {
		if in.keep != nil && !in.keep(name) {
			continue
		}
		p := s.Properties[name]
		got, err := in.inline(&p)
		if err != nil {
			return nil, err
		}
		if got == nil {
			continue
		}
		if props == nil {
			props = make(map[string]spec.Schema, len(s.Properties))
			for n, q := range s.Properties {
				props[n] = q
			}
		}
		props[name] = *got
	}
	if props != nil {
		out = in.copyOnce(out, s)
		out.Properties = props
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		got, err := in.inline(ap.Schema)
		if err != nil {
			return nil, err
		}
		if got != nil {
			out = in.copyOnce(out, s)
			out.AdditionalProperties = &spec.SchemaOrBool{Allows: ap.Allows, Schema: got}
		}
	}
	if items := s.Items; items != nil && items.Schema != nil {
		got, err := in.inline(items.Schema)
		if err != nil {
			return nil, err
		}
		if got != nil {
			out = in.copyOnce(out, s)
			out.Items = &spec.SchemaOrArray{Schema: got, Schemas: items.Schemas}
		}
	}
	return out, nil
}

// copyOnce returns out, or a copy of s when there is none yet.
//
//go:noinline
func (in *inliner) copyOnce(out, s *spec.Schema) *spec.Schema {
	if out != nil {
		return out
	}
	c := new(spec.Schema)
	*c = *s
	return c
}

// referenceOf is the reference s stands for: its $ref, or one in allOf
// (kube-openapi wraps a reference in allOf to keep a description beside
// it).
func referenceOf(s *spec.Schema) (string, bool) {
	if s.Ref.GetURL() != nil {
		return s.Ref.String(), true
	}
	for i := range s.AllOf {
		if ref, ok := referenceOf(&s.AllOf[i]); ok {
			return ref, true
		}
	}
	return "", false
}
