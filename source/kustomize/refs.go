package kustomize

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Refs is what one kustomization file refers to, read without building:
// enough to tell which kustomizations are roots (consumed by no other) and
// which files a build reads, so a file named on the command line can be
// linted through the builds that use it.
type Refs struct {
	Dir, File string // the kustomization's folder and file (absolute)
	// Component is a `kind: Component`: it is built only as part of
	// another kustomization, never on its own.
	Component bool
	// Dirs are the folders it uses as bases, components or resources
	// (absolute); each holds a kustomization.
	Dirs []string
	// DirAt is where the first entry naming each of Dirs is written, so
	// that a problem with that reference (a cycle) is reported there.
	DirAt map[string]diag.Span
	// Files are the files it reads itself (absolute): resources, patches,
	// configurations, CRD and replacement files, generator sources.
	Files []string
	// Missing are local references that do not exist: the build fails.
	Missing []string
	// Remote is set when it refers to something that must be downloaded.
	Remote bool
}

// ReadRefs reads the kustomization in dir. ok is false when dir has none
// or it does not parse (the build reports why).
func ReadRefs(dir string) (r *Refs, ok bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	file, found := FileIn(abs)
	if !found {
		return nil, false
	}
	return RefsOf(abs, file, nil)
}

// RefsOf is ReadRefs for the kustomization file of the folder abs that the
// caller found itself (a walk of the repository), with its text when the
// caller read it too (nil: it is read here).
func RefsOf(abs, file string, data []byte) (r *Refs, ok bool) {
	if data == nil {
		var err error
		if data, err = overlay.ReadFile(file); err != nil {
			return nil, false
		}
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return &Refs{Dir: abs, File: file}, true
	}
	k := fields{doc.Content[0]}
	r = &Refs{Dir: abs, File: file, Component: k.component(), DirAt: map[string]diag.Span{}}
	ref := func(n *yaml.Node, dirsAllowed bool) { r.add(file, n, dirsAllowed) }
	for _, e := range k.includes() {
		ref(e.node, true)
	}
	for _, n := range append(k.strategicMerge(), k.configFiles()...) {
		ref(n, false)
	}
	for _, p := range k.patches() {
		ref(p.path, false)
	}
	for _, n := range k.replacementPaths() {
		ref(n, false)
	}
	for _, g := range k.generatorSources() {
		if g.keyed {
			if g.node.Kind == yaml.ScalarNode {
				// "key=path" names the key the file is stored under.
				v := g.node.Value
				if _, p, ok := strings.Cut(v, "="); ok {
					v = p
				}
				ref(&yaml.Node{Kind: yaml.ScalarNode, Value: v}, false)
			}
			continue
		}
		ref(g.node, false)
	}
	return r, true
}

// add records one path the kustomization names (relative to its folder,
// r.Dir): a file, a folder where folders are allowed, or a missing path;
// a remote reference marks the kustomization remote.
func (r *Refs) add(file string, n *yaml.Node, dirsAllowed bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Value == "" || strings.ContainsAny(n.Value, "\n") {
		return
	}
	v := n.Value
	if remoteRef().MatchString(v) {
		r.Remote = true
		return
	}
	if strings.Contains(v, ":") && !filepath.IsAbs(v) {
		return // an inline patch written as a flow scalar
	}
	p := filepath.Clean(filepath.Join(r.Dir, v))
	fi, err := overlay.Stat(p)
	switch {
	case err != nil:
		r.Missing = append(r.Missing, p)
	case fi.IsDir() && dirsAllowed:
		if _, dup := r.DirAt[p]; !dup {
			r.DirAt[p] = entryPos(file, n)
		}
		r.Dirs = append(r.Dirs, p)
	case !fi.IsDir():
		r.Files = append(r.Files, p)
	}
}

// entryPos is the span of a scalar entry, its quotes included.
func entryPos(file string, n *yaml.Node) diag.Span {
	width := utf8.RuneCountInString(n.Value)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		width += 2
	}
	return diag.LineSpan(file, n.Line, n.Column, n.Column+width)
}
