package source

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// lintBuild lints the objects a kustomization builds, together (so
// cross-object rules see the build's Services and workloads), and moves
// every finding to the patch or resource line that wrote its field.
func lintBuild(b *kustomize.Build, lo lint.Options) *lint.Result {
	var buf bytes.Buffer
	for _, o := range b.Objects {
		buf.WriteString("---\n")
		buf.Write(o.YAML)
	}
	name := b.File + " (built)"
	f := manifest.Parse(name, buf.Bytes())
	res := lint.Files([]*manifest.File{f}, lo)
	origin := "kustomize build " + b.Dir
	for i := range res.Diagnostics {
		d := &res.Diagnostics[i]
		if d.File != name {
			continue
		}
		var o *kustomize.Object
		if d.Object != nil {
			o = b.Find(d.Object.Kind, d.Object.Name, d.Object.Namespace)
		}
		if o == nil {
			d.File, d.Line, d.Column, d.EndLine, d.EndColumn = display(b.File), 1, 1, 1, 2
			d.Origin = origin
			continue
		}
		at := b.Locate(o, d.Path, isAtKey(buf.Bytes(), *d))
		at.File = display(at.File)
		d.File, d.Line, d.Column, d.EndLine, d.EndColumn = at.File, at.Line, at.Column, at.EndLine, at.EndColumn
		d.Origin = origin + " (" + at.By + ")"
	}
	// The built text is not a file anyone can open; the report gets the
	// files the build read instead (for snippets and the file count).
	res.Files = nil
	resources, patches, kusts := b.Consumed()
	for _, set := range []map[string]bool{resources, patches, kusts} {
		for _, p := range slices.Sorted(maps.Keys(set)) {
			if data, err := os.ReadFile(p); err == nil {
				res.Files = append(res.Files, &manifest.File{Name: display(p), Data: data})
			}
		}
	}
	return res
}

// kustomizeErrors reports a kustomization that was not built. Its files
// are then linted one by one (Lint does not count them as consumed), and
// the message says so.
func kustomizeErrors(dir string, b *kustomize.Build, err error) []diag.Diagnostic {
	const after = "; the kustomization was not built, its files are linted one by one"
	mk := func(file string, line, col, endCol int, msg string) diag.Diagnostic {
		return diag.Diagnostic{
			File: display(file), Line: line, Column: col, EndLine: line, EndColumn: endCol,
			Severity: rules.MustLookup(rules.KustomizeBuildRule).Severity, Rule: rules.KustomizeBuildRule,
			Message: msg + after,
		}
	}
	var ps kustomize.Problems
	if errors.As(err, &ps) {
		out := make([]diag.Diagnostic, 0, len(ps))
		for _, p := range ps {
			out = append(out, mk(p.File, p.Line, p.Column, p.EndCol, p.Msg))
		}
		return out
	}
	file, line := filepath.Join(dir, "kustomization.yaml"), 1
	if b != nil {
		file = b.File
	} else if f, ok := kustomize.FileIn(dir); ok {
		file = f
	}
	col, endCol, msg := 1, 2, err.Error()
	if l, c, ok := kustomize.EntryLine(file, msg); ok {
		line, col, endCol = l, c, c+1
	}
	return []diag.Diagnostic{mk(file, line, col, endCol, msg)}
}

// lintChart renders a chart and lints its manifests together, moving each
// finding to the template that produced the document and the line its
// field was traced to.
//
// The diagnostics are the chart's own problems: the whole chart when the
// result is nil, else the templates that were not rendered.
func lintChart(dir string, so Options, lo lint.Options) (*lint.Result, []diag.Diagnostic) {
	kv := ""
	if lo.Settings != nil {
		kv = fmt.Sprintf("v%d.%d.0", lo.Settings.KubeVersion.Major, lo.Settings.KubeVersion.Minor)
	}
	renderDiag := func(err error) diag.Diagnostic {
		d := diag.Diagnostic{
			File: filepath.Join(dir, "Chart.yaml"), Line: 1, Column: 1, EndLine: 1, EndColumn: 2,
			Severity: rules.MustLookup(rules.HelmRenderRule).Severity, Rule: rules.HelmRenderRule,
			Message: err.Error(),
		}
		var he *helm.Error
		if errors.As(err, &he) {
			d.File, d.Line, d.Column, d.EndLine, d.EndColumn = he.File, he.Line, he.Column, he.Line, he.Column+1
		}
		return d
	}
	c, err := helm.Render(dir, helm.Options{ValuesFiles: so.ValuesFiles, KubeVersion: kv})
	if err != nil {
		return nil, []diag.Diagnostic{renderDiag(err)}
	}
	var problems []diag.Diagnostic
	for _, e := range c.Skipped {
		problems = append(problems, renderDiag(e))
	}
	origin := "helm template " + dir
	for _, v := range so.ValuesFiles {
		origin += " --values " + v
	}
	var files []*manifest.File
	byName := map[string]*helm.Template{}
	for _, t := range c.Templates {
		files = append(files, manifest.Parse(t.File, t.Rendered))
		byName[t.File] = t
	}
	markValueDriven(files, byName)
	res := lint.Files(files, lo)
	docsOf := map[string]*manifest.File{}
	for _, f := range files {
		docsOf[f.Name] = f
	}
	for i := range res.Diagnostics {
		d := &res.Diagnostics[i]
		t := byName[d.File]
		if t == nil {
			continue
		}
		f := docsOf[d.File]
		doc, docs := renderedDoc(f, d.Line)
		if t.Source == nil {
			// A packaged subchart: no template file to point into.
			d.Origin = origin + ", # Source: " + t.Name
			continue
		}
		if docs != templateChunks(t) {
			doc = -1 // conditionals changed the document count
		}
		tr := t.Trace(doc, d.Path)
		d.Line, d.Column, d.EndLine, d.EndColumn = tr.Line, tr.Column, tr.Line, tr.EndColumn
		var how string
		switch {
		case d.Path == "":
		case !tr.Exact:
			how = "; the field is not written in the template, shown at the closest enclosing key"
		case !tr.Literal:
			how = "; the value comes from the template action on this line"
		}
		d.Origin = origin + ", # Source: " + t.Name + how
	}
	// Keep the rendered text under a name that says what it is, and the
	// templates under their own names for snippets.
	for _, f := range files {
		f.Name = f.Name + " (rendered)"
	}
	res.Files = files
	for _, t := range c.Templates {
		if t.Source != nil {
			res.Files = append(res.Files, &manifest.File{Name: t.File, Data: t.Source})
		}
	}
	return res, problems
}

// renderedDoc finds the index of the document a rendered line is in, and
// how many documents the rendered template has.
func renderedDoc(f *manifest.File, line int) (doc, count int) {
	doc = -1
	seen := map[int]bool{}
	for _, d := range f.Docs {
		seen[d.Index] = true
		if d.Line <= line {
			doc = d.Index
		}
	}
	return doc, len(seen)
}

func templateChunks(t *helm.Template) int { return helm.Chunks(t.Source) }

// markValueDriven tells the backend checks which workloads take spec.replicas
// from a template action: a chart that defaults to one replica but lets
// users choose is judged on the values rendered, at a lower severity.
func markValueDriven(files []*manifest.File, byName map[string]*helm.Template) {
	for _, f := range files {
		t := byName[f.Name]
		if t == nil || t.Source == nil {
			continue
		}
		if _, docs := renderedDoc(f, 0); docs != templateChunks(t) {
			continue // conditionals changed the document count: no mapping
		}
		for _, d := range f.Docs {
			if tr := t.Trace(d.Index, "spec.replicas"); tr.Exact && !tr.Literal {
				d.MarkReplicasFromValues()
			}
		}
	}
}

// isAtKey reports whether a diagnostic on rendered text points at its
// field's key (an unknown or duplicate field) rather than its value.
func isAtKey(data []byte, d diag.Diagnostic) bool {
	lines := bytes.Split(data, []byte{'\n'})
	if d.Line < 1 || d.Line > len(lines) || d.Path == "" {
		return false
	}
	r := []rune(string(lines[d.Line-1]))
	if d.Column < 1 || d.Column > len(r) {
		return false
	}
	rest := string(r[d.Column-1:])
	key := d.Path
	if strings.HasSuffix(key, "]") {
		if i := strings.LastIndexByte(key, '['); i >= 0 {
			key = key[i+1 : len(key)-1]
		}
	} else if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	return strings.HasPrefix(rest, key+":") || strings.HasPrefix(rest, `"`+key+`":`) || strings.HasPrefix(rest, "'"+key+"':")
}

// display shows a path relative to the working folder when it is inside
// it, as paths given on the command line are.
func display(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
