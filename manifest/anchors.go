package manifest

import (
	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
)

// anchorKeys are the fields of the objects around a webhook (workloads,
// Services, PodDisruptionBudgets, autoscalers, Namespaces, cert-manager
// Certificates) where a cross-object finding is located when the fix goes
// there: a workload's replicas or name, a Service's ports, an autoscaler's
// minReplicas, a Certificate's dnsNames. Only
// these are indexed, so that a repository of thousands of Deployments
// keeps a few positions of each rather than its whole tree.
var anchorKeys = map[string]bool{
	"metadata": true, "name": true, "namespace": true, "labels": true,
	"spec": true, "replicas": true, "minReplicas": true, "selector": true,
	"ports": true, "port": true, "targetPort": true, "clusterIP": true,
	"minAvailable": true, "maxUnavailable": true, "dnsNames": true, "commonName": true,
	"template": true, "containers": true, "readinessProbe": true,
}

// anchorDepth bounds the walk: spec.template.spec.containers[0].readinessProbe
// is the deepest anchor.
const anchorDepth = 6

// maxAnchorItems bounds the items indexed per list (ports, containers): a
// finding points at one of the first few, and an alias bomb stays small.
const maxAnchorItems = 64

// indexAnchors indexes the anchor fields of a non-webhook object.
func indexAnchors(src *source, obj *yaml.Node) *Index {
	ix := newIndexFor(32)
	ix.set("", diag.Span{}, src.extent(obj))
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		n = resolve(n)
		if n == nil || depth >= anchorDepth {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode || !anchorKeys[k.Value] {
					continue
				}
				p := fieldpath.Field(path, k.Value)
				ix.set(p, src.rangeOf(k), src.extent(resolve(n.Content[i+1])))
				walk(n.Content[i+1], p, depth+1)
			}
		case yaml.SequenceNode:
			for i, item := range n.Content[:min(len(n.Content), maxAnchorItems)] {
				p := fieldpath.Index(path, i)
				ix.set(p, diag.Span{}, src.extent(resolve(item)))
				walk(item, p, depth+1)
			}
		}
	}
	walk(obj, "", 0)
	ix.freeze()
	return ix
}
