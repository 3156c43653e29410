package source

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/fix"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// kustFixes makes the rules' fixes on the objects of a kustomize build
// into edits of the files that write their fields: a field is changed
// where kustomize.Build.WrittenAt says it is written (the last patch that
// sets it, else the resource file), a missing one inserted into the
// mapping that holds it there, each in that file's style. What the
// mapping cannot reach gets no fix: a generated object, a field written
// as part of a whole list or JSON6902 value, a value a var or a
// replacement writes (the file does not hold the value the rule read). A
// JSON6902 operation's value, or a patch written inline in the
// kustomization, is no document of the object: only a scalar written
// there is replaced, no field inserted.
// verify then builds the kustomization again with each fix made and keeps
// only those whose build changes exactly the fields the fix names.
type kustFixes struct {
	b *kustomize.Build

	mu    sync.Mutex // Unit.Edits is called from several goroutines
	files map[string]*manifest.File
	made  []kustFix
}

// kustFix is a fix made into edits of the build's files.
type kustFix struct {
	obj   *kustomize.Object
	fix   rules.FieldFix
	edits []diag.Edit
}

func newKustFixes(b *kustomize.Build) *kustFixes {
	return &kustFixes{b: b, files: map[string]*manifest.File{}}
}

// edits is the build's lint.Unit.Edits.
func (k *kustFixes) edits(d *manifest.Document, fixes []rules.FieldFix) [][]diag.Edit {
	out := make([][]diag.Edit, len(fixes))
	o := k.b.Find(d.Kind, d.Name, d.Namespace)
	if o == nil || o.Origin == "" || o.Fields() == nil {
		return out
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, f := range fixes {
		if out[i] = k.fixEdits(o, f); out[i] != nil {
			k.made = append(k.made, kustFix{obj: o, fix: f, edits: out[i]})
		}
	}
	return out
}

// fixEdits makes one fix into edits, nil when one of its field edits
// cannot be made.
func (k *kustFixes) fixEdits(o *kustomize.Object, f rules.FieldFix) []diag.Edit {
	type group struct {
		doc *manifest.Document
		fix rules.FieldFix
	}
	var groups []*group
	var direct []diag.Edit
	for _, fe := range f.Edits {
		at := fe.Path
		if fe.Insert {
			at = fieldpath.Parent(fe.Path)
		}
		loc, ok := k.b.WrittenAt(o, at)
		if !ok {
			return nil
		}
		doc := k.documentAt(loc.File, loc.Line)
		if doc == nil {
			// A JSON6902 operation's value, or a patch written inline in
			// the kustomization: a scalar is replaced where it is written.
			e, ok := k.scalarEdit(loc, fe)
			if !ok {
				return nil
			}
			direct = append(direct, e)
			continue
		}
		path, ok := pathIn(fe.Path, o.Fields(), doc.Config)
		if !ok {
			return nil
		}
		fe.Path = path
		i := slices.IndexFunc(groups, func(g *group) bool { return g.doc == doc })
		if i < 0 {
			i = len(groups)
			groups = append(groups, &group{doc: doc, fix: rules.FieldFix{Fix: f.Fix, Message: f.Message}})
		}
		groups[i].fix.Edits = append(groups[i].fix.Edits, fe)
	}
	edits := direct
	for _, g := range groups {
		es := g.doc.TextEdits([]rules.FieldFix{g.fix})[0]
		if es == nil {
			return nil
		}
		edits = append(edits, es...)
	}
	diag.SortEdits(edits)
	if len(edits) == 0 || diag.Overlapping(edits) {
		return nil
	}
	return edits
}

// scalarEdit replaces the one-line scalar written at loc, when it reads
// the value the rule read.
func (k *kustFixes) scalarEdit(loc kustomize.Location, fe rules.FieldEdit) (diag.Edit, bool) {
	if fe.Insert || fe.Delete || loc.EndLine != loc.Line {
		return diag.Edit{}, false
	}
	data, err := overlay.ReadFile(loc.File)
	if err != nil {
		return diag.Edit{}, false
	}
	return manifest.ReplaceScalarAt(loc.File, data, loc.Line, loc.Column, fe)
}

// documentAt is the webhook configuration of a file on disk that holds
// line, parsed as the file itself would be.
func (k *kustFixes) documentAt(file string, line int) *manifest.Document {
	f, ok := k.files[file]
	if !ok {
		if data, err := overlay.ReadFile(file); err == nil {
			f = manifest.ParseWith(file, data, manifest.Options{OnDisk: true})
		}
		k.files[file] = f
	}
	if f == nil {
		return nil
	}
	var at *manifest.Document
	for _, d := range f.Docs {
		if d.Line <= line && (at == nil || d.Line >= at.Line) {
			at = d
		}
	}
	if at == nil || at.Config == nil {
		return nil
	}
	return at
}

// pathIn turns a field path of a built object into the path of the same
// field in a document that writes it: the elements of the lists strategic
// merge patches merge by name (webhooks, a webhook's matchConditions) are
// found by name, as kustomize merged them; other lists are written whole
// by the document that writes them, so their indices stay.
func pathIn(path string, built map[string]any, c *rules.Config) (string, bool) {
	var b strings.Builder
	var cur any = built
	webhook := -1
	for i, s := range fieldpath.Split(path) {
		if s.Index < 0 {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
			m, _ := cur.(map[string]any)
			cur = m[s.Key]
			continue
		}
		list, _ := cur.([]any)
		index := s.Index
		if s.Index < len(list) {
			cur = list[s.Index]
		} else {
			cur = nil
		}
		m, _ := cur.(map[string]any)
		name, _ := m["name"].(string)
		switch prev := strings.TrimSuffix(b.String(), "]"); {
		case prev == "webhooks":
			index = slices.IndexFunc(c.Webhooks, func(w rules.Webhook) bool { return name != "" && w.Name == name })
			webhook = index
		case strings.HasSuffix(prev, ".matchConditions") && webhook >= 0:
			index = -1
			for j, m := range c.Webhooks[webhook].MatchConditions {
				if name != "" && m.Name == name {
					index = j
				}
			}
		}
		if index < 0 {
			return "", false
		}
		b.WriteString("[" + strconv.Itoa(index) + "]")
	}
	return b.String(), true
}

// verify builds the kustomization again with the fixes made, all at once
// and, when that build is not the one expected, one at a time, and takes
// from ds the fixes whose build is not: the objects as built, but for the
// fields the fix names, which hold its values.
func (k *kustFixes) verify(ds []diag.Diagnostic) {
	if len(k.made) == 0 {
		return
	}
	var bad [][]diag.Edit
	if all := disjoint(k.made, func(m kustFix) []diag.Edit { return m.edits }); len(all) != len(k.made) || !k.builds(all) {
		for _, m := range k.made {
			if !k.builds([]kustFix{m}) {
				bad = append(bad, m.edits)
			}
		}
	}
	dropFixes(ds, bad)
}

// disjoint is the fixes whose edits touch no earlier one's, in order.
func disjoint[F any](made []F, editsOf func(F) []diag.Edit) []F {
	var out []F
	var edits []diag.Edit
	for _, m := range made {
		all := append(slices.Clone(edits), editsOf(m)...)
		diag.SortEdits(all)
		if !diag.Overlapping(all) {
			out, edits = append(out, m), all
		}
	}
	return out
}

// editedTexts is the text of each file the edits touch, read as the
// linter read it (through the editor's overlay), with the edits made;
// keyed by name(file), the form the rebuild or re-render reads.
func editedTexts(edits []diag.Edit, name func(string) (string, error)) (map[string][]byte, bool) {
	byFile := map[string][]diag.Edit{}
	for _, e := range edits {
		byFile[e.File] = append(byFile[e.File], e)
	}
	edited := map[string][]byte{}
	for file, es := range byFile {
		data, err := overlay.ReadFile(file)
		if err != nil {
			return nil, false
		}
		key, err := name(file)
		if err != nil {
			return nil, false
		}
		diag.SortEdits(es)
		if edited[key], err = fix.Apply(data, es); err != nil {
			return nil, false
		}
	}
	return edited, true
}

// builds reports whether the kustomization built with the fixes made is
// the build expected.
func (k *kustFixes) builds(fixes []kustFix) bool {
	var edits []diag.Edit
	want := map[*kustomize.Object]map[string]any{}
	for _, m := range fixes {
		edits = append(edits, m.edits...)
		w, ok := want[m.obj]
		if !ok {
			w = deepCopy(m.obj.Fields()).(map[string]any)
			want[m.obj] = w
		}
		for _, fe := range m.fix.Edits {
			if !applyFieldEdit(w, fe) {
				return false
			}
		}
	}
	edited, ok := editedTexts(edits, func(file string) (string, error) { return file, nil })
	if !ok {
		return false
	}
	nb, err := k.b.Rebuilt(edited)
	if err != nil || len(nb.Objects) != len(k.b.Objects) {
		return false
	}
	for i, o := range k.b.Objects {
		n := nb.Objects[i]
		w, fixed := want[o]
		switch {
		case !fixed && string(n.YAML) != string(o.YAML):
			return false
		case fixed && !reflect.DeepEqual(n.Fields(), w):
			return false
		}
	}
	return true
}

// applyFieldEdit makes a rule's field edit to an object decoded from JSON.
func applyFieldEdit(obj map[string]any, fe rules.FieldEdit) bool {
	steps := fieldpath.Split(fe.Path)
	if len(steps) < 2 && fe.Delete || len(steps) == 0 {
		return false
	}
	var value any = fe.New
	switch {
	case fe.Insert:
		value = jsonValue(fe.Value)
	case fe.Number:
		n, err := strconv.Atoi(fe.New)
		if err != nil {
			return false
		}
		value = float64(n)
	}
	last := steps[len(steps)-1]
	holder := steps[:len(steps)-1]
	if fe.Delete {
		// A shorter list replaces the list in its own holder.
		holder = steps[:len(steps)-2]
		list, ok := walk(obj, steps[:len(steps)-1]).([]any)
		if !ok || last.Index < 0 || last.Index >= len(list) {
			return false
		}
		value = slices.Delete(slices.Clone(list), last.Index, last.Index+1)
		last = steps[len(steps)-2]
	}
	switch h := walk(obj, holder).(type) {
	case map[string]any:
		if _, ok := h[last.Key]; last.Index >= 0 || ok == fe.Insert {
			return false
		}
		h[last.Key] = value
	case []any:
		if last.Index < 0 || last.Index >= len(h) || fe.Insert {
			return false
		}
		h[last.Index] = value
	default:
		return false
	}
	return true
}

// walk is the value at steps below v, or nil.
func walk(v any, steps []fieldpath.Step) any {
	for _, s := range steps {
		v = step(v, s)
	}
	return v
}

// step is the value at one step of a path below v, or nil.
func step(v any, s fieldpath.Step) any {
	if s.Index >= 0 {
		if l, ok := v.([]any); ok && s.Index < len(l) {
			return l[s.Index]
		}
		return nil
	}
	m, _ := v.(map[string]any)
	return m[s.Key]
}

// jsonValue is a rules.FieldEdit's Value as JSON decodes it.
func jsonValue(v any) any {
	switch v := v.(type) {
	case int:
		return float64(v)
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	case rules.Mapping:
		out := map[string]any{}
		for _, f := range v {
			out[f.Name] = jsonValue(f.Value)
		}
		return out
	case []rules.Mapping:
		out := make([]any, len(v))
		for i, m := range v {
			out[i] = jsonValue(m)
		}
		return out
	}
	return v
}

// deepCopy copies a value decoded from JSON.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
