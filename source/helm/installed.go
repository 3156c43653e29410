package helm

import (
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/internal/lazy"
)

// A chart that keeps its generated CA through lookup (the Secret it
// installed, found again at helm upgrade) is rendered a third time with a
// lookup that answers from its first render, as the cluster would after
// the install: a caBundle that still changes is not kept by that lookup.

// docSeparator cuts a rendered template into documents.
var docSeparator = lazy.Regexp(`(?m)^---[ \t]*(#.*)?$`)

// installedLookup returns a lookup template function that finds the
// objects of out (a render's templates) as an install would have created
// them, those that name no namespace in namespace.
func installedLookup(out map[string]string, namespace string) func(apiVersion, kind, ns, name string) (map[string]any, error) {
	type key struct{ apiVersion, kind, namespace, name string }
	objects := map[key]map[string]any{}
	for _, n := range slices.Sorted(maps.Keys(out)) {
		for _, doc := range docSeparator().Split(out[n], -1) {
			var obj map[string]any
			if strings.TrimSpace(doc) == "" || yaml.Unmarshal([]byte(doc), &obj) != nil || obj == nil {
				continue
			}
			md, _ := obj["metadata"].(map[string]any)
			apiVersion, _ := obj["apiVersion"].(string)
			kind, _ := obj["kind"].(string)
			name, _ := md["name"].(string)
			ns, _ := md["namespace"].(string)
			if ns == "" {
				ns = namespace
			}
			if k := (key{apiVersion, kind, ns, name}); name != "" && objects[k] == nil {
				objects[k] = obj
			}
		}
	}
	return func(apiVersion, kind, ns, name string) (map[string]any, error) {
		if name != "" {
			if obj := objects[key{apiVersion, kind, ns, name}]; obj != nil {
				return obj, nil
			}
			// A cluster-scoped object looked up with a namespace, or the
			// other way round.
			for k, obj := range objects {
				if k.apiVersion == apiVersion && k.kind == kind && k.name == name && (ns == "" || k.namespace == ns) {
					return obj, nil
				}
			}
			return map[string]any{}, nil
		}
		var items []any
		for _, k := range slices.SortedFunc(maps.Keys(objects), func(a, b key) int {
			return strings.Compare(a.namespace+"/"+a.name, b.namespace+"/"+b.name)
		}) {
			if k.apiVersion == apiVersion && k.kind == kind && (ns == "" || k.namespace == ns) {
				items = append(items, objects[k])
			}
		}
		return map[string]any{"items": items}, nil
	}
}
