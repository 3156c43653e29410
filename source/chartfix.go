package source

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/helm"
)

// chartFixes makes the rules' fixes on a rendered chart's objects into
// edits of the chart's files, where one file writes the value literally:
// the template line that writes the field with no template action on it,
// or, for a line whose value is an action reading one chart value as it
// is (`timeoutSeconds: {{ .Values.webhook.timeout }}`), that key in the
// chart's values.yaml. A value a helper, a pipeline or a named template
// writes, a field a range loop writes for several elements, and a
// document whose template chunks cannot be matched get no fix. verify
// then renders the chart again with each fix made and keeps only those
// whose render changes exactly the fields the fix names.
type chartFixes struct {
	u           *unit
	kubeVersion string
	c           *helm.Chart
	byName      map[string]*helm.Template
	docsOf      map[string]*manifest.File

	mu   sync.Mutex // Unit.Edits is called from several goroutines
	made []chartFix
}

// chartFix is a fix made into edits of the chart's files.
type chartFix struct {
	t     *helm.Template
	doc   int // the document of t's render it fixes
	fix   rules.FieldFix
	edits []diag.Edit
}

// verbatimValue is a template line's value that is one chart value, as
// it is.
var verbatimValue = lazy.Regexp(`^\{\{-?\s*\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*-?\}\}\s*(?:#.*)?$`)

// edits is the chart's lint.Unit.Edits.
func (c *chartFixes) edits(d *manifest.Document, fixes []rules.FieldFix) [][]diag.Edit {
	out := make([][]diag.Edit, len(fixes))
	t := c.byName[d.File]
	f := c.docsOf[d.File]
	if t == nil || t.Source == nil || f == nil || d.Item >= 0 {
		return out
	}
	if _, docs := renderedDoc(f, 0); docs != templateChunks(t) {
		return out // conditionals changed the document count: no mapping
	}
	disk, err := overlay.ReadFile(t.File)
	if err != nil || !bytes.Equal(disk, t.Source) {
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, fx := range fixes {
		if out[i] = c.fixEdits(t, d.Index, fx); out[i] != nil {
			c.made = append(c.made, chartFix{t: t, doc: d.Index, fix: fx, edits: out[i]})
		}
	}
	return out
}

func (c *chartFixes) fixEdits(t *helm.Template, doc int, f rules.FieldFix) []diag.Edit {
	var edits []diag.Edit
	for _, fe := range f.Edits {
		if fe.Insert || fe.Delete {
			return nil // lines of a template are not YAML the inserter can read
		}
		tr := t.Trace(doc, fe.Path)
		if !tr.Exact || tr.Shared || tr.File != "" {
			return nil
		}
		var e diag.Edit
		var ok bool
		if tr.Literal {
			e, ok = manifest.ReplaceScalarAt(t.File, t.Source, tr.Line, tr.Column, fe)
		} else {
			e, ok = c.valuesEdit(t, tr, fe)
		}
		if !ok {
			return nil
		}
		edits = append(edits, e)
	}
	diag.SortEdits(edits)
	if len(edits) == 0 || diag.Overlapping(edits) {
		return nil
	}
	return edits
}

// valuesEdit is the edit of the chart's values.yaml key that the template
// line at tr reads verbatim.
func (c *chartFixes) valuesEdit(t *helm.Template, tr helm.Trace, fe rules.FieldEdit) (diag.Edit, bool) {
	lines := strings.Split(string(t.Source), "\n")
	if tr.Line < 1 || tr.Line > len(lines) {
		return diag.Edit{}, false
	}
	r := []rune(strings.TrimRight(lines[tr.Line-1], "\r"))
	if tr.Column < 1 || tr.Column > len(r) {
		return diag.Edit{}, false
	}
	m := verbatimValue().FindStringSubmatch(string(r[tr.Column-1:]))
	if m == nil {
		return diag.Edit{}, false
	}
	key := strings.TrimPrefix(m[1], ".")
	if setBy(c.u, key) != "" {
		return diag.Edit{}, false // --set decides it
	}
	vs, ok := helm.ValuesAt(c.u.dir, c.u.chart.ValuesFiles, t.Source, tr.Line)
	file := filepath.Join(c.u.dir, "values.yaml")
	if !ok || vs.Key != key || vs.File != file {
		return diag.Edit{}, false // not the chart's own values.yaml
	}
	data, err := overlay.ReadFile(file)
	if err != nil {
		return diag.Edit{}, false
	}
	line, col, ok := valueNodeAt(data, strings.Split(key, "."))
	if !ok {
		return diag.Edit{}, false
	}
	return manifest.ReplaceScalarAt(file, data, line, col, fe)
}

// valueNodeAt is where the scalar at the keys of a values file is
// written; not for an anchored or aliased one, which another key shares.
func valueNodeAt(data []byte, keys []string) (line, col int, ok bool) {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) != 1 {
		return 0, 0, false
	}
	n := root.Content[0]
	for _, k := range keys {
		if n.Kind != yaml.MappingNode || n.Anchor != "" {
			return 0, 0, false
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return 0, 0, false
		}
		n = next
	}
	if n.Kind != yaml.ScalarNode || n.Anchor != "" {
		return 0, 0, false
	}
	return n.Line, n.Column, true
}

// verify renders the chart again with the fixes made, all at once and,
// when that render is not the one expected, one at a time, and takes from
// ds the fixes whose render is not.
func (c *chartFixes) verify(ds []diag.Diagnostic) {
	if len(c.made) == 0 {
		return
	}
	all := disjoint(c.made, func(m chartFix) []diag.Edit { return m.edits })
	if len(all) == len(c.made) && c.renders(all) {
		return
	}
	var bad [][]diag.Edit
	for _, m := range c.made {
		if !c.renders([]chartFix{m}) {
			bad = append(bad, m.edits)
		}
	}
	dropFixes(ds, bad)
}

// dropFixes takes the fixes with these edits from ds (a verify found
// what they build is not what they say).
func dropFixes(ds []diag.Diagnostic, bad [][]diag.Edit) {
	if len(bad) == 0 {
		return
	}
	for i := range ds {
		ds[i].Fixes = slices.DeleteFunc(ds[i].Fixes, func(f diag.Fix) bool {
			return slices.ContainsFunc(bad, func(es []diag.Edit) bool { return slices.Equal(es, f.Edits) })
		})
		if len(ds[i].Fixes) == 0 {
			ds[i].Fixes = nil
		}
	}
}

// renders reports whether the chart rendered with the fixes made is the
// render expected: every template's documents as before, but for the
// fields the fixes name. caBundles a chart generates at each render are
// not compared, nor the other documents of such a template.
func (c *chartFixes) renders(fixes []chartFix) bool {
	want, ok := fixedObjects(fixes)
	if !ok {
		return false
	}
	var edits []diag.Edit
	for _, m := range fixes {
		edits = append(edits, m.edits...)
	}
	// The chart is rendered from absolute paths (helm.Options.Edited).
	edited, ok := editedTexts(edits, filepath.Abs)
	if !ok {
		return false
	}
	nc, err := renderChartWith(c.u, c.kubeVersion, edited)
	if err != nil || len(nc.Templates) != len(c.c.Templates) || len(nc.Skipped) != len(c.c.Skipped) {
		return false
	}
	for i, t := range c.c.Templates {
		n := nc.Templates[i]
		if n.Name != t.Name {
			return false
		}
		unstable := t.Again != nil && !bytes.Equal(t.Again, t.Rendered)
		w, fixed := want[t]
		switch {
		case !fixed && !unstable && !bytes.Equal(n.Rendered, t.Rendered):
			return false
		case fixed:
			got, ok := renderedDocs(n.Rendered)
			if !ok || len(got) != len(w) {
				return false
			}
			if unstable {
				got, w = withoutCABundles(got), withoutCABundles(w)
			}
			if !reflect.DeepEqual(got, w) {
				return false
			}
		}
	}
	return true
}

// fixedObjects is what each fixed template should render: its documents
// with the fixes' field edits made.
func fixedObjects(fixes []chartFix) (map[*helm.Template][]any, bool) {
	want := map[*helm.Template][]any{}
	for _, m := range fixes {
		docs, ok := want[m.t]
		if !ok {
			if docs, ok = renderedDocs(m.t.Rendered); !ok {
				return nil, false
			}
			want[m.t] = docs
		}
		if m.doc >= len(docs) {
			return nil, false
		}
		obj, _ := docs[m.doc].(map[string]any)
		if obj == nil {
			return nil, false
		}
		for _, fe := range m.fix.Edits {
			if !applyFieldEdit(obj, fe) {
				return nil, false
			}
		}
	}
	return want, true
}

// renderedDocs decodes the non-empty documents of a rendered template
// into JSON types, as the loader counts them.
func renderedDocs(data []byte) ([]any, bool) {
	var out []any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, true
		}
		if err != nil {
			return nil, false
		}
		if len(n.Content) == 0 || n.Content[0].Kind == yaml.ScalarNode && n.Content[0].Tag == "!!null" {
			continue
		}
		b, err := yaml.Marshal(&n)
		if err != nil {
			return nil, false
		}
		var v any
		if sigsyaml.Unmarshal(b, &v) != nil {
			return nil, false
		}
		out = append(out, v)
	}
}

// withoutCABundles drops the webhooks' caBundles a render generates.
func withoutCABundles(docs []any) []any {
	out := make([]any, len(docs))
	for i, d := range docs {
		out[i] = deepCopy(d)
		m, _ := out[i].(map[string]any)
		ws, _ := m["webhooks"].([]any)
		for _, w := range ws {
			wm, _ := w.(map[string]any)
			if cc, ok := wm["clientConfig"].(map[string]any); ok {
				delete(cc, "caBundle")
			}
		}
	}
	return out
}
