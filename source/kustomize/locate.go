package kustomize

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// originDoc is one document of a resource file, indexed by field path
// when a finding is first located in it: most documents of a file have
// none (a Service beside the webhook it serves, an install file's dozens
// of objects).
type originDoc struct {
	kind, name string
	start      diag.Span
	file       string
	once       sync.Once
	root       *yaml.Node // until indexed
	tab        *table
}

// table is the document's index, made on first use; builds that share
// the file may ask at once.
func (d *originDoc) table() *table {
	d.once.Do(func() {
		d.tab = newTable(d.file)
		d.tab.record("", nil, d.root, 0)
		d.root = nil
	})
	return d.tab
}

// Location is where a finding on a built object belongs.
type Location struct {
	diag.Span
	// By says what wrote the field there: "patch", "resource" (the file
	// the object came from) or "kustomization" (generated objects, or
	// nothing better known).
	By string
}

// Locate maps a field path of a built object to the file and line that
// wrote it: the last patch that set the field, else the object's resource
// file (the field, or its closest written ancestor), else the
// kustomization file itself.
//
// atKey asks for the field's key rather than its value (an unknown or
// duplicate field).
func (b *Build) Locate(o *Object, path string, atKey bool) Location {
	l := b.locate(o, path)
	if atKey && l.exact {
		if k, ok := l.tab.keyOf(path, o.decoded()); ok {
			l.Span = k
		}
	}
	return l.Location
}

// WrittenAt is where the value at path of a built object is written, when
// one file decides it and writes the field itself: the last patch that
// sets it, else the object's resource file. ok is false for a field
// written only as part of an ancestor, or one of a generated object.
func (b *Build) WrittenAt(o *Object, path string) (Location, bool) {
	if path == "" {
		return Location{}, false
	}
	l := b.locate(o, path)
	return l.Location, l.exact && l.By != "kustomization"
}

type located struct {
	Location
	exact bool
	tab   *table
}

func (b *Build) locate(o *Object, path string) located {
	if path != "" {
		for i := len(b.tree.patches) - 1; i >= 0; i-- {
			p := b.tree.patches[i]
			if o.Origin != "" && !p.owner.resources[o.Origin] {
				continue // the patch's kustomization never saw this object
			}
			for j := len(p.docs) - 1; j >= 0; j-- {
				d := p.docs[j]
				if !p.targets(d, o) {
					continue
				}
				if at, exact, owned, ok := d.tab.lookup(path, o.decoded()); ok && owned {
					return located{Location{Span: at, By: "patch"}, exact, d.tab}
				}
			}
		}
	}
	if d := b.originDoc(o); d != nil {
		if path == "" {
			return located{Location: Location{Span: d.start, By: "resource"}}
		}
		if at, exact, _, ok := d.table().lookup(path, o.decoded()); ok {
			return located{Location{Span: at, By: "resource"}, exact, d.table()}
		}
		return located{Location: Location{Span: d.start, By: "resource"}}
	}
	return located{Location: Location{Span: diag.Point(b.File, 1, 1), By: "kustomization"}}
}

// originDoc finds the document the object came from in its resource file.
func (b *Build) originDoc(o *Object) *originDoc {
	if o.Origin == "" {
		return nil
	}
	docs, ok := b.cache[o.Origin]
	if !ok {
		if docs, ok = b.Origins.docs(o.Origin); !ok {
			docs = readDocs(o.Origin)
		}
		b.cache[o.Origin] = docs
	}
	var sameKind []*originDoc
	for _, d := range docs {
		if d.kind != o.Kind {
			continue
		}
		if d.name == o.Name {
			return d
		}
		sameKind = append(sameKind, d)
	}
	var contained []*originDoc
	for _, d := range sameKind {
		if d.name != "" && bytes.Contains([]byte(o.Name), []byte(d.name)) {
			contained = append(contained, d)
		}
	}
	switch {
	case len(contained) == 1:
		return contained[0]
	case len(sameKind) == 1:
		return sameKind[0]
	}
	return nil
}

func readDocs(file string) []*originDoc {
	docs, _ := scanDocs(file)
	return docs
}

// scanDocs reads the documents of a resource file that are mappings; ok
// is false when the file cannot be read or a document cannot be parsed
// (the documents before it are returned).
func scanDocs(file string) (out []*originDoc, ok bool) {
	data, err := overlay.ReadFile(file)
	if err != nil {
		return nil, false
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return out, errors.Is(err, io.EOF)
		}
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		if root.Kind != yaml.MappingNode {
			continue
		}
		start := diag.Point(file, root.Line, root.Column)
		if k := keyNode(root, "kind"); k != nil {
			start = (&table{file: file}).pos(k, nil)
		}
		out = append(out, &originDoc{
			kind:  mapValue(root, "kind"),
			name:  mapValue(mapNode(root, "metadata"), "name"),
			start: start,
			file:  file,
			root:  root,
		})
	}
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

// Override is a value the root kustomization's own patch writes over the
// one its bases state (an overlay's `replicas: 1` over a base's 2).
type Override struct {
	// Base is where the replaced value is written (an earlier patch or the
	// resource file), and BaseValue its text; Value is the patch's.
	Base             Location
	Value, BaseValue string
}

// Overrides reports the value the last patch that set path replaced, when
// that patch is the root kustomization's own and the field is a scalar
// written both there and before it. Only what the files show is used: the
// value each wrote, read back from its line.
func (b *Build) Overrides(o *Object, path string) (Override, bool) {
	if path == "" || b.tree == nil {
		return Override{}, false
	}
	var owners []located
	for i := len(b.tree.patches) - 1; i >= 0 && len(owners) < 2; i-- {
		p := b.tree.patches[i]
		if o.Origin != "" && !p.owner.resources[o.Origin] {
			continue
		}
		for j := len(p.docs) - 1; j >= 0; j-- {
			d := p.docs[j]
			if !p.targets(d, o) {
				continue
			}
			if at, exact, owned, ok := d.tab.lookup(path, o.decoded()); ok && owned {
				if len(owners) == 0 && (p.owner != b.tree || !exact) {
					return Override{}, false // set in a base: the overlay did not change it
				}
				owners = append(owners, located{Location{Span: at, By: "patch"}, exact, d.tab})
				break // one owner per patch file
			}
		}
	}
	if len(owners) == 0 {
		return Override{}, false
	}
	base := located{}
	if len(owners) == 2 {
		base = owners[1]
	} else if d := b.originDoc(o); d != nil {
		if at, exact, _, ok := d.table().lookup(path, o.decoded()); ok && exact {
			base = located{Location{Span: at, By: "resource"}, true, d.table()}
		}
	}
	if !base.exact {
		return Override{}, false
	}
	v, bv := scalarAt(owners[0].Span), scalarAt(base.Span)
	if v == "" || bv == "" {
		return Override{}, false
	}
	return Override{Base: base.Location, Value: v, BaseValue: bv}, true
}

// scalarAt reads the one-line scalar a position spans from its file.
func scalarAt(p diag.Span) string {
	if p.EndLine != p.Line || p.EndColumn <= p.Column {
		return ""
	}
	data, err := overlay.ReadFile(p.File)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if p.Line < 1 || p.Line > len(lines) {
		return ""
	}
	r := []rune(lines[p.Line-1])
	if p.EndColumn-1 > len(r) {
		return ""
	}
	return strings.Trim(string(r[p.Column-1:p.EndColumn-1]), `"'`)
}
