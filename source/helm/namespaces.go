package helm

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// ValuesNamespaces returns the namespaces a chart's values name under a
// key called namespace (fluid's `namespace: fluid-system`), sorted, at most
// max: where the chart's own docs expect it to be installed, which a
// release namespace nobody gave may be. The chart's values.yaml is read
// first, then valuesFiles; unreadable files name none.
func ValuesNamespaces(chartDir string, valuesFiles []string, max int) []string {
	seen := map[string]bool{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if strings.EqualFold(k.Value, "namespace") && v.Kind == yaml.ScalarNode && v.Tag == "!!str" &&
					v.Value != Namespace && len(validation.IsDNS1123Label(v.Value)) == 0 {
					seen[v.Value] = true
				}
				walk(v)
			}
		}
	}
	for _, f := range append([]string{filepath.Join(chartDir, "values.yaml")}, valuesFiles...) {
		data, err := overlay.ReadDiskFile(f)
		if err != nil {
			continue
		}
		var n yaml.Node
		if yaml.Unmarshal(data, &n) == nil {
			walk(&n)
		}
	}
	out := slices.Sorted(maps.Keys(seen))
	if len(out) > max {
		out = out[:max]
	}
	return out
}
