// Package gitops reads the objects GitOps controllers deploy a repository
// with — Flux Kustomizations and HelmReleases and their sources, Argo CD
// Applications and ApplicationSets — and says what each one applies: which
// folder of this repository, built how (kustomize, Helm, a plain folder),
// into which namespace, with which values and substitutions.
//
// Nothing here talks to a cluster or the network: an entry whose source is
// not this repository (another Git repository, a Helm or OCI repository)
// is reported as not available offline, and substituteFrom and valuesFrom
// are looked up among the ConfigMaps and Secrets of the files read.
package gitops

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// How says how an entry's folder is turned into objects.
type How int

const (
	// Kustomize: built with kustomize; Flux generates a kustomization
	// listing the folder's manifests when it has none.
	Kustomize How = iota + 1
	// Helm: a chart rendered with the entry's values.
	Helm
	// Directory: an Argo CD directory source, the folder's manifests.
	Directory
)

// Entry is one GitOps object that applies part of the repository.
type Entry struct {
	// Kind is the controller's kind: "Flux Kustomization", "Flux
	// HelmRelease", "Argo CD Application".
	Kind            string
	Name, Namespace string
	At              diag.Span // the object's kind line
	How             How
	// Dir is the folder (absolute) it applies: the kustomization or plain
	// folder, or the chart. Empty when its source is not this repository.
	Dir string
	// Remote says what could not be read offline, when Dir is empty:
	// `chart podinfo from HelmRepository flux-system/podinfo
	// (https://stefanprodan.github.io/podinfo)`.
	Remote   string
	RemoteAt diag.Span
	// RemoteName is what Remote names, short: the chart (`podinfo`), or
	// the folder with its source's name (`podinfo/kustomize`).
	RemoteName string

	Kustomization Kustomization
	Chart         Chart
	// Namespace the objects without one are applied in: Argo CD's
	// destination.namespace (Flux's targetNamespace is a kustomize
	// namespace, in Kustomization).
	DefaultNamespace   string
	DefaultNamespaceAt diag.Span

	// Vars are Flux's postBuild variables, and SubstituteFrom the objects
	// they are read from; Substitute is set when postBuild asks for
	// substitution at all (Flux substitutes nothing without variables).
	Vars       map[string]Var
	Substitute bool
	// DependsOn are the entries of its kind Flux applies before this one;
	// DependsOnAt is the dependsOn key, else the spec key (where one would
	// be added). Waits is set when the entry is Ready only once what it
	// applied is healthy (a Kustomization's wait or healthChecks, a
	// HelmRelease unless install.disableWait).
	DependsOn   []Dependency
	DependsOnAt diag.Span
	Waits       bool
	// AppliedBy is the Flux Kustomization whose build outputs the entry
	// (a HelmRelease read from the build, FindBuilt); nil for one read
	// from its file.
	AppliedBy *Entry
	// Problems are what the entry names that is not there (a substituteFrom
	// object, a values file): reported on the entry.
	Problems []Problem
}

// Dependency is one dependsOn entry: namespace/name, and where it is.
type Dependency struct {
	Name string
	At   diag.Span
}

// Var is one postBuild variable: its value and where it is set.
type Var struct {
	Value string
	At    diag.Span
	// Secret is set when the value comes from a Secret: it is never shown.
	Secret bool
	From   string // "substitute" or "ConfigMap ns/name", "Secret ns/name"
}

// Problem is something wrong with an entry, at the line that says it.
type Problem struct {
	At  diag.Span
	Msg string
	// Warning rather than info: a part of the entry is not checked.
	Warning bool
}

// Kustomization is what a Flux Kustomization or an Argo CD kustomize
// source adds to the folder's own kustomization.
type Kustomization struct {
	Namespace              string
	NamespaceAt            diag.Span
	NamePrefix, NameSuffix string
	// Patches and Images are kustomization entries, as kustomize reads them.
	Patches []map[string]any
	Images  []map[string]any
	// Components are folders relative to the kustomization.
	Components []string
	// Labels and Annotations: Flux's commonMetadata (set on each object's
	// metadata after the build) or Argo CD's commonLabels and
	// commonAnnotations (kustomize's, selectors included).
	Labels, Annotations map[string]string
	MetadataOnly        bool
	// Recurse: an Argo CD directory source with recurse.
	Recurse bool
}

// Chart is how a HelmRelease or an Argo CD Helm source renders its chart.
type Chart struct {
	ReleaseName, Namespace string
	// ValuesFiles are files (absolute) merged over the chart's values,
	// in order (Argo CD valueFiles).
	ValuesFiles []string
	// Values are merged after them, in order: valuesFrom, then the inline
	// values. ValuesAt locates their keys.
	Values []Values
	// Set are Argo CD parameters, as helm --set.
	Set []string
	// PostRender are a HelmRelease's postRenderers kustomize steps, in
	// the order helm-controller applies them to the rendered objects.
	PostRender []PostRenderStep
	// remap maps the positions of values read from a build's output to
	// the files that wrote them (FindBuilt).
	remap func(diag.Span) diag.Span
}

// PostRenderStep is one kustomize step of a HelmRelease's postRenderers:
// one patch, or one renderer's images, as kustomization fields.
type PostRenderStep struct {
	Fields map[string]any
	At     diag.Span
	// What names it as the HelmRelease writes it:
	// `postRenderers[0].kustomize.patches[1]`.
	What string
}

// Values is one layer of chart values and where its keys are written.
type Values struct {
	Map  map[string]any
	From string // "HelmRelease values", "ConfigMap ns/name", …
	node *yaml.Node
	file string
	// prefix is the path under which the layer's keys sit in node (a
	// valuesFrom targetPath sets one value).
	prefix []string
}

// Label names the entry in messages: `Flux Kustomization flux-system/apps`.
func (e *Entry) Label() string {
	if e.Namespace == "" {
		return e.Kind + " " + e.Name
	}
	return e.Kind + " " + e.Namespace + "/" + e.Name
}

// ValueAt returns where the last values layer that sets key (dotted, as
// helm.ValuesAt names it) writes it, and which layer that is.
func (c *Chart) ValueAt(key string) (diag.Span, string, bool) {
	path := strings.Split(key, ".")
	for i := len(c.Values) - 1; i >= 0; i-- {
		v := c.Values[i]
		if v.node == nil {
			continue
		}
		rest, ok := cutPrefix(path, v.prefix)
		if !ok {
			continue
		}
		if n := lookup(v.node, rest); n != nil {
			p := at(v.file, n)
			if c.remap != nil {
				p = c.remap(p)
			}
			return p, v.From, true
		}
	}
	return diag.Span{}, "", false
}

func cutPrefix(path, prefix []string) ([]string, bool) {
	if len(path) < len(prefix) || !slices.Equal(path[:len(prefix)], prefix) {
		return nil, false
	}
	return path[len(prefix):], true
}

// lookup finds the value node at path below a mapping node.
func lookup(n *yaml.Node, path []string) *yaml.Node {
	for _, k := range path {
		n = get(n, k)
		if n == nil {
			return nil
		}
	}
	return n
}

// object is one document of a file, as read for discovery.
type object struct {
	file             string
	apiVersion, kind string
	name, namespace  string
	root             *yaml.Node
	kindAt           diag.Span
}

func (o *object) group() string {
	g, _, _ := strings.Cut(o.apiVersion, "/")
	return g
}

func (o *object) spec() *yaml.Node { return get(o.root, "spec") }

// MayHold reports whether a file's text can hold a GitOps object or a
// ConfigMap or Secret an entry reads: a cheap test before parsing.
func MayHold(data []byte) bool {
	return bytes.Contains(data, []byte("toolkit.fluxcd.io")) || bytes.Contains(data, []byte("argoproj.io"))
}

// readObjects parses the documents of a file; a file that does not parse
// holds no entry (the linter reports its syntax).
func readObjects(file string, data []byte) []*object {
	var out []*object
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		root := doc.Content[0]
		o := &object{file: file, root: root, apiVersion: str(root, "apiVersion"), kind: str(root, "kind")}
		if md := get(root, "metadata"); md != nil {
			o.name, o.namespace = str(md, "name"), str(md, "namespace")
		}
		o.kindAt = at(file, root)
		if k := keyNode(root, "kind"); k != nil {
			o.kindAt = at(file, k)
		}
		if o.kind != "" {
			out = append(out, o)
		}
	}
	return out
}

// get returns the value of key in a mapping node.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func keyNode(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

func str(n *yaml.Node, key string) string {
	if v := get(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// at is where n starts: an entry's places have no extent, which the
// findings made at them give themselves.
func at(file string, n *yaml.Node) diag.Span {
	return diag.Span{File: file, Line: n.Line, Column: n.Column}
}

// decodeMap decodes a mapping node; anything else is nil.
func decodeMap(n *yaml.Node) map[string]any {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var m map[string]any
	if n.Decode(&m) != nil {
		return nil
	}
	return m
}

func stringMap(n *yaml.Node) map[string]string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1].Value
	}
	return out
}

// dirIn resolves a folder an entry names relative to the repository root
// (Flux's spec.path, Argo CD's source.path): the folder holding .git. A
// path not found there, or a copy without .git (a GitOps repository kept
// inside another, a test fixture, a tarball), is resolved at the nearest
// folder above the entry's file where it exists, as the controller would
// find it at its root.
func dirIn(repo *Repository, from, rel string) (string, bool) {
	return inRepository(repo, from, rel, isDir)
}

// inRepository is where dirIn and fileIn look for rel: at the repository
// root, else at the nearest folder above from where is accepts it.
func inRepository(repo *Repository, from, rel string, is func(string) bool) (string, bool) {
	rel = filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(rel, "./"), "/"))
	if repo.Root != "" {
		if p := filepath.Join(repo.Root, rel); is(p) {
			return p, true
		}
	}
	for dir := filepath.Dir(from); ; {
		if p := filepath.Join(dir, rel); is(p) {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func isDir(p string) bool {
	fi, err := overlay.Stat(p)
	return err == nil && fi.IsDir()
}

func isFile(p string) bool {
	fi, err := overlay.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func errorf(p diag.Span, format string, args ...any) Problem {
	return Problem{At: p, Msg: fmt.Sprintf(format, args...)}
}
