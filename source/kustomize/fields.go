package kustomize

import yaml "go.yaml.in/yaml/v3"

// fields reads the fields of a kustomization as written, its entries as
// YAML nodes with their positions. It is the one place that knows which
// field holds what: RefsOf (which folders and files a kustomization
// reads), load (what a build applies, to locate its output) and EntryLine
// (which entry an error names) read a kustomization through it, so a field
// kustomize adds is added here once.
type fields struct{ root *yaml.Node }

// fieldEntry is one entry of a list field, with the field's name.
type fieldEntry struct {
	field string
	node  *yaml.Node
}

// component reports a `kind: Component`, built only inside another
// kustomization.
func (f fields) component() bool { return mapValue(f.root, "kind") == "Component" }

// openAPI reports whether the kustomization names an OpenAPI schema of
// its own.
func (f fields) openAPI() bool { return mapNode(f.root, "openapi") != nil }

// includes are the entries of resources, bases and components, in that
// order: files, or folders that hold a kustomization.
func (f fields) includes() []fieldEntry {
	var out []fieldEntry
	for _, field := range []string{"resources", "bases", "components"} {
		for _, n := range seqNodes(mapNode(f.root, field)) {
			out = append(out, fieldEntry{field, n})
		}
	}
	return out
}

// plugins are the entries of generators, transformers and validators:
// configuration files, or folders of kustomizations whose resources are.
func (f fields) plugins() []*yaml.Node {
	return f.lists("generators", "transformers", "validators")
}

// elsewhere reports fields that bring objects from somewhere else than
// the resource files (generators, Helm charts, transformer and validator
// configurations), that may write an object's name or kind other than
// with a prefix or suffix (replacements, vars, a patch's options), or
// that ask for build metadata; a key it cannot read (a merge key, an
// alias) counts as one. The objects of a build without any are those of
// its resource files (deriveOrigins).
func (f fields) elsewhere() bool {
	if f.root == nil || f.root.Kind != yaml.MappingNode {
		return true
	}
	for i := 0; i+1 < len(f.root.Content); i += 2 {
		k := f.root.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value == "<<" {
			return true
		}
		switch k.Value {
		case "configMapGenerator", "secretGenerator", "generators", "helmCharts",
			"helmChartInflationGenerator", "transformers", "validators",
			"replacements", "vars", "buildMetadata":
			return true
		}
	}
	for _, e := range f.lists("patches", "patchesJson6902") {
		if e.Kind != yaml.MappingNode || mapNode(e, "options") != nil {
			return true
		}
	}
	return false
}

// strategicMerge are the entries of patchesStrategicMerge: a file name or
// the patch itself.
func (f fields) strategicMerge() []*yaml.Node { return f.lists("patchesStrategicMerge") }

// configFiles are the entries of configurations and crds: file names.
func (f fields) configFiles() []*yaml.Node { return f.lists("configurations", "crds") }

// patchEntry is an entry of patches or patchesJson6902: a file (path) or
// the patch itself (patch), and the objects it applies to.
type patchEntry struct {
	path, patch, target *yaml.Node
}

// patches are the entries of patches, then of patchesJson6902.
func (f fields) patches() []patchEntry {
	var out []patchEntry
	for _, e := range f.lists("patches", "patchesJson6902") {
		out = append(out, patchEntry{path: mapNode(e, "path"), patch: mapNode(e, "patch"), target: mapNode(e, "target")})
	}
	return out
}

// replacementPaths are the path of each entry of replacements (nil for
// an entry written inline).
func (f fields) replacementPaths() []*yaml.Node {
	var out []*yaml.Node
	for _, e := range f.lists("replacements") {
		out = append(out, mapNode(e, "path"))
	}
	return out
}

// generatorSource is a file a configMapGenerator or secretGenerator entry
// reads: an entry of its files or envs (keyed: "key=path" may name the
// key it is stored under), or its env.
type generatorSource struct {
	node  *yaml.Node
	keyed bool
}

// generatorSources are the files the configMapGenerator and
// secretGenerator entries read, in order: each entry's files, envs, env.
func (f fields) generatorSources() []generatorSource {
	var out []generatorSource
	for _, e := range f.lists("configMapGenerator", "secretGenerator") {
		for _, list := range []string{"files", "envs"} {
			for _, s := range seqNodes(mapNode(e, list)) {
				out = append(out, generatorSource{s, true})
			}
		}
		out = append(out, generatorSource{mapNode(e, "env"), false})
	}
	return out
}

// lists are the entries of the list fields named, in order.
func (f fields) lists(names ...string) []*yaml.Node {
	var out []*yaml.Node
	for _, name := range names {
		out = append(out, seqNodes(mapNode(f.root, name))...)
	}
	return out
}
