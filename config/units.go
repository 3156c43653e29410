package config

import (
	yaml "go.yaml.in/yaml/v3"
)

// Units say how the manifests under the configuration's folder are
// deployed, when the layout alone does not tell.
type Units struct {
	// Entries are the root kustomization and chart folders that are
	// deployed (resolved like chart paths). When one is set, the other
	// roots (e2e and OLM overlays, samples) are linted as bases: their
	// findings that an overlay changes are shown at info. A plain folder
	// or a file may be named too: it is applied as written.
	Entries []string
	// Folders group loose manifests into units: by default the files of
	// one folder are one unit, as kubectl apply -f DIR applies them.
	Folders []FolderUnits
	// GitOps says how Flux and Argo CD entries are found (units.gitops).
	GitOps GitOps
}

// GitOps is the units.gitops mapping.
type GitOps struct {
	// Off turns the discovery of entries among the linted files off.
	Off bool
	// Entries are files holding entries (resolved like chart paths), read
	// in every run.
	Entries []string
	// RepoURLs name this repository in entries' sources.
	RepoURLs []string
}

// FolderUnits is one units.folders entry.
type FolderUnits struct {
	// Path is the folder (resolved like chart paths).
	Path string
	// Recursive makes Path and every folder below it one unit (kubectl
	// apply -R, Argo CD directory.recurse, a Flux Kustomization over a
	// plain tree).
	Recursive bool
	// Split lints each file of Path on its own (unrelated examples).
	Split bool
}

// units reads the units: mapping.
func (p *parser) units(n *yaml.Node, dir string) Units {
	var u Units
	p.mapping(n, "units", func(k, v *yaml.Node) {
		switch k.Value {
		case "entries":
			p.sequence(v, "units entries", func(e *yaml.Node) {
				if s, ok := p.scalar(e, "units entries entry", "!!str"); ok {
					u.Entries = append(u.Entries, p.path(e, "units entries entry", s, dir))
				}
			})
		case "folders":
			p.sequence(v, "units folders", func(item *yaml.Node) {
				var f FolderUnits
				p.mapping(item, "a units folders entry", func(k, v *yaml.Node) {
					switch k.Value {
					case "path":
						if s, ok := p.scalar(v, "units folders path", "!!str"); ok {
							f.Path = p.path(v, "units folders path", s, dir)
						}
					case "recursive", "split":
						if s, ok := p.scalar(v, "units folders "+k.Value, "!!bool"); ok {
							if k.Value == "recursive" {
								f.Recursive = s == "true"
							} else {
								f.Split = s == "true"
							}
						}
					default:
						p.errorf(k, "unknown key %q in a units folders entry (want path, recursive or split)", k.Value)
					}
				})
				switch {
				case item.Kind == yaml.MappingNode && f.Path == "":
					p.errorf(item, "a units folders entry needs a path")
				case f.Recursive && f.Split:
					p.errorf(item, "a units folders entry is recursive or split, not both")
				case item.Kind == yaml.MappingNode:
					u.Folders = append(u.Folders, f)
				}
			})
		case "gitops":
			u.GitOps = p.gitops(v, dir)
		default:
			p.errorf(k, "unknown key %q in units (want entries, folders or gitops)", k.Value)
		}
	})
	return u
}

// gitops reads the units.gitops mapping.
func (p *parser) gitops(n *yaml.Node, dir string) GitOps {
	var g GitOps
	p.mapping(n, "units gitops", func(k, v *yaml.Node) {
		switch k.Value {
		case "discovery":
			if s, ok := p.scalar(v, "units gitops discovery", "!!bool"); ok {
				g.Off = s == "false"
			}
		case "entries", "repoURLs":
			p.sequence(v, "units gitops "+k.Value, func(e *yaml.Node) {
				if s, ok := p.scalar(e, "units gitops "+k.Value+" entry", "!!str"); ok {
					if k.Value == "entries" {
						g.Entries = append(g.Entries, p.path(e, "units gitops entries entry", s, dir))
					} else {
						g.RepoURLs = append(g.RepoURLs, s)
					}
				}
			})
		default:
			p.errorf(k, "unknown key %q in units gitops (want discovery, entries or repoURLs)", k.Value)
		}
	})
	return g
}
