package kustomize

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"
)

// Transform applies kustomization fields (patches, images) to objects
// that are not files, as Flux's helm-controller post-renders a release:
// the objects become the only resource of a kustomization, in memory,
// with nothing else to read. It returns the objects kustomize emits, in
// its order.
func Transform(docs [][]byte, fields map[string]any) ([]*Object, error) {
	k := map[string]any{
		"apiVersion": "kustomize.config.k8s.io/v1beta1",
		"kind":       "Kustomization",
		"resources":  []any{"rendered.yaml"},
	}
	for f, v := range fields {
		if f == "resources" || f == "apiVersion" || f == "kind" {
			continue
		}
		k[f] = v
	}
	text, err := sigsyaml.Marshal(k)
	if err != nil {
		return nil, err
	}
	fs := filesys.MakeFsInMemory()
	if err := fs.WriteFile("/post/kustomization.yaml", text); err != nil {
		return nil, err
	}
	if err := fs.WriteFile("/post/rendered.yaml", bytes.Join(docs, []byte("\n---\n"))); err != nil {
		return nil, err
	}
	unlock := lockSchema(false)
	m, err := krusty.MakeKustomizer(buildOptions()).Run(fs, "/post")
	unlock()
	if err != nil {
		return nil, fmt.Errorf("%s", tidy(err.Error(), "/post"))
	}
	var out []*Object
	for _, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			return nil, err
		}
		out = append(out, &Object{APIVersion: r.GetApiVersion(), Kind: r.GetKind(), Name: r.GetName(), Namespace: r.GetNamespace(), YAML: y})
	}
	return out, nil
}
