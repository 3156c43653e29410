package source

import (
	"bytes"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/intern"
	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/internal/unrendered"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// looseFile is a loose manifest file as read: its documents, the findings
// on unrendered templates that replace some of them, and which documents
// are partial objects (and why).
type looseFile struct {
	file    *manifest.File
	extra   []diag.Diagnostic
	partial map[*manifest.Document]string
	// writes is what the file's unrendered templates write, as far as
	// their text tells: it decides how loud their finding is.
	writes templateWrites
	// data is stdin's text, which the report cannot read again; a file's
	// text is dropped once parsed, so a folder unit of thousands of files
	// does not hold them all until its rules have run.
	data []byte
}

// loadLoose reads and parses a loose file. With alone, its unit is
// thought to hold no judged object (manifest.Options.Alone); strs, when
// set, is shared by the files of its unit (manifest.Options.Strings).
func loadLoose(s manifest.Source, stdin io.Reader, jobs int, patches *kustomize.PatchIndex, alone bool, strs *intern.Table) *looseFile {
	data, err := manifest.Read(s, stdin)
	name := s.Name
	if !s.Stdin {
		name = absPath(s.Name)
	}
	var f *manifest.File
	if err != nil {
		f = manifest.Unreadable(name, err) // one finding on that path
	} else {
		// A file's text is read again if a finding points inside a string.
		f = manifest.ParseWith(name, data, manifest.Options{Jobs: jobs, Alone: alone, OnDisk: !s.Stdin, Strings: strs})
	}
	// partial stays nil for the common file with no patch: a folder unit
	// holds every file's looseFile until its rules have run.
	l := &looseFile{file: f}
	l.extra, l.writes = recogniseTemplates(f)
	if s.Stdin {
		l.data = data
	}
	// Asked once per file, not per document: it walks up the folders.
	patchedBy := sync.OnceValues(func() (string, bool) { return patches.PatchedBy(f.Name) })
	for _, d := range f.Docs {
		if why := isPartial(f, d, patchedBy); why != "" {
			if l.partial == nil {
				l.partial = map[*manifest.Document]string{}
			}
			l.partial[d] = why
		}
	}
	// The rules read the decoded documents only; what they point inside
	// keeps its own text.
	f.Data = nil
	return l
}

// lintLoose lints loose files as one unit, in the context in gives it:
// a kustomize base linted without the overlay that deploys it, files that
// are one install only by assumption, a unit given as applied as written
// (lint.Unit's Base, Loose and Applied).
func lintLoose(loaded []*looseFile, in lint.Unit, lo lint.Options) *unitResult {
	files := make([]*manifest.File, len(loaded))
	partial := map[*manifest.Document]string{}
	var extra []diag.Diagnostic
	for i, l := range loaded {
		files[i] = l.file
		maps.Copy(partial, l.partial)
	}
	calls := slices.ContainsFunc(files, callsBackends)
	for _, l := range loaded {
		if l.writes == writesOther || (l.writes == writesBackend && !calls) {
			// What was not linted is only context no webhook of the unit
			// reads: nothing the rules judge was left unchecked.
			for _, d := range l.extra {
				if d.Rule == rules.HelmTemplateRule && d.Severity == diag.Warning {
					d.Severity, d.Message = diag.Info, d.Message+"; no webhook or policy in it"
				}
				extra = append(extra, d)
			}
			continue
		}
		extra = append(extra, l.extra...)
	}
	// onlyStated reads a partial document's positions after the rules.
	located := func(d *manifest.Document) bool { _, isPartial := partial[d]; return !isPartial }
	in.Files, in.Located = files, located
	res := lint.LintUnit(in, lo)
	return &unitResult{
		diags: append(onlyStated(res.Diagnostics, files, partial), extra...),
		base:  in.Base, configs: res.Configs, policies: res.Policies, crds: res.CRDs, internal: res.Internal,
	}
}

// recogniseTemplates replaces what the loader made of an unrendered
// template with one helm-template finding: a file under a chart's
// templates/ that holds actions is a template as a whole; elsewhere each
// document is judged on its own, and is a template when a template action
// stands where YAML expects a node (unrendered.Documents), or when it is a
// webhook configuration holding Go template actions. The documents and
// findings of those documents are dropped; every other document of the
// file, and its findings (syntax errors included), stay.
func recogniseTemplates(f *manifest.File) ([]diag.Diagnostic, templateWrites) {
	if len(f.Data) > manifest.MaxFileSize || (!bytes.Contains(f.Data, []byte("{{")) && !bytes.Contains(f.Data, []byte("${"))) {
		return nil, writesJudged // the size finding stands; nothing to judge
	}
	if _, underChart := unrendered.UnderChart(f.Name); underChart {
		if t, ok := unrendered.InFile(f.Name, f.Data); ok {
			// The whole file is a template: nothing in it is final.
			f.Docs = nil
			f.Diagnostics = nil
			return []diag.Diagnostic{templateFinding(f.Name, t)}, writesJudged
		}
	}
	lines := bytes.Split(f.Data, []byte{'\n'})
	var out []diag.Diagnostic
	var templated [][2]int
	writes := writesOther
	for _, c := range unrendered.Documents(f.Data) {
		text := bytes.Join(lines[min(c.FirstLine-1, len(lines)):min(c.LastLine, len(lines))], []byte{'\n'})
		t, ok := templateIn(f, text, c)
		if !ok {
			continue
		}
		templated = append(templated, [2]int{c.FirstLine, c.LastLine})
		writes = max(writes, templateWritten(text))
		if len(out) == 0 {
			// One finding per file: the advice is the same for every
			// templated document in it.
			out = append(out, templateFinding(f.Name, t))
		}
	}
	if len(templated) == 0 {
		return nil, writesJudged
	}
	dropLines(f, templated)
	if fragment(f.Data) {
		// Not applied as it is: nothing a cluster receives was left
		// unchecked here.
		for i := range out {
			out[i].Severity, out[i].Message = diag.Info, fragmentMessage
		}
	}
	return out, writes
}

const fragmentMessage = "unrendered template fragment: its blocks open or close in another file; lint what a build joins it into"

// blockAction is an action that opens a block, or the end that closes one.
var blockAction = lazy.Regexp(`\{\{-?\s*(if|range|with|define|block|end)\b`)

// fragment reports whether a template's blocks do not balance, as in a
// header and a footer a make target joins around generated text
// (trust-manager's make/_shared/helm/crd.template.header.yaml, an open
// `if`, and crd.template.footer.yaml, its `end`): Go's template parser
// refuses the file alone, so no one renders or applies it as it is.
func fragment(data []byte) bool {
	open := 0
	for _, m := range blockAction().FindAllSubmatch(data, -1) {
		if string(m[1]) == "end" {
			open--
		} else {
			open++
		}
	}
	return open != 0
}

// templateIn judges one document of the file: a template when an action
// stands where YAML expects a node (unless it is a block placeholder the
// YAML still parses around), or when it is a webhook configuration
// holding Go template actions. text is the document's lines, which the
// caller also reads for what a template writes.
func templateIn(f *manifest.File, text []byte, c unrendered.Document) (unrendered.Template, bool) {
	if c.Action != "" {
		if unrendered.IsBlockPlaceholder(c.Action) && !syntaxErrorIn(f, c.FirstLine, c.LastLine) {
			return unrendered.Template{}, false
		}
		return unrendered.Describe(f.Name, f.Data, c), true
	}
	for _, d := range f.Docs {
		if d.Config != nil && d.Line >= c.FirstLine && d.Line <= c.LastLine {
			t, ok := unrendered.InDocument(f.Name, text)
			if ok {
				t.Line += c.FirstLine - 1
			}
			return t, ok
		}
	}
	return unrendered.Template{}, false
}

// templateFinding is the helm-template finding of a template, at its
// first action.
func templateFinding(file string, t unrendered.Template) diag.Diagnostic {
	return diag.Diagnostic{
		Span:     diag.LineSpan(file, t.Line, t.Column, t.Column+len([]rune(t.Action))),
		Severity: rules.MustLookup(rules.HelmTemplateRule).Severity,
		Rule:     rules.HelmTemplateRule, Message: t.Message(),
	}
}

// dropLines drops the documents and findings that start within the line
// ranges (first, last) of the templated documents.
func dropLines(f *manifest.File, ranges [][2]int) {
	in := func(line int) bool {
		for _, r := range ranges {
			if line >= r[0] && line <= r[1] {
				return true
			}
		}
		return false
	}
	f.Docs = slices.DeleteFunc(f.Docs, func(d *manifest.Document) bool { return in(d.Line) })
	f.Diagnostics = slices.DeleteFunc(f.Diagnostics, func(d diag.Diagnostic) bool { return in(d.Line) })
}

// templateWrites is what an unrendered template writes, as its text names
// it, from the quietest to the loudest.
type templateWrites int

const (
	// writesOther: only kinds the rules neither judge nor follow a
	// webhook to (a clusterctl template's Cluster and machines).
	writesOther templateWrites = iota
	// writesBackend: a Service or workload, which a webhook may call.
	writesBackend
	// writesJudged: a kind the rules judge, a kind a placeholder writes,
	// or a document whose kind the text does not show.
	writesJudged
)

// kindLine is a `kind:` line of a document (a reference's kind too: more
// kinds only make the template louder).
var kindLine = lazy.Regexp(`(?m)^[ \t-]*kind:[ \t]*["']?([^"'\s#]*)`)

// backendKinds are the kinds a webhook's service and its pods are.
var backendKinds = []string{"Service", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod"}

// templateWritten reads what a templated document writes from its text.
func templateWritten(text []byte) templateWrites {
	if manifest.MayHoldJudged(text) {
		return writesJudged
	}
	if noObject(text) {
		return writesOther
	}
	kinds := kindLine().FindAllSubmatch(text, -1)
	if len(kinds) == 0 {
		return writesJudged // a kind the template writes whole
	}
	w := writesOther
	for _, k := range kinds {
		kind := string(k[1])
		switch {
		case kind == "" || strings.ContainsAny(kind, "${}"):
			return writesJudged
		case slices.Contains(backendKinds, kind):
			w = writesBackend
		}
	}
	return w
}

// topKey is a key written at the start of a line: the top level of a
// document. topAction is an action there, with its first word.
var (
	topKey    = lazy.Regexp(`(?m)^([A-Za-z_][\w.-]*|"[^"\n]*"):`)
	topAction = lazy.Regexp(`(?m)^\{\{-?\s*([^\s}]*)(\s+"(?:\\[nt]|[ \t])*"\s*-?\}\})?`)
)

// objectKeys are the top-level keys every Kubernetes object's text has.
var objectKeys = []string{"apiVersion", "kind", "metadata"}

// controlWords begin the actions that write no key themselves.
var controlWords = []string{"if", "else", "end", "range", "with", "define", "/*", "-/*"}

// noObject reports whether a templated document is no Kubernetes object
// at all: it writes top-level keys, none of them apiVersion, kind or
// metadata, and no action at its top level could write them (an include,
// a toYaml, a value). An application's configuration a Go program embeds
// and renders (tempo-operator's internal/manifests/config) is such a text.
func noObject(text []byte) bool {
	keys := topKey().FindAllSubmatch(text, -1)
	if len(keys) == 0 {
		return false
	}
	for _, k := range keys {
		if slices.Contains(objectKeys, strings.Trim(string(k[1]), `"`)) {
			return false
		}
	}
	for _, a := range topAction().FindAllSubmatch(text, -1) {
		// {{ print "\n" }} writes a line break, no key.
		spaces := string(a[1]) == "print" && len(a[2]) > 0
		if !slices.Contains(controlWords, string(a[1])) && !spaces {
			return false
		}
	}
	return true
}

// callsBackends reports whether a file holds a webhook client: a webhook
// configuration or a CRD (whose conversion may call a webhook).
func callsBackends(f *manifest.File) bool {
	return slices.ContainsFunc(f.Docs, func(d *manifest.Document) bool { return d.Config != nil || d.CRD != nil })
}

// syntaxErrorIn reports whether the loader found the lines first..last of
// f not to be YAML.
func syntaxErrorIn(f *manifest.File, first, last int) bool {
	return slices.ContainsFunc(f.Diagnostics, func(d diag.Diagnostic) bool {
		return d.Rule == rules.YAMLSyntaxRule && d.Line >= first && d.Line <= last
	})
}

// isPartial says why a webhook configuration document of a loose file is a
// partial object (a kustomize patch) rather than something to apply, or ""
// when it is a complete object. (A patch that a kustomization uses is
// linted through the build, unless kustomize is off.)
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
func isPartial(f *manifest.File, d *manifest.Document, patchedBy func() (string, bool)) string {
	if d.Config == nil {
		return ""
	}
	if k, ok := patchedBy(); ok {
		return "patch in " + display(k)
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
		if dg.Path == "" || fieldpath.IsWebhook(dg.Path) {
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
