// Package source lints manifests as people keep them, not only as complete
// YAML files: a folder with a kustomization is built with kustomize and
// linted as built, a Helm chart is rendered and linted as rendered, and
// findings on the output are reported at the file and line that wrote the
// field (a patch, a resource file, a template). Files that are partial
// objects (kustomize patches) are checked only for what they state, and
// unrendered templates get one clear finding instead of syntax errors.
//
// It sits between the CLI and the lint engine: Lint takes the same
// arguments as lint.Paths.
package source

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/unrendered"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// Options are the source-specific settings of a run.
type Options struct {
	// Charts are chart folders to render (--helm), in addition to chart
	// folders met while walking the paths.
	Charts []string
	// ValuesFiles are merged over every rendered chart's values (--values).
	ValuesFiles []string
	// NoKustomize lints kustomization folders file by file instead of
	// building them.
	NoKustomize bool
}

// Lint lints args the way lint.Paths does, with kustomizations built,
// charts rendered, patches and templates recognized.
func Lint(args []string, stdin io.Reader, stdinName string, lo lint.Options, so Options) (*lint.Result, error) {
	if len(args) == 0 && len(so.Charts) == 0 {
		args = []string{"."}
	}
	p, err := makePlan(args, stdinName, so)
	if err != nil {
		return nil, err
	}
	if len(so.ValuesFiles) > 0 && len(p.charts) == 0 {
		return nil, fmt.Errorf("--values needs a chart: name it with --helm CHART, or lint a folder that has a Chart.yaml")
	}
	if lo.Skip != nil {
		// The configuration's ignore globs cover charts and
		// kustomizations as they cover files.
		p.files = slices.DeleteFunc(p.files, func(s manifest.Source) bool { return !s.Stdin && lo.Skip(s.Name) })
		p.charts = slices.DeleteFunc(p.charts, lo.Skip)
		p.kustomizations = slices.DeleteFunc(p.kustomizations, lo.Skip)
	}
	var out lint.Result
	var extra []diag.Diagnostic

	// Kustomizations first: they decide which files are linted through a
	// build rather than on their own.
	consumed := map[string]bool{}
	patchFiles := map[string]string{}
	for _, dir := range p.kustomizations {
		b, err := kustomize.Run(dir)
		if b != nil {
			_, patches, _ := b.Consumed()
			for f := range patches {
				patchFiles[f] = b.File
			}
		}
		if err != nil {
			extra = append(extra, kustomizeErrors(dir, b, err)...)
			continue
		}
		resources, patches, _ := b.Consumed()
		for f := range resources {
			consumed[f] = true
		}
		for f := range patches {
			consumed[f] = true
		}
		merge(&out, lintBuild(b, lo))
	}
	for _, dir := range p.charts {
		res, problems := lintChart(dir, so, lo)
		extra = append(extra, problems...)
		if res != nil {
			merge(&out, res)
		}
	}

	// Standalone files.
	var sources []manifest.Source
	for _, s := range p.files {
		if !s.Stdin && !p.explicit[s.Name] && consumed[abs(s.Name)] {
			continue
		}
		sources = append(sources, s)
	}
	files, err := readAll(sources, stdin, lo.Jobs)
	if err != nil {
		return nil, err
	}
	partial := map[*manifest.Document]string{}
	for i, f := range files {
		extra = append(extra, recogniseTemplates(f)...)
		for _, d := range f.Docs {
			if why := isPartial(f, d, patchFiles); why != "" {
				partial[d] = why
			}
		}
		if !sources[i].Stdin {
			f.Data = nil // the report re-reads it from disk for snippets
		}
	}
	res := lint.Files(files, lo)
	res.Diagnostics = onlyStated(res.Diagnostics, files, partial)
	merge(&out, res)

	out.Diagnostics = append(out.Diagnostics, finish(extra, &lo)...)
	out.Diagnostics = diag.Normalize(supersededByPlaceholders(out.Diagnostics))
	return &out, nil
}

func merge(dst, src *lint.Result) {
	dst.Files = append(dst.Files, src.Files...)
	dst.Diagnostics = append(dst.Diagnostics, src.Diagnostics...)
	dst.Configs += src.Configs
	dst.Internal = append(dst.Internal, src.Internal...)
}

// finish applies rule selection and severity overrides to findings made
// here rather than by the engine.
func finish(ds []diag.Diagnostic, lo *lint.Options) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range ds {
		if lo.Enabled != nil && !lo.Enabled(d.Rule) {
			continue
		}
		if s, ok := lo.Severity[d.Rule]; ok {
			d.Severity = s
		}
		out = append(out, d)
	}
	return out
}

// plan is what a run will read.
type plan struct {
	files          []manifest.Source
	explicit       map[string]bool // files named on the command line
	kustomizations []string        // top-level kustomization folders to build
	charts         []string
}

func makePlan(args []string, stdinName string, so Options) (*plan, error) {
	p := &plan{explicit: map[string]bool{}}
	var files []manifest.Source
	if len(args) > 0 {
		var err error
		if files, err = manifest.Expand(args, stdinName); err != nil {
			return nil, err
		}
	}
	charts := map[string]bool{}
	var kusts []string
	for _, c := range so.Charts {
		if !helm.IsChart(c) {
			return nil, fmt.Errorf("--helm %s: no Chart.yaml in that folder", c)
		}
		charts[filepath.Clean(c)] = true
	}
	for _, a := range args {
		if a == "-" {
			continue
		}
		matches := []string{a}
		if strings.ContainsAny(a, "*?[") {
			matches, _ = filepath.Glob(a)
		}
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil {
				continue
			}
			if !fi.IsDir() {
				p.explicit[filepath.Clean(m)] = true
				if slices.Contains(kustomize.FileNames, filepath.Base(m)) && !so.NoKustomize {
					// Naming the kustomization file means its build.
					kusts = append(kusts, filepath.Dir(filepath.Clean(m)))
				}
				continue
			}
			root := m
			if li, err := os.Lstat(m); err == nil && li.Mode()&fs.ModeSymlink != 0 {
				root += string(filepath.Separator) // walk the linked folder, not the link
			}
			err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
				if err != nil {
					return nil // manifest.Expand reports the unreadable path
				}
				if !e.IsDir() {
					return nil
				}
				if filepath.Clean(path) != filepath.Clean(m) && skipDir(e.Name()) {
					return filepath.SkipDir
				}
				if helm.IsChart(path) {
					charts[filepath.Clean(path)] = true
					return filepath.SkipDir // its files are templates, values and subcharts
				}
				if _, ok := kustomize.FileIn(path); ok && !so.NoKustomize {
					kusts = append(kusts, filepath.Clean(path))
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	// Files inside charts are linted through the chart, unless named.
	for _, f := range files {
		if !f.Stdin && !p.explicit[f.Name] && insideAny(f.Name, charts) {
			continue
		}
		p.files = append(p.files, f)
	}
	for c := range charts {
		p.charts = append(p.charts, c)
	}
	slices.Sort(p.charts)
	// Build only kustomizations that no other found one uses: building
	// config/webhook on its own next to config/default would lint the same
	// objects without the overlay's patches.
	used := map[string]bool{}
	for _, k := range kusts {
		if nested, err := kustomize.Nested(k); err == nil {
			for f := range nested {
				used[filepath.Dir(f)] = true
			}
		}
	}
	for _, k := range kusts {
		if !used[abs(k)] && !insideAny(k, charts) {
			p.kustomizations = append(p.kustomizations, k)
		}
	}
	slices.Sort(p.kustomizations)
	return p, nil
}

func skipDir(name string) bool {
	return (strings.HasPrefix(name, ".") && name != "." && name != "..") || name == "vendor" || name == "node_modules"
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}

func insideAny(p string, dirs map[string]bool) bool {
	ap := abs(p)
	for d := range dirs {
		ad := abs(d)
		if ap == ad || strings.HasPrefix(ap, ad+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// readAll reads and parses sources, in parallel.
func readAll(sources []manifest.Source, stdin io.Reader, jobs int) ([]*manifest.File, error) {
	files := make([]*manifest.File, len(sources))
	if jobs <= 0 {
		jobs = 4
	}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, s := range sources {
		if s.Stdin {
			files[i] = readFile(s, stdin)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			files[i] = readFile(s, nil)
		}()
	}
	wg.Wait()
	return files, nil
}

// readFile reads and parses one source; a source that cannot be read is
// one finding on its path.
func readFile(s manifest.Source, stdin io.Reader) *manifest.File {
	data, err := manifest.Read(s, stdin)
	if err != nil {
		return manifest.Unreadable(s.Name, err)
	}
	return manifest.Parse(s.Name, data)
}

// recogniseTemplates replaces what the loader made of an unrendered
// template with one helm-template finding: a file under a chart's
// templates/, a file that does not parse because of template actions, or
// a webhook configuration document that holds Go template actions.
func recogniseTemplates(f *manifest.File) []diag.Diagnostic {
	report := func(t unrendered.Template, lineOffset int) diag.Diagnostic {
		line := t.Line + lineOffset
		return diag.Diagnostic{
			File: f.Name, Line: line, Column: t.Column, EndLine: line,
			EndColumn: t.Column + len([]rune(t.Action)),
			Severity:  rules.MustLookup(rules.HelmTemplateRule).Severity,
			Rule:      rules.HelmTemplateRule, Message: t.Message(),
		}
	}
	_, underChart := unrendered.UnderChart(f.Name)
	syntaxErr := false
	for _, d := range f.Diagnostics {
		syntaxErr = syntaxErr || d.Rule == manifest.RuleSyntax
	}
	if (underChart && bytes.Contains(f.Data, []byte("{{"))) || syntaxErr || unrendered.HasTemplateKeys(f.Data) {
		if t, ok := unrendered.InFile(f.Name, f.Data); ok {
			// The whole file is a template: nothing in it is final.
			f.Docs = nil
			f.Diagnostics = nil
			return []diag.Diagnostic{report(t, 0)}
		}
		return nil
	}
	var out []diag.Diagnostic
	lines := bytes.Split(f.Data, []byte{'\n'})
	kept := f.Docs[:0]
	for i, d := range f.Docs {
		if d.Config == nil {
			kept = append(kept, d)
			continue
		}
		end := len(lines)
		if i+1 < len(f.Docs) {
			end = f.Docs[i+1].Line - 1
		}
		text := bytes.Join(lines[min(d.Line-1, len(lines)):min(end, len(lines))], []byte{'\n'})
		if t, ok := unrendered.InDocument(f.Name, text); ok {
			// One finding per file: the advice is the same for every
			// templated document in it.
			if len(out) == 0 {
				out = append(out, report(t, d.Line-1))
			}
			continue
		}
		kept = append(kept, d)
	}
	f.Docs = kept
	return out
}

// isPartial says why a webhook configuration document is a partial
// object (a kustomize patch) rather than something to apply, or "" when it
// is a complete object.
//
// The rule: a document is partial when a kustomization (in its folder or
// above) uses its file as a patch; or when it has the shape of a patch and
// the file says it is one. The shape: it names webhooks, none of them has a
// clientConfig, and each lacks sideEffects or admissionReviewVersions.
// Every webhook the API server accepts has a clientConfig (v1 and v1beta1)
// and, in v1, both other fields, so such a document cannot be applied as
// it is, only merged into one that has them. The shape alone does not
// tell a patch from a skeleton someone is writing (whose missing fields
// are real errors), so it counts only with a sign of kustomize: "patch" in
// the file name (kubebuilder's patch_manifests.yaml, *_patch.yaml), a
// `$patch:` directive, or a kustomization file in the same folder.
func isPartial(f *manifest.File, d *manifest.Document, patchFiles map[string]string) string {
	if d.Config == nil {
		return ""
	}
	if k, ok := patchFiles[abs(f.Name)]; ok {
		return "patch in " + k
	}
	if k, ok := kustomize.PatchedBy(f.Name); ok {
		return "patch in " + k
	}
	if len(d.Config.Webhooks) == 0 {
		return ""
	}
	for _, w := range d.Config.Webhooks {
		cc := w.ClientConfig
		if cc.URL != nil || cc.Service != nil || len(cc.CABundle) > 0 {
			return ""
		}
		if w.SideEffects != nil && len(w.AdmissionReviewVersions) > 0 {
			return ""
		}
	}
	switch {
	case strings.Contains(strings.ToLower(filepath.Base(f.Name)), "patch"):
		return "a patch: no webhook has a clientConfig"
	case bytes.Contains(f.Data, []byte("$patch:")):
		return "a strategic-merge patch with $patch directives"
	}
	if _, ok := kustomize.FileIn(filepath.Dir(f.Name)); ok {
		return "a patch beside a kustomization: no webhook has a clientConfig"
	}
	return ""
}

// onlyStated keeps, for partial documents, the findings about what the
// document states: API-server and input findings on fields it writes.
// Missing required fields are the base's business, and practice rules
// judge combinations of fields the patch does not see; both are checked
// on the built kustomization.
func onlyStated(ds []diag.Diagnostic, files []*manifest.File, partial map[*manifest.Document]string) []diag.Diagnostic {
	if len(partial) == 0 {
		return ds
	}
	byFile := map[string][]*manifest.Document{}
	for _, f := range files {
		byFile[f.Name] = append(byFile[f.Name], f.Docs...)
	}
	for _, docs := range byFile {
		sort.Slice(docs, func(i, j int) bool { return docs[i].Line < docs[j].Line })
	}
	kept := ds[:0]
	for _, dg := range ds {
		d := docAt(byFile[dg.File], dg.Line)
		why, isPartial := partial[d]
		if !isPartial {
			kept = append(kept, dg)
			continue
		}
		r, known := rules.Lookup(dg.Rule)
		if known && r.Category == rules.Practice {
			continue
		}
		if dg.Path == "" || isWebhookPath(dg.Path) {
			continue
		}
		if _, exact, ok := d.Positions.Lookup(dg.Path, false); !ok || !exact {
			continue
		}
		if dg.Origin == "" {
			dg.Origin = "partial object (" + why + "): only the fields it states are checked"
		}
		kept = append(kept, dg)
	}
	return kept
}

func docAt(docs []*manifest.Document, line int) *manifest.Document {
	var at *manifest.Document
	for _, d := range docs {
		if d.Line <= line {
			at = d
		}
	}
	return at
}

// isWebhookPath reports whether p names a whole webhook (webhooks[3]).
func isWebhookPath(p string) bool {
	rest, ok := strings.CutPrefix(p, "webhooks[")
	return ok && strings.HasSuffix(rest, "]") && !strings.ContainsAny(rest[:len(rest)-1], ".[]")
}

// supersededByPlaceholders drops findings that only restate a placeholder
// finding on the same field (a placeholder is no base64, no DNS label, no
// URL host): the placeholder finding says what is actually wrong.
func supersededByPlaceholders(ds []diag.Diagnostic) []diag.Diagnostic {
	type key struct{ file, object, path string }
	obj := func(o *diag.Object) string {
		if o == nil {
			return ""
		}
		return o.Kind + "/" + o.Namespace + "/" + o.Name
	}
	ph := map[key]bool{}
	tokens := map[string][]string{} // quoted placeholders per file and object
	for _, d := range ds {
		if d.Rule == rules.PlaceholderRule && d.Path != "" {
			ph[key{d.File, obj(d.Object), d.Path}] = true
			if _, rest, ok := strings.Cut(d.Message, "`"); ok {
				if tok, _, ok := strings.Cut(rest, "`"); ok {
					k := d.File + "\x00" + obj(d.Object)
					tokens[k] = append(tokens[k], tok)
				}
			}
		}
	}
	if len(ph) == 0 {
		return ds
	}
	kept := ds[:0]
	for _, d := range ds {
		if d.Rule != rules.PlaceholderRule && d.Path != "" {
			// On the placeholder's field or inside it (a placeholder where
			// a list of rules belongs makes every rule field "missing").
			covered := false
			for p := d.Path; p != "" && !covered; p = parentPath(p) {
				covered = ph[key{d.File, obj(d.Object), p}]
			}
			// Or quoting it (a label key placeholder reported on the map).
			for _, tok := range tokens[d.File+"\x00"+obj(d.Object)] {
				covered = covered || strings.Contains(d.Message, tok)
			}
			if covered {
				continue
			}
		}
		kept = append(kept, d)
	}
	return kept
}

func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}
