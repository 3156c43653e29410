package source

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/gitops"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// gitopsUnits finds the GitOps entries (Flux Kustomizations and
// HelmReleases, Argo CD Applications and ApplicationSets) among the run's
// files and the configured entry files, and makes a unit of each: built as
// the controller builds it, from the folder of this repository it names.
// An entry whose source is not this repository, or that names something
// missing, is a unit of notes only. The chart units are kept by folder,
// so that a file of a chart deployed by an entry is linted through it
// rather than with the chart's defaults.
func (d *discovery) gitopsUnits(req *request) []*unit {
	if d.so.NoGitOps {
		return nil
	}
	var files []string
	seen := map[string]bool{}
	for _, s := range req.sources {
		if a := absPath(s.Name); !s.Stdin && !seen[a] {
			seen[a] = true
			files = append(files, a)
		}
	}
	for _, f := range d.so.GitOpsFiles {
		if a := absPath(f); !seen[a] {
			seen[a] = true
			files = append(files, a)
		}
	}
	var entries []*gitops.Entry
	if ws := d.so.Workspace; ws != nil {
		entries = ws.entries(d, files)
	} else {
		entries = d.findEntries(files, nil)
	}
	var out []*unit
	for _, e := range entries {
		if req.fluxEntries == nil {
			req.fluxEntries = map[string]bool{}
		}
		req.fluxEntries[strings.TrimPrefix(e.Kind, "Flux ")+" "+e.Namespace+"/"+e.Name] = true
	}
	for _, e := range entries {
		if u := d.gitopsUnit(e); u != nil {
			out = append(out, u)
		}
	}
	return out
}

// findEntries reads the entries of files (absolute), by repository, with
// the HelmReleases a Flux Kustomization builds as it outputs them; in,
// when set, records what ApplicationSets' Git generators read.
func (d *discovery) findEntries(files []string, in *gitops.Inputs) []*gitops.Entry {
	// Only files that may hold an entry are kept in memory; ConfigMaps and
	// Secrets an entry reads are read again when one does.
	texts := make([][]byte, len(files))
	parallel.For(len(files), d.jobs, func(i int) {
		if data := readManifest(files[i]); gitops.MayHold(data) {
			texts[i] = data
		}
	})
	byRepo := map[string][]string{}
	kept := map[string][]byte{}
	for i, f := range files {
		if texts[i] != nil {
			kept[f] = texts[i]
		}
		root := d.repoRoot(filepath.Dir(f))
		byRepo[root] = append(byRepo[root], f)
	}
	if len(kept) == 0 {
		return nil
	}
	read := func(f string) []byte {
		if t, ok := kept[f]; ok {
			return t
		}
		return readManifest(f)
	}
	var out []*gitops.Entry
	for _, root := range slices.Sorted(mapsKeys(byRepo)) {
		o := gitops.Options{Repo: gitops.OpenRepository(root, d.so.RepoURLs), ChartCache: d.so.ChartCache, Inputs: in}
		out = append(out, d.builtReleases(gitops.Find(byRepo[root], read, o), byRepo[root], read, o)...)
	}
	return out
}

// builtReleases replaces the HelmReleases of files a Flux Kustomization
// builds with the HelmReleases as its build outputs them (patched,
// substituted), one per Kustomization that applies them: two clusters'
// overlays of one base are two releases. A build that fails leaves the
// file's HelmReleases as they are (the Kustomization's unit reports why).
func (d *discovery) builtReleases(entries []*gitops.Entry, files []string, read func(string) []byte, o gitops.Options) []*gitops.Entry {
	var built []*gitops.Entry
	replaced := map[string]bool{}
	for _, e := range entries {
		if e.Kind != "Flux Kustomization" || e.How != gitops.Kustomize || e.Dir == "" || (d.skip != nil && d.skip(e.Dir)) {
			continue
		}
		holds := false
		for f := range d.gitopsReads(e) {
			if f != e.At.File && gitops.HoldsRelease(read(f)) {
				holds = true
				break
			}
		}
		if !holds {
			continue
		}
		// What the build reads is recorded for the unit's cache entry.
		w := d.so.Cache.Begin()
		b, uses, err := buildGitops(&unit{kind: kustomizeUnit, dir: e.Dir, gitops: e, shown: display(e.Dir)})
		reads := w.Take()
		if err != nil {
			continue
		}
		if d.prebuilt == nil {
			d.prebuilt = map[*gitops.Entry]*prebuilt{}
		}
		d.prebuilt[e] = &prebuilt{b: b, uses: uses, reads: reads} // the unit lints this build
		var objs []gitops.Built
		for _, obj := range b.Objects {
			if obj.Kind != "HelmRelease" || !strings.HasPrefix(obj.APIVersion, "helm.toolkit.fluxcd.io/") || obj.Origin == "" {
				continue
			}
			replaced[obj.Origin] = true
			objs = append(objs, gitops.Built{YAML: obj.YAML, File: obj.Origin, Locate: func(path string, atKey bool) diag.Span {
				l := b.Locate(obj, path, atKey)
				return l.Start()
			}})
		}
		built = append(built, gitops.FindBuilt(e, objs, files, read, o)...)
	}
	if len(built) == 0 {
		return entries
	}
	entries = slices.DeleteFunc(entries, func(e *gitops.Entry) bool { return e.Kind == "Flux HelmRelease" && replaced[e.At.File] })
	return append(entries, built...)
}

// readManifest reads a YAML file that may hold entries, ConfigMaps or
// Secrets; nil for anything else. Only regular files are opened: a named
// pipe among the linted files would block (the linter reports it).
func readManifest(f string) []byte {
	ext := strings.ToLower(filepath.Ext(f))
	if ext != ".yaml" && ext != ".yml" {
		return nil
	}
	if data, ok := overlay.Get(f); ok { // an editor's unsaved buffer
		return data
	}
	fi, err := overlay.Stat(f)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > manifest.MaxFileSize {
		return nil
	}
	data, _ := overlay.ReadDiskFile(f)
	return data
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// gitopsUnit makes the unit of one entry.
func (d *discovery) gitopsUnit(e *gitops.Entry) *unit {
	u := &unit{gitops: e}
	for _, p := range e.Problems {
		u.notes = append(u.notes, gitopsNote(p.At, p.Msg, p.Warning))
	}
	if e.Remote != "" {
		what := "its manifests are not checked; vendor them into this repository, or pass --repo-url if it is this one"
		if e.How == gitops.Helm {
			what = "its webhooks are not checked; vendor it or pass --chart-cache DIR"
		}
		// Info: a fact about what the tool read, not about the tree. The
		// report raises it to a warning when the run checked nothing else,
		// so that such a run does not pass silently (raiseUnchecked).
		n := gitopsNote(e.RemoteAt, fmt.Sprintf("%s: %s is not available offline; %s", e.Label(), e.Remote, what), false)
		noun := "folder"
		if strings.HasPrefix(e.Remote, "chart ") {
			noun = "chart"
		}
		n.Unchecked = &diag.Unchecked{Noun: noun, Name: e.RemoteName, Source: e.Remote + ", named by " + e.Label()}
		u.notes = append(u.notes, n)
	}
	if e.Dir == "" || (d.skip != nil && d.skip(e.Dir)) {
		if len(u.notes) == 0 {
			return nil
		}
		u.kind, u.dir = noteUnit, filepath.Dir(e.At.File)
		return u
	}
	switch e.How {
	case gitops.Kustomize:
		u.kind, u.dir, u.reads, u.prebuilt = kustomizeUnit, e.Dir, d.gitopsReads(e), d.prebuilt[e]
		delete(d.prebuilt, e)
	case gitops.Helm:
		c := Chart{Dir: e.Dir, ValuesFiles: e.Chart.ValuesFiles, Set: e.Chart.Set, ReleaseName: e.Chart.ReleaseName, Namespace: e.Chart.Namespace, GivenBy: e.Label()}
		for _, v := range e.Chart.Values {
			c.Values = append(c.Values, v.Map)
		}
		cu := d.newChartUnit(e.Dir, c)
		u.kind, u.dir, u.chart, u.readDirs = chartUnit, e.Dir, cu.chart, cu.readDirs
		if d.gitopsCharts == nil {
			d.gitopsCharts = map[string][]*unit{}
		}
		d.gitopsCharts[e.Dir] = append(d.gitopsCharts[e.Dir], u)
	default:
		r := e.Kustomization.Recurse
		u.kind, u.dir, u.recursive, u.files = folderUnit, e.Dir, r, d.looseFiles(e.Dir, r)
	}
	return u
}

func gitopsNote(at diag.Span, msg string, warning bool) diag.Diagnostic {
	sev := diag.Info
	if warning {
		sev = rules.MustLookup(rules.GitOpsSourceRule).Severity
	}
	return diag.Diagnostic{
		Span:     diag.Point(at.File, max(at.Line, 1), max(at.Column, 1)),
		Severity: sev, Rule: rules.GitOpsSourceRule, Message: msg,
	}
}

// gitopsReads are the files a kustomize entry's build reads: those of its
// folder's kustomization and what it includes, or, for the kustomization
// Flux generates, its manifests and the kustomizations of its subfolders;
// with the components it adds, and the entry's own file, where findings
// on what it sets are reported.
func (d *discovery) gitopsReads(e *gitops.Entry) map[string]bool {
	if ws := d.so.Workspace; ws != nil {
		return ws.readsOf(e, func() map[string]bool { return d.entryReads(e) })
	}
	return d.entryReads(e)
}

func (d *discovery) entryReads(e *gitops.Entry) map[string]bool {
	reads := map[string]bool{e.At.File: true}
	addDir := func(dir string) {
		if d.refs(dir) == nil {
			return
		}
		for f := range d.kustScope(dir).unit(dir).reads {
			reads[f] = true
		}
	}
	if _, ok := kustomize.FileIn(e.Dir); ok {
		addDir(e.Dir)
	} else {
		files, dirs := gitops.GeneratedReads(e.Dir)
		for _, f := range files {
			reads[f] = true
		}
		for _, sub := range dirs {
			addDir(sub)
		}
	}
	for _, c := range e.Kustomization.Components {
		addDir(filepath.Join(e.Dir, filepath.FromSlash(c)))
	}
	return reads
}

// gitopsRoot is the root kustomization text a kustomize entry builds with.
func gitopsRoot(u *unit) (*kustomize.Root, error) {
	text, _, err := u.gitops.KustomizationText()
	if err != nil {
		return nil, err
	}
	file, ok := kustomize.FileIn(u.dir)
	if !ok {
		file = filepath.Join(u.dir, kustomize.FileNames[0])
	}
	return &kustomize.Root{File: file, Text: text, AnyFile: strings.HasPrefix(u.gitops.Kind, "Flux")}, nil
}

// applyGitops does the controller's steps after the build to each object
// (substitution, common metadata, a default namespace) and returns the
// variables each object read, by kind/namespace/name.
func applyGitops(e *gitops.Entry, b *kustomize.Build) (map[string][]gitops.Use, error) {
	uses := map[string][]gitops.Use{}
	for _, o := range b.Objects {
		a, err := e.Apply(o.Kind, o.Namespace, o.YAML)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s after substitution: %w", e.Label(), o.Kind, o.Name, err)
		}
		o.SetYAML(a.YAML)
		o.Namespace = a.Namespace
		if len(a.Uses) > 0 {
			uses[o.Kind+"/"+o.Namespace+"/"+o.Name] = a.Uses
		}
	}
	return uses, nil
}

// relocateGitops moves a kustomize entry's findings to where the fix goes:
// a value Flux substituted to the variable's substitute entry (or its
// ConfigMap key), with the manifest line as related location; a namespace
// the entry set to its targetNamespace; what the root kustomization text
// wrote (the entry's patches, a generated object) to the entry. Secret
// values are blanked out of messages.
func relocateGitops(u *unit, b *kustomize.Build, uses map[string][]gitops.Use, ds []diag.Diagnostic) {
	e := u.gitops
	lines := map[string][][]byte{}
	lineOf := func(file string, n int) string {
		ls, ok := lines[file]
		if !ok {
			data, _ := overlay.ReadFile(file)
			ls = bytes.Split(data, []byte{'\n'})
			lines[file] = ls
		}
		if n < 1 || n > len(ls) {
			return ""
		}
		return string(ls[n-1])
	}
	for i := range ds {
		d := &ds[i]
		if d.File == b.File {
			at := e.At
			d.Span = diag.Point(at.File, at.Line, at.Column)
			d.Origin = e.Label() + " (" + gitopsBuildWord(u) + ")"
			continue
		}
		var objUses []gitops.Use
		if d.Object != nil {
			objUses = uses[d.Object.Kind+"/"+d.Object.Namespace+"/"+d.Object.Name]
		}
		text := lineOf(d.File, d.Line)
		moved := false
		for _, use := range objUses {
			v, set := e.Vars[use.Name]
			if !set || !strings.Contains(text, "${"+use.Name) {
				continue
			}
			moveToEntry(d, v.At, fmt.Sprintf("the manifest reads ${%s} here", use.Name))
			d.Origin = fmt.Sprintf("%s (postBuild: ${%s} from %s)", e.Label(), use.Name, v.From)
			moved = true
			break
		}
		k := e.Kustomization
		if !moved && k.Namespace != "" && k.NamespaceAt.File != "" && strings.HasSuffix(d.Path, "namespace") && !strings.Contains(text, k.Namespace) {
			moveToEntry(d, k.NamespaceAt, "the object is written here")
			d.Origin = fmt.Sprintf("%s (targetNamespace %s)", e.Label(), k.Namespace)
		}
		for _, v := range e.Vars {
			if v.Secret && len(v.Value) >= 3 {
				d.Message = strings.ReplaceAll(d.Message, v.Value, "(a Secret's value)")
			}
		}
	}
}

func gitopsBuildWord(u *unit) string {
	if _, ok := kustomize.FileIn(u.dir); ok {
		return "the kustomization it builds " + display(u.dir) + " with"
	}
	return "the kustomization it generates for " + display(u.dir)
}

// coveredByGitops reports whether a GitOps entry builds the kustomization
// of u: it is then not linted again as a root of its own.
func coveredByGitops(u *unit, gus []*unit) bool {
	for _, g := range gus {
		if g.kind == kustomizeUnit && g.dir == u.dir {
			return true
		}
	}
	return false
}

// moveToEntryValue moves a finding on a template line that reads a chart
// value the unit's GitOps entry sets to that key of the entry (a
// HelmRelease's values), with the template line as related location. It
// returns what the origin adds.
func moveToEntryValue(u *unit, d *diag.Diagnostic, source []byte, line int) (string, bool) {
	if u.gitops == nil {
		return "", false
	}
	key, ok := helm.ValuesKeyAt(source, line)
	if !ok {
		return "", false
	}
	at, from, ok := u.gitops.Chart.ValueAt(key)
	if !ok {
		// A values file the entry names (Argo CD's valueFiles, `$ref/…`
		// of another source) is the deployment's setting too.
		vs, found := helm.ValuesAt(u.dir, u.chart.ValuesFiles, source, line)
		if !found || !slices.Contains(u.gitops.Chart.ValuesFiles, vs.File) {
			return "", false
		}
		at, from = vs.Start(), "values file "+display(vs.File)+" of "+u.gitops.Label()
	}
	moveToEntry(d, at, "the template reads chart value "+key+" here")
	return fmt.Sprintf(" (chart value %s, set by %s)", key, from), true
}

// moveToEntry reports a finding at the place of a GitOps entry that set
// what it is about, keeping where it was as related location, said why.
func moveToEntry(d *diag.Diagnostic, to diag.Span, why string) {
	d.Related = append(d.Related, diag.Related{
		Span: d.Span, Message: why,
	})
	d.Span = diag.Point(to.File, to.Line, to.Column)
}

// onEntry moves the findings on a kustomization file that is not on disk
// (the one Flux generates) to the entry, naming it: that is where the
// build the entry asked for is written.
func onEntry(e *gitops.Entry, ds []diag.Diagnostic) {
	for i := range ds {
		d := &ds[i]
		if exists(d.File) {
			continue
		}
		d.Span = diag.Point(e.At.File, e.At.Line, e.At.Column)
		d.Message = e.Label() + ": " + d.Message
	}
}

// prebuilt is a kustomize build with the postBuild variables each object
// read (applyGitops), and what the build read, for the cache.
type prebuilt struct {
	b     *kustomize.Build
	uses  map[string][]gitops.Use
	reads cache.Reads
}
