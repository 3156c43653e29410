// Package source lints manifests as people keep them, not only as complete
// YAML files: a folder with a kustomization is built with kustomize and
// linted as built, a Helm chart is rendered and linted as rendered, and
// findings on the output are reported at the file and line that wrote the
// field (a patch, a resource file, a template). Files that are partial
// objects (kustomize patches) are checked only for what they state, and
// unrendered templates get one clear finding instead of syntax errors.
//
// It sits between the CLI and the lint engine: Lint takes the command
// line's paths and lints each deployment unit they hold.
package source

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/internal/unrendered"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// Options are the source-specific settings of a run.
type Options struct {
	// Charts are chart folders to render and lint (--helm), in addition to
	// the charts that hold linted files.
	Charts []string
	// ChartConfigs say how to render particular charts (the configuration
	// file's charts:); a chart with two entries is rendered twice.
	ChartConfigs []Chart
	// ValuesFiles, Set and SetString apply to every rendered chart, after
	// its own settings (--values, --set, --set-string).
	ValuesFiles, Set, SetString []string
	// NoKustomize lints kustomization folders file by file instead of
	// building them.
	NoKustomize bool
	// Folders say how loose manifests group into units (the
	// configuration's units.folders); by default the loose manifests of
	// one folder are one unit.
	Folders []FolderUnits
	// Deployed are the entries that are deployed (units.entries: root
	// kustomization and chart folders); when set, the other roots are
	// linted as bases, their findings that an overlay changes at info.
	Deployed []string
	// NoGitOps turns off the discovery of GitOps entries (Flux
	// Kustomizations and HelmReleases, Argo CD Applications) among the
	// files linted; GitOpsFiles are files of entries read in every run
	// (gitops.entries), whatever is linted.
	NoGitOps    bool
	GitOpsFiles []string
	// RepoURLs are URLs that name the repository linted, besides its Git
	// remotes (--repo-url): sources with one of them are read here.
	RepoURLs []string
	// ChartCache is a folder of unpacked charts standing in for the
	// remote charts GitOps entries name (--chart-cache).
	ChartCache string
	// Namespace is the release namespace of every rendered chart whose
	// own settings give none (--namespace).
	Namespace string
	// WholeUnits reports every finding of the units of the files named,
	// wherever located, as for an entry: the language server shows the
	// findings an edit moves to another file of the same build.
	WholeUnits bool
	// Cache, when set, keeps each unit's findings between runs (cache.go);
	// it must have been opened for this run's configuration.
	Cache *cache.Cache
}

// FolderUnits says how the loose manifests under Dir are applied.
type FolderUnits struct {
	Dir string
	// Recursive makes Dir and every folder below it one unit (kubectl
	// apply -R, Argo CD's directory.recurse, a Flux Kustomization over a
	// tree without kustomization files).
	Recursive bool
	// Split lints each file of Dir on its own (unrelated examples).
	Split bool
}

// Chart is how to render one chart: what `helm template` would be given.
type Chart struct {
	Dir                         string
	ValuesFiles, Set, SetString []string
	ReleaseName, Namespace      string
	// Values are merged after the values files, in order (a GitOps
	// entry's values).
	Values []map[string]any
	// GivenBy names what gave these settings, as findings name it
	// (`charts: in .webhooklint.yaml`, `--namespace`, a GitOps entry such
	// as `HelmRelease flux-system/podinfo`); see Context.
	GivenBy string
}

// Lint lints args as they are deployed, in five steps:
//
//  1. discover units: for every file named (or found in a named folder),
//     the units it belongs to: the chart whose folder holds it, else the
//     root kustomizations that use it, else the file alone;
//  2. load each unit: build the kustomization, render the chart, read the
//     file;
//  3. lint each unit on its own, so cross-object rules compare objects
//     that are installed together and nothing else;
//  4. locate each finding at the file and line that wrote the field (a
//     patch, a resource file, a template);
//  5. report the findings located in the files asked about, once each,
//     naming the unit when not every unit using that file has it.
//
// A file's findings are therefore the same whether it is linted with its
// folder, with every file of the repository, or alone.
func Lint(args []string, stdin io.Reader, stdinName string, lo lint.Options, so Options) (*lint.Result, error) {
	for _, c := range so.Charts {
		if !helm.IsChart(c) {
			return nil, fmt.Errorf("--helm %s: no Chart.yaml in that folder", c)
		}
	}
	if len(args) == 0 && len(so.Charts) == 0 {
		args = []string{"."}
	}
	// kustomize's first build sets it up; on a CPU the walk leaves idle,
	// that is done by the time a run that names one file builds its root.
	if lo.Workers() > 1 {
		go kustomize.Warm()
	}
	req, err := newRequest(append(slices.Clip(args), so.Charts...), stdinName, lo.Skip)
	if err != nil {
		return nil, err
	}
	units, unitsOf := discover(req, so, lo.Skip, lo.Workers())
	if len(so.ValuesFiles)+len(so.Set)+len(so.SetString) > 0 && !slices.ContainsFunc(units, func(u *unit) bool { return u.kind == chartUnit }) {
		return nil, fmt.Errorf("--values and --set need a chart: name it with --helm CHART, or lint a folder that has a Chart.yaml")
	}
	patches := kustomize.NewPatchIndex()
	origins := sharedOrigins(units)
	if so.Cache != nil {
		// What units share is read in the first one's window: each unit
		// reads its own, so that its cache entry holds all it depends on.
		patches, origins = nil, nil
		// Findings that depend on the day (a certificate's expiry) are
		// kept only as long as they hold.
		s := rules.DefaultSettings()
		if lo.Settings != nil {
			copied := *lo.Settings
			s = &copied
		}
		s.OnClock = overlay.Clock
		lo.Settings = s
	}
	results := lintUnits(units, stdin, lo, patches, origins, so.Cache)
	alone := aloneUnits(req, units, unitsOf, results)
	aloneResults := lintUnits(alone, stdin, lo, patches, nil, so.Cache)
	dropSyntaxRestated(results, aloneResults)
	orderFindings(req, units, results)
	units = append(units, alone...)
	results = append(results, aloneResults...)
	return reportUnits(req, units, results, &lo), nil
}

// aloneUnits are the files linted one by one because no build that reads
// them worked, as the build error says: a file asked about whose every
// kustomization failed, and the local files a failed entry reads (the
// base of an overlay named, when the base is what fails to build) that
// no unit that loaded reads.
func aloneUnits(req *request, units []*unit, unitsOf [][]*unit, results []*unitResult) []*unit {
	var alone []*unit
	named := map[string]bool{}
	for i, s := range req.sources {
		if !s.Stdin {
			named[absPath(s.Name)] = true
		}
		us := unitsOf[i]
		if len(us) == 0 || !slices.ContainsFunc(us, func(u *unit) bool { return u.kind == kustomizeUnit }) {
			continue
		}
		failed := true
		for _, u := range us {
			failed = failed && results[slices.Index(units, u)].failed
		}
		if failed {
			alone = append(alone, &unit{kind: fileUnit, file: s})
		}
	}
	read := newReaderIndex(units, results)
	for i, u := range units {
		if u.kind != kustomizeUnit || !u.entry || !results[i].failed {
			continue
		}
		for _, f := range slices.Sorted(maps.Keys(u.reads)) {
			if named[f] || len(read.of(f)) > 0 || !slices.Contains(manifest.Extensions, strings.ToLower(filepath.Ext(f))) ||
				(req.skip != nil && req.skip(f)) {
				continue
			}
			named[f] = true
			alone = append(alone, &unit{kind: fileUnit, file: manifest.Source{Name: f}, entry: true})
		}
	}
	return alone
}

// request is what the user asked about: the files to find units for, and
// the paths whose findings are reported, as the user spelled them.
type request struct {
	sources []manifest.Source
	paths   []askedPath
	skip    func(string) bool
	// exact indexes paths by abs (the first of each), dirs lists the
	// folders: pre-commit passes thousands of files, and display runs for
	// every finding.
	exact map[string]int
	dirs  []int
	// fluxEntries are the Flux entries found (`Kustomization ns/name`),
	// units or not (a folder ignored, say): what a dependsOn may name.
	fluxEntries map[string]bool
}

type askedPath struct {
	abs, typed string
	dir        bool
}

func newRequest(args []string, stdinName string, skip func(string) bool) (*request, error) {
	sources, err := manifest.Expand(args, stdinName)
	if err != nil {
		return nil, err
	}
	r := &request{skip: skip}
	for _, s := range sources {
		if s.Stdin || skip == nil || !skip(s.Name) {
			r.sources = append(r.sources, s)
		}
	}
	for _, a := range args {
		if a == "-" {
			continue
		}
		matches := []string{a}
		if strings.ContainsAny(a, "*?[") {
			matches, _ = manifest.Glob(a)
		}
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil {
				continue
			}
			r.paths = append(r.paths, askedPath{abs: absPath(m), typed: filepath.Clean(m), dir: fi.IsDir()})
		}
	}
	r.exact = map[string]int{}
	for i, p := range r.paths {
		if _, seen := r.exact[p.abs]; !seen {
			r.exact[p.abs] = i
		}
		if p.dir {
			r.dirs = append(r.dirs, i)
		}
	}
	return r, nil
}

// display returns the name under which a file (absolute) is reported, and
// whether it was asked about: as typed, or joined to the folder typed.
func (r *request) display(abs string) (string, bool) {
	// The longest path that holds abs wins: abs itself when it was asked
	// about, else the innermost folder.
	best, ok := r.exact[abs]
	if !ok {
		best = -1
		for _, i := range r.dirs {
			if p := r.paths[i]; within(abs, p.abs) && (best < 0 || len(p.abs) > len(r.paths[best].abs)) {
				best = i
			}
		}
	}
	if best < 0 {
		return "", false
	}
	p := r.paths[best]
	name := p.typed
	if p.dir {
		rel, err := filepath.Rel(p.abs, abs)
		if err != nil {
			return "", false
		}
		name = filepath.Join(p.typed, rel)
	}
	if r.skip != nil && r.skip(name) {
		return "", false
	}
	return name, true
}

// name is how messages show a file or folder (absolute): as the user
// typed it when it is below a path given, else relative to the working
// folder when below it.
func (r *request) name(abs string) string {
	if abs == "" {
		return ""
	}
	for _, p := range r.paths {
		if p.dir && within(abs, p.abs) {
			if rel, err := filepath.Rel(p.abs, abs); err == nil {
				return filepath.Join(p.typed, rel)
			}
		}
	}
	return display(abs)
}

// lazySources is the most files a run may name for its kustomization
// scopes to parse only what refers to them: pre-commit passes thousands,
// and then parsing every kustomization once is cheaper.
const lazySources = 32

// discover finds the units of every requested file, each once, in a
// stable order, and the units of each requested file. The entries the
// user named come first: a file their build reads belongs to them alone.
func discover(req *request, so Options, skip func(string) bool, jobs int) (units []*unit, unitsOf [][]*unit) {
	d := newDiscovery(so, skip, jobs)
	d.lazyKusts = len(req.dirs) == 0 && len(req.sources) <= lazySources
	byKey := map[string]*unit{}
	add := func(u *unit) *unit {
		if have := byKey[u.key()]; have != nil {
			return have
		}
		u.shown = display(u.dir)
		byKey[u.key()] = u
		units = append(units, u)
		return u
	}
	var named []*unit // named kustomizations, which claim the files they read
	gitopsUnits := d.gitopsUnits(req)
	for _, u := range gitopsUnits {
		u = add(u)
		if _, asked := req.display(u.gitops.At.File); asked {
			u.entry = true
		}
		if u.kind == kustomizeUnit {
			named = append(named, u)
		}
	}
	for _, u := range d.entries(req) {
		if u.kind == kustomizeUnit && coveredByGitops(u, gitopsUnits) {
			continue // built as the entry builds it
		}
		u = add(u)
		u.entry = true
		if u.kind == kustomizeUnit {
			named = append(named, u)
		}
	}
	unitsOf = make([][]*unit, len(req.sources))
	for i, s := range req.sources {
		var us []*unit
		if !s.Stdin {
			abs := absPath(s.Name)
			for _, u := range named {
				if u.reads[abs] {
					us = append(us, u)
				}
			}
		}
		if len(us) == 0 {
			us, _ = d.unitsOf(s)
		}
		for _, u := range us {
			unitsOf[i] = append(unitsOf[i], add(u))
			if so.WholeUnits {
				unitsOf[i][len(unitsOf[i])-1].entry = true
			}
		}
	}
	// A unit rooted in a folder the user named is an entry too: linting
	// config/ or the repository reports what each of its roots installs.
	for _, u := range units {
		for _, i := range req.dirs {
			if u.kind != fileUnit && within(u.dir, req.paths[i].abs) {
				u.entry = true
			}
		}
		// The editor server's buffers come as stdin named by their path:
		// judged by it too.
		if u.kind == fileUnit && u.file.Name != "" && u.file.Name != "-" {
			u.disabledBy = disabledFile(u.absFile())
		}
		switch {
		case u.gitops != nil:
			// A GitOps entry is deployed by its controller, whatever
			// units.entries or a commented-out reader says.
			u.deployed = Fact{Value: "deployed", Source: Given, By: u.gitops.Label()}
		case len(so.Deployed) > 0:
			if (u.kind == kustomizeUnit || u.kind == chartUnit) && !deployed(u.dir, so.Deployed) {
				u.base, u.baseBy = true, "not named in units.entries"
			} else {
				u.deployed = Fact{Value: "deployed", Source: Given, By: "units.entries in .webhooklint.yaml"}
			}
		case u.kind == kustomizeUnit && !u.base:
			if by := disabledReader(u.dir); by != "" {
				u.base, u.baseBy = true, by
			}
		}
	}
	slices.SortStableFunc(units, func(a, b *unit) int { return strings.Compare(a.key(), b.key()) })
	return units, unitsOf
}

func deployed(dir string, entries []string) bool {
	for _, e := range entries {
		if absPath(e) == dir {
			return true
		}
	}
	return false
}

// unitResult is what linting one unit leaves: located findings (files
// absolute, stdin by its name) and nothing of its objects.
type unitResult struct {
	diags []diag.Diagnostic
	// failed is set when the unit could not be loaded; diags say why.
	failed   bool
	base     bool
	configs  int
	policies int
	internal []*lint.InternalError
	stdin    []byte
	// chart is a rendered chart's name (Chart.yaml), the release name its
	// install docs usually give.
	chart string
	// applied is what a Flux entry's unit applies (order.go).
	applied *applied
}

// lintUnits loads, lints and locates every unit, several at a time, or
// takes its findings from the cache when it has them. Each unit's objects
// are dropped once its findings are located. Without patches, each unit
// reads the kustomizations above its files itself.
func lintUnits(units []*unit, stdin io.Reader, lo lint.Options, patches *kustomize.PatchIndex, origins *kustomize.Origins, c *cache.Cache) []*unitResult {
	inner := lo
	if len(units) > 1 {
		inner.Jobs = 1 // units are the parallel work
	}
	out := make([]*unitResult, len(units))
	parallel.For(len(units), lo.Workers(), func(i int) {
		out[i] = cachedLint(c, units[i], func() *unitResult {
			patches := patches
			if patches == nil {
				patches = kustomize.NewPatchIndex()
			}
			var r *unitResult
			switch u := units[i]; u.kind {
			case kustomizeUnit:
				r = lintKustomization(u, inner, origins)
			case chartUnit:
				r = lintChart(u, inner)
			case folderUnit:
				r = lintFolder(u, inner, patches)
			case noteUnit:
				r = &unitResult{}
			default:
				r = lintFile(u.file, stdin, inner, patches) // Read takes stdin only for "-"
			}
			if by := units[i].disabledBy; by != "" {
				notApplied(r.diags, by)
			}
			r.diags = append(r.diags, units[i].notes...)
			return r
		})
	})
	return out
}

// sharedOrigins shares between kustomize units the files several of them
// read, so that a base under many overlays is parsed for positions once.
func sharedOrigins(units []*unit) *kustomize.Origins {
	readers := map[string]int{}
	for _, u := range units {
		if u.kind == kustomizeUnit {
			for abs := range u.reads {
				readers[abs]++
			}
		}
	}
	return kustomize.NewOrigins(readers)
}

// reportUnits keeps the findings located in requested files, adds the
// notes of base units, and merges units: a finding every unit using its
// file has is reported once; one that only some have names them.
func reportUnits(req *request, units []*unit, results []*unitResult, lo *lint.Options) *lint.Result {
	out := &lint.Result{}
	type located struct {
		d     diag.Diagnostic
		abs   string
		units []int
	}
	n := 0
	for _, r := range results {
		n += len(r.diags)
	}
	// One unit (a folder, a build) needs no merging: its findings are
	// de-duplicated by sorting, which keeps the first of equal ones as the
	// map below does, without a hundred thousand map entries and copies
	// (the findings are even kept in the unit's own slice).
	single := len(results) == 1
	var kept []diag.Diagnostic
	var found []*located
	var byID map[findingID]*located
	if !single {
		found, byID = make([]*located, 0, n), make(map[findingID]*located, n)
	}
	stdinData := map[string][]byte{}
	for i, r := range results {
		out.Configs += r.configs
		out.Policies += r.policies
		out.Internal = append(out.Internal, r.internal...)
		if r.stdin != nil {
			stdinData[units[i].file.Name] = r.stdin
		}
		ds := r.diags
		if r.base {
			ds = append(ds, baseNotes(ds, units[i].baseBy)...)
		}
		stdinUnit := units[i].kind == fileUnit && units[i].file.Stdin
		if single {
			kept = ds[:0] // in place: each finding is written where it was or before
		}
		for _, d := range ds {
			abs := d.File
			if !stdinUnit {
				abs = absPath(d.File)
			}
			switch {
			case stdinUnit:
			case r.failed:
				d.File = req.name(abs)
			default:
				name, ok := req.display(abs)
				if !ok && units[i].entry && (req.skip == nil || !req.skip(abs)) {
					// An entry's build reports all it installs, bases included.
					name, ok = req.name(abs), true
				}
				if !ok {
					continue
				}
				d.File = name
			}
			if len(d.Related) > 0 && !stdinUnit {
				d.Related = slices.Clone(d.Related)
				for j := range d.Related {
					r := &d.Related[j]
					ra := absPath(r.File)
					if name, ok := req.display(ra); ok {
						r.File = name
					} else {
						r.File = req.name(ra)
					}
				}
			}
			if len(d.Fixes) > 0 && !stdinUnit {
				d.Fixes = displayFixes(d.Fixes, req)
			}
			if single {
				kept = append(kept, d)
				continue
			}
			id := identity(d)
			if l := byID[id]; l != nil {
				if !slices.Contains(l.units, i) {
					l.units = append(l.units, i)
				}
				continue
			}
			l := &located{d: d, abs: abs, units: []int{i}}
			byID[id] = l
			found = append(found, l)
		}
		r.diags = nil // copied: drop the unit's own slice
	}
	if single {
		// diag.Compare orders by exactly what identity holds.
		slices.SortStableFunc(kept, diag.Compare)
		out.Diagnostics = slices.CompactFunc(kept, func(a, b diag.Diagnostic) bool { return diag.Compare(a, b) == 0 })
	}
	readers := newReaderIndex(units, results)
	for _, l := range found {
		d := l.d
		using := readers.of(l.abs)
		// A GitOps entry's note and ordering finding name the entry already.
		if len(using) > 1 && !containsAll(l.units, using) && d.Rule != rules.GitOpsSourceRule && d.Rule != rules.GitOpsOrderRule {
			var labels []string
			for _, i := range l.units {
				labels = append(labels, units[i].label())
			}
			slices.Sort(labels)
			d.Units = labels
		}
		out.Diagnostics = append(out.Diagnostics, d)
	}
	// Selection and severity overrides once more, for the findings made
	// here rather than by the engine (the engine's pass unchanged: it
	// applied them already, and kept demoted base findings at info).
	out.Diagnostics = diag.Normalize(supersededByPlaceholders(lo.Selection().Select(out.Diagnostics)))
	// Last, when every finding is in the file it is read in.
	out.Diagnostics = rules.OncePerFile(out.Diagnostics)

	// The report counts the requested files. Snippets come from stdin's
	// text, kept here, and from the other files, which the text report
	// reads again from disk one at a time (report.FileSource).
	listed := map[string]bool{}
	addFile := func(name string, stdin bool) {
		if listed[name] {
			return
		}
		listed[name] = true
		f := &manifest.File{Name: name}
		if stdin {
			f.Data = stdinData[name]
		}
		out.Files = append(out.Files, f)
	}
	for _, s := range req.sources {
		addFile(s.Name, s.Stdin)
	}
	for _, d := range out.Diagnostics {
		addFile(d.File, stdinData[d.File] != nil)
	}
	return out
}

// readerIndex answers which units (that loaded) read a file, in units'
// order. Loose files and kustomizations name the files they read, so they
// are looked up by path; only charts, which read whole folders, are asked
// one by one. Asking every unit for every file was quadratic in a folder
// of loose files.
type readerIndex struct {
	byFile map[string][]int
	charts []int
	units  []*unit
	cache  map[string][]int
}

func newReaderIndex(units []*unit, results []*unitResult) *readerIndex {
	x := &readerIndex{byFile: map[string][]int{}, units: units, cache: map[string][]int{}}
	for i, u := range units {
		if results[i].failed {
			continue
		}
		switch {
		case u.kind == kustomizeUnit:
			for abs := range u.reads {
				x.byFile[abs] = append(x.byFile[abs], i)
			}
		case u.kind == chartUnit:
			x.charts = append(x.charts, i)
		case u.kind == folderUnit:
			for _, f := range u.files {
				x.byFile[f.Name] = append(x.byFile[f.Name], i)
			}
		case u.kind == noteUnit:
			x.byFile[u.gitops.At.File] = append(x.byFile[u.gitops.At.File], i)
		case !u.file.Stdin:
			abs := u.absFile()
			x.byFile[abs] = append(x.byFile[abs], i)
		}
	}
	return x
}

func (x *readerIndex) of(abs string) []int {
	if using, ok := x.cache[abs]; ok {
		return using
	}
	using := slices.Clone(x.byFile[abs])
	for _, i := range x.charts {
		if x.units[i].covers(abs) {
			using = append(using, i)
		}
	}
	slices.Sort(using)
	x.cache[abs] = using
	return using
}

// findingID is what makes two findings the same for the reader.
type findingID struct {
	file, rule, path, message string
	line, column              int
	object                    diag.Object
	hasObject                 bool
	severity                  diag.Severity
}

func identity(d diag.Diagnostic) findingID {
	id := findingID{file: d.File, rule: d.Rule, path: d.Path, message: d.Message, line: d.Line, column: d.Column, severity: d.Severity}
	if d.Object != nil {
		id.object, id.hasObject = *d.Object, true
	}
	return id
}

func containsAll(have, want []int) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// baseNotes adds, for each file with findings demoted because the unit is
// a kustomize base without its overlay, one note saying so and why it is
// a base (by).
func baseNotes(ds []diag.Diagnostic, by string) []diag.Diagnostic {
	first := map[string]diag.Diagnostic{}
	count := map[string]int{}
	for _, d := range ds {
		if !d.DependsOnOverlay {
			continue
		}
		count[d.File]++
		if f, ok := first[d.File]; !ok || diag.Compare(d, f) < 0 {
			first[d.File] = d
		}
	}
	var out []diag.Diagnostic
	for _, file := range slices.Sorted(maps.Keys(first)) {
		f := first[file]
		what := "1 finding"
		if count[file] > 1 {
			what = fmt.Sprintf("%d findings", count[file])
		}
		out = append(out, diag.Diagnostic{
			File: f.File, Line: f.Line, Column: f.Column, EndLine: f.EndLine, EndColumn: f.EndColumn,
			Severity: rules.MustLookup(rules.KustomizeBaseRule).Severity, Rule: rules.KustomizeBaseRule,
			Message: "kustomize base (" + by + "): " + what + " at info; lint its overlay, or name it in units.entries",
			Object:  f.Object, Origin: f.Origin,
		})
	}
	return out
}

// lintFile lints a loose file on its own: unrendered templates are
// recognized, and partial objects (kustomize patches) are checked only for
// what they state.
func lintFile(s manifest.Source, stdin io.Reader, lo lint.Options, patches *kustomize.PatchIndex) *unitResult {
	l := loadLoose(s, stdin, lo.Workers(), patches, true)
	r := lintLoose([]*looseFile{l}, false, lo)
	if s.Stdin {
		r.stdin = l.data // the report shows snippets from it
	}
	return r
}

// lintFolder lints the loose manifests of a folder together, as kubectl
// applies them: a webhook in one file and its Service and Deployment in
// others are one installation. A folder with no object the rules judge (a
// GitOps folder of Deployments and Services) is parsed alone, keeping no
// cross-object data nothing would read.
func lintFolder(u *unit, lo lint.Options, patches *kustomize.PatchIndex) *unitResult {
	inner := lo
	if len(u.files) > 1 {
		inner.Jobs = 1 // the files are the parallel work
	}
	load := func(alone bool) []*looseFile {
		loaded := make([]*looseFile, len(u.files))
		parallel.For(len(u.files), lo.Workers(), func(i int) {
			loaded[i] = loadLoose(u.files[i], nil, inner.Workers(), patches, alone)
		})
		return loaded
	}
	alone := !mayHoldJudged(u.files, lo.Workers())
	loaded := load(alone)
	if alone && slices.ContainsFunc(loaded, func(l *looseFile) bool { return l.file.HasJudged() }) {
		loaded = load(false) // the guess missed one: every file's objects are needed
	}
	r := lintLoose(loaded, u.base, lo)
	return r
}

// mayHoldJudged reads the files' texts for the words of a judged kind
// (manifest.MayHoldJudged), stopping at the first that has them.
func mayHoldJudged(files []manifest.Source, jobs int) bool {
	var found atomic.Bool
	parallel.For(len(files), jobs, func(i int) {
		if found.Load() {
			return
		}
		// An unreadable file holds no object; loading it says why.
		if data, err := manifest.Read(files[i], nil); err == nil && manifest.MayHoldJudged(data) {
			found.Store(true)
		}
	})
	return found.Load()
}

// looseFile is a loose manifest file as read: its documents, the findings
// on unrendered templates that replace some of them, and which documents
// are partial objects (and why).
type looseFile struct {
	file    *manifest.File
	extra   []diag.Diagnostic
	partial map[*manifest.Document]string
	// data is stdin's text, which the report cannot read again; a file's
	// text is dropped once parsed, so a folder unit of thousands of files
	// does not hold them all until its rules have run.
	data []byte
}

// loadLoose reads and parses a loose file. With alone, its unit is
// thought to hold no judged object (manifest.Options.Alone).
func loadLoose(s manifest.Source, stdin io.Reader, jobs int, patches *kustomize.PatchIndex, alone bool) *looseFile {
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
		f = manifest.ParseWith(name, data, manifest.Options{Jobs: jobs, Alone: alone, OnDisk: !s.Stdin})
	}
	l := &looseFile{file: f, extra: recogniseTemplates(f), partial: map[*manifest.Document]string{}}
	if s.Stdin {
		l.data = data
	}
	// Asked once per file, not per document: it walks up the folders.
	patchedBy := sync.OnceValues(func() (string, bool) { return patches.PatchedBy(f.Name) })
	for _, d := range f.Docs {
		if why := isPartial(f, d, patchedBy); why != "" {
			l.partial[d] = why
		}
	}
	// The rules read the decoded documents only; what they point inside
	// keeps its own text.
	f.Data = nil
	return l
}

// lintLoose lints loose files as one unit; base says it is a kustomize
// base linted without the overlay that deploys it.
func lintLoose(loaded []*looseFile, base bool, lo lint.Options) *unitResult {
	files := make([]*manifest.File, len(loaded))
	partial := map[*manifest.Document]string{}
	var extra []diag.Diagnostic
	for i, l := range loaded {
		files[i] = l.file
		maps.Copy(partial, l.partial)
		extra = append(extra, l.extra...)
	}
	// onlyStated reads a partial document's positions after the rules.
	located := func(d *manifest.Document) bool { _, isPartial := partial[d]; return !isPartial }
	res := lint.LintUnit(lint.Unit{Files: files, Base: base, Located: located}, lo)
	return &unitResult{
		diags: append(onlyStated(res.Diagnostics, files, partial), extra...),
		base:  base, configs: res.Configs, policies: res.Policies, internal: res.Internal,
	}
}

func skipDir(name string) bool {
	return (strings.HasPrefix(name, ".") && name != "." && name != "..") || name == "vendor" || name == "node_modules"
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}

// recogniseTemplates replaces what the loader made of an unrendered
// template with one helm-template finding: a file under a chart's
// templates/ that holds actions is a template as a whole; elsewhere each
// document is judged on its own, and is a template when a template action
// stands where YAML expects a node (unrendered.Documents), or when it is a
// webhook configuration holding Go template actions. The documents and
// findings of those documents are dropped; every other document of the
// file, and its findings (syntax errors included), stay.
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
	if len(f.Data) > manifest.MaxFileSize || (!bytes.Contains(f.Data, []byte("{{")) && !bytes.Contains(f.Data, []byte("${"))) {
		return nil // the size finding stands; nothing to judge
	}
	if _, underChart := unrendered.UnderChart(f.Name); underChart {
		if t, ok := unrendered.InFile(f.Name, f.Data); ok {
			// The whole file is a template: nothing in it is final.
			f.Docs = nil
			f.Diagnostics = nil
			return []diag.Diagnostic{report(t, 0)}
		}
	}
	lines := bytes.Split(f.Data, []byte{'\n'})
	var out []diag.Diagnostic
	var templated [][2]int
	for _, c := range unrendered.Documents(f.Data) {
		t, ok := unrendered.Template{}, false
		if c.Action != "" {
			t, ok = unrendered.Describe(f.Name, f.Data, c), true
			if unrendered.IsBlockPlaceholder(c.Action) && !syntaxErrorIn(f, c.FirstLine, c.LastLine) {
				ok = false
			}
		} else {
			text := bytes.Join(lines[min(c.FirstLine-1, len(lines)):min(c.LastLine, len(lines))], []byte{'\n'})
			for _, d := range f.Docs {
				if d.Config != nil && d.Line >= c.FirstLine && d.Line <= c.LastLine {
					if t, ok = unrendered.InDocument(f.Name, text); ok {
						t.Line += c.FirstLine - 1
					}
					break
				}
			}
		}
		if !ok {
			continue
		}
		templated = append(templated, [2]int{c.FirstLine, c.LastLine})
		if len(out) == 0 {
			// One finding per file: the advice is the same for every
			// templated document in it.
			out = append(out, report(t, 0))
		}
	}
	if len(templated) == 0 {
		return nil
	}
	in := func(line int) bool {
		for _, r := range templated {
			if line >= r[0] && line <= r[1] {
				return true
			}
		}
		return false
	}
	f.Docs = slices.DeleteFunc(f.Docs, func(d *manifest.Document) bool { return in(d.Line) })
	f.Diagnostics = slices.DeleteFunc(f.Diagnostics, func(d diag.Diagnostic) bool { return in(d.Line) })
	return out
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
