package gitops

import (
	"bytes"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
)

// A HelmRelease kept in a folder a Flux Kustomization builds is applied
// as the build outputs it: after the overlay's patches (the values of
// one cluster, flux2-kustomize-helm-example's apps/staging), its
// namespace and Flux's substitution. Its entry is read from the built
// object, and each position in it is mapped back through the build to
// the file that wrote the field: the patch that set a value, else the
// HelmRelease's own file.

// Built is an object of a Flux Kustomization's build.
type Built struct {
	YAML []byte
	// File is the resource file it came from.
	File string
	// Locate maps a field path of the object (`spec.values.replicas`) to
	// where the build wrote it.
	Locate func(path string, atKey bool) diag.Span
}

// HoldsRelease reports whether a file's text may hold a HelmRelease.
func HoldsRelease(data []byte) bool {
	return bytes.Contains(data, []byte("helm.toolkit.fluxcd.io")) && bytes.Contains(data, []byte("HelmRelease"))
}

// FindBuilt reads the HelmReleases among the objects parent builds as
// entries applied by it. files and read are Find's: the sources and the
// ConfigMaps and Secrets they name are looked up there.
func FindBuilt(parent *Entry, built []Built, files []string, read func(string) []byte, o Options) []*Entry {
	var f *finder
	var out []*Entry
	for _, b := range built {
		for _, obj := range readObjects(b.File, b.YAML) {
			if obj.group() != "helm.toolkit.fluxcd.io" || obj.kind != "HelmRelease" {
				continue
			}
			if f == nil {
				f = newFinder(files, read, o)
			}
			e := f.helmRelease(obj)
			if e == nil {
				continue
			}
			// Located now, once per node: the build is not asked again
			// once units are linted (in parallel).
			located := map[[2]int]diag.Span{}
			for at, fp := range fieldPaths(obj.root) {
				located[at] = b.Locate(fp.path, fp.key)
			}
			whole := b.Locate("", false)
			e.AppliedBy = parent
			e.remap(func(p diag.Span) diag.Span {
				if p.File != b.File {
					return p // a ConfigMap's or Secret's, read from its file
				}
				if l, ok := located[[2]int{p.Line, p.Column}]; ok {
					return l
				}
				return whole
			})
			out = append(out, e)
		}
	}
	return out
}

// remap moves every position of the entry read from the built text to
// the file and line the build says wrote it.
func (e *Entry) remap(to func(diag.Span) diag.Span) {
	for _, p := range []*diag.Span{&e.At, &e.RemoteAt, &e.DefaultNamespaceAt, &e.Kustomization.NamespaceAt, &e.DependsOnAt} {
		if p.File != "" {
			*p = to(*p)
		}
	}
	for i := range e.DependsOn {
		e.DependsOn[i].At = to(e.DependsOn[i].At)
	}
	for i := range e.Problems {
		e.Problems[i].At = to(e.Problems[i].At)
	}
	for i := range e.Chart.PostRender {
		e.Chart.PostRender[i].At = to(e.Chart.PostRender[i].At)
	}
	e.Chart.remap = to
}

type fieldPath struct {
	path string
	key  bool
}

// fieldPaths indexes the nodes of an object by line and column: the
// field path (`spec.values.replicas`, `spec.dependsOn[0]`) each key and
// value is at.
func fieldPaths(root *yaml.Node) map[[2]int]fieldPath {
	out := map[[2]int]fieldPath{}
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		if n == nil || depth > 64 {
			return
		}
		if _, ok := out[[2]int{n.Line, n.Column}]; !ok {
			out[[2]int{n.Line, n.Column}] = fieldPath{path: path}
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				p := fieldpath.Field(path, k.Value)
				if strings.ContainsAny(k.Value, ".[]") {
					p = path // kustomize's paths cannot name it: its parent
				}
				// A mapping starts where its first key does: that key's
				// path, which the build locates in any key order, stands
				// for both (a dependsOn entry, a sourceRef).
				out[[2]int{k.Line, k.Column}] = fieldPath{path: p, key: p != path}
				walk(n.Content[i+1], p, depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fieldpath.Index(path, i), depth+1)
			}
		}
	}
	walk(root, "", 0)
	return out
}
