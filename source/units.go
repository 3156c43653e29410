package source

import (
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/gitops"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// unitKind says how a unit is loaded.
type unitKind int

const (
	kustomizeUnit unitKind = iota + 1 // a root kustomization, built
	chartUnit                         // a chart, rendered with its values
	folderUnit                        // the loose manifests of a folder, applied together
	fileUnit                          // a loose manifest file on its own (stdin, a split folder)
	noteUnit                          // a GitOps entry with nothing to lint here: its notes only
)

// A unit is what is installed together, and so what cross-object rules
// compare: the build of a root kustomization (one no other kustomization
// in the repository consumes), a chart rendered with its values, or the
// loose manifests of a folder (what `kubectl apply -f DIR`, an Argo CD
// directory application or Flux's generated kustomization installs).
type unit struct {
	kind unitKind
	// dir is the kustomization, chart or plain folder (absolute).
	dir string
	// files are a folder unit's manifests (absolute), sorted; recursive
	// says they were gathered from the folders below dir too.
	files     []manifest.Source
	recursive bool
	// entry is set on the units the user named (a kustomization or chart
	// folder, a folder holding them, a kustomization file, a chart's
	// values): every finding of theirs is reported, wherever it is located.
	entry bool
	// base is set on a unit linted as a base rather than as deployed: a
	// kustomization read by an entry that does not build offline, or a
	// root the configuration does not name as deployed (units.entries).
	// Findings that depend on an overlay are shown at info.
	base bool
	// baseBy says what makes it a base (context model: a fact of the
	// graph or the configuration, never of names), as its note says it.
	baseBy string
	// disabledBy says, for a loose file that a kustomization names only in
	// a commented-out entry, which one: the file is not applied, so its
	// findings are info and say why.
	disabledBy string
	// deployed says whether the unit is deployed, and who said so: given
	// when a GitOps entry installs it or units.entries names it; otherwise
	// a root is only assumed deployed (the zero Fact; context.go).
	deployed Fact
	// chart holds the render settings of a chart unit.
	chart Chart
	// file is the loose file.
	file manifest.Source
	// shown is the unit's folder as messages name it: relative to the
	// working folder (not to the paths typed, so that a finding reads the
	// same however the file was named).
	shown string
	// reads are the files (absolute) a kustomize unit is built from;
	// readDirs the folders whose every file a chart unit reads (the chart
	// and its file:// dependencies).
	reads    map[string]bool
	readDirs []string
	// cycle is set on a kustomization that includes itself through its
	// references: its folder, the folders the cycle goes through, and its
	// folder again. cycleAt is its entry that starts the cycle.
	cycle   []string
	cycleAt kustomize.Pos
	// gitops is the GitOps entry the unit is built as (a Flux
	// Kustomization, an Argo CD Application…), and notes what is said
	// about the entry itself (a source not available offline).
	gitops *gitops.Entry
	notes  []diag.Diagnostic
	// prebuilt is a GitOps entry's build made during discovery (to read
	// the HelmReleases it outputs), linted instead of building it again.
	prebuilt *prebuilt
	// fileAbs is file's absolute path, once computed (covers is asked for
	// every finding and unit: filepath.Abs each time was most of a run).
	fileAbs string
}

// key identifies a unit: the same chart rendered with other values is
// another unit.
func (u *unit) key() string {
	if u.gitops != nil {
		e := u.gitops
		by := ""
		if e.AppliedBy != nil { // one base's HelmRelease, built by two clusters' overlays
			by = e.AppliedBy.At.File
		}
		return fmt.Sprintf("g\x00%s\x00%s\x00%d\x00%s\x00%s", e.At.File, e.Label(), e.At.Line, u.dir, by)
	}
	switch u.kind {
	case kustomizeUnit:
		return "k\x00" + u.dir
	case chartUnit:
		c := u.chart
		return strings.Join([]string{"c", u.dir, strings.Join(c.ValuesFiles, ","), strings.Join(c.Set, ","),
			strings.Join(c.SetString, ","), c.ReleaseName, c.Namespace}, "\x00")
	case folderUnit:
		return "d\x00" + u.dir
	}
	return "f\x00" + u.file.Name
}

// label names the unit in findings that not every unit using a file shares.
func (u *unit) label() string {
	if u.gitops != nil {
		if by := u.gitops.AppliedBy; by != nil {
			// One base's HelmRelease, built by two clusters' overlays.
			return u.gitops.Label() + " (built by " + display(by.At.File) + ")"
		}
		return u.gitops.Label()
	}
	switch u.kind {
	case kustomizeUnit:
		return "kustomize build " + display(u.dir)
	case chartUnit:
		s := "helm template " + display(u.dir)
		for _, v := range u.chart.ValuesFiles {
			s += " --values " + display(v)
		}
		for _, v := range u.chart.Set {
			s += " --set " + v
		}
		for _, v := range u.chart.SetString {
			s += " --set-string " + v
		}
		if u.chart.ReleaseName != "" {
			s += " (release " + u.chart.ReleaseName + ")"
		}
		if u.chart.Namespace != "" {
			s += " --namespace " + u.chart.Namespace
		}
		return s
	case folderUnit:
		if u.recursive {
			return "kubectl apply -R -f " + display(u.dir)
		}
		return "kubectl apply -f " + display(u.dir)
	}
	return u.file.Name
}

// covers reports whether the unit reads the file (absolute path).
func (u *unit) covers(abs string) bool {
	switch u.kind {
	case kustomizeUnit:
		return u.reads[abs]
	case chartUnit:
		for _, d := range u.readDirs {
			if within(abs, d) {
				return true
			}
		}
		return false
	case noteUnit:
		return abs == u.gitops.At.File
	case folderUnit:
		_, found := slices.BinarySearchFunc(u.files, abs, func(s manifest.Source, abs string) int { return strings.Compare(s.Name, abs) })
		return found
	}
	if u.file.Stdin {
		return false
	}
	return u.absFile() == abs
}

// absFile is a file unit's file, absolute.
func (u *unit) absFile() string {
	if u.fileAbs == "" {
		u.fileAbs = absPath(u.file.Name)
	}
	return u.fileAbs
}

// discovery finds the units each file belongs to. It reads kustomization
// files and Chart.yaml files only; nothing is built. Everything it learns
// is cached for the run.
type discovery struct {
	so        Options
	jobs      int               // how many kustomization files are read at once
	skip      func(string) bool // the configuration's ignore globs
	folders   map[string]*unit  // plain-folder units by folder
	repoRoots map[string]string // folder → repository root
	kusts     map[string]*kustomize.Refs
	// walked is what scopes' walks found of each kustomization folder, so
	// that reading one does not look for its file (or read its text) again.
	walked map[string]kustFolder
	// lazyKusts: the run names a few files, so a kustomization scope
	// parses only what may refer to them (kustScope).
	lazyKusts  bool
	kustScopes map[string]*kustScope
	charts     map[string]*chartInfo
	chartScope map[string][]string // scope root → chart folders under it
	holders    map[string]string   // folder → chartHolding's answer ("": none)
	// gitopsCharts are the chart units of GitOps entries, by chart folder:
	// a chart an entry deploys is rendered as the entry renders it.
	gitopsCharts map[string][]*unit
	// prebuilt are the builds of Flux Kustomizations made for their
	// HelmReleases, until their units take them.
	prebuilt map[*gitops.Entry]*prebuilt
}

func newDiscovery(so Options, skip func(string) bool, jobs int) *discovery {
	return &discovery{
		so: so, skip: skip, jobs: jobs, folders: map[string]*unit{}, repoRoots: map[string]string{}, kusts: map[string]*kustomize.Refs{},
		walked: map[string]kustFolder{}, kustScopes: map[string]*kustScope{}, charts: map[string]*chartInfo{}, chartScope: map[string][]string{},
		holders: map[string]string{},
	}
}

// unitsOf returns the units a file is linted through: the chart whose
// folder holds it; else the root kustomizations that use it, directly or
// through bases, components and patches; else the file alone. inChart
// reports a file inside a chart that no unit renders (a library chart):
// it is not a manifest either.
func (d *discovery) unitsOf(s manifest.Source) (units []*unit, inChart bool) {
	if s.Stdin {
		return []*unit{{kind: fileUnit, file: s}}, false
	}
	abs := absPath(s.Name)
	if c, ok := d.chartHolding(filepath.Dir(abs)); ok {
		for _, root := range d.chartRoots(c) {
			units = append(units, d.chartUnits(root)...)
		}
		return units, true
	}
	if !d.so.NoKustomize {
		for _, k := range d.kustomizationsReading(abs) {
			units = append(units, d.kustScope(k.Dir).rootsUsing(k.Dir)...)
		}
		if len(units) > 0 {
			return units, false
		}
	}
	if u := d.folderUnitOf(abs); u != nil {
		return []*unit{u}, false
	}
	return []*unit{{kind: fileUnit, file: s}}, false
}

// folderUnitOf returns the plain-folder unit a loose file belongs to: the
// manifests of its folder (or of the folder the configuration groups
// recursively), as `kubectl apply -f DIR` applies them together. Nil when
// the file is on its own: its folder holds a kustomization (kustomize,
// not kubectl, applies that folder), the configuration splits the folder,
// or the folder's listing does not hold it (a pipe, another extension).
func (d *discovery) folderUnitOf(abs string) *unit {
	dir := filepath.Dir(abs)
	root, recursive := dir, false
	if g, ok := d.folderGroup(dir); ok {
		if g.Split {
			return nil
		}
		if g.Recursive {
			root, recursive = g.Dir, true
		}
	}
	if !recursive && !d.so.NoKustomize && d.refs(dir) != nil {
		return nil
	}
	u, ok := d.folders[root]
	if !ok {
		u = &unit{kind: folderUnit, dir: root, recursive: recursive, files: d.looseFiles(root, recursive)}
		// With --no-kustomize, a kustomization's own files are what it
		// builds from: a base, whatever it then changes.
		if d.so.NoKustomize && !recursive && d.refs(dir) != nil {
			u.base, u.baseBy = true, "--no-kustomize lints the files its kustomization builds from"
		}
		d.folders[root] = u
	}
	if !u.covers(abs) {
		return nil
	}
	return u
}

// folderGroup is the configured grouping (units.folders) that applies to
// dir: the innermost one that names it, or, recursively, a folder above.
func (d *discovery) folderGroup(dir string) (FolderUnits, bool) {
	best, found := FolderUnits{}, false
	for _, g := range d.so.Folders {
		gd := absPath(g.Dir)
		if (gd == dir || (g.Recursive && within(dir, gd))) && (!found || len(gd) > len(best.Dir)) {
			g.Dir = gd
			best, found = g, true
		}
	}
	return best, found
}

// looseFiles lists the manifests of a plain folder (and of the folders
// below it when recursive) that nothing else deploys: no kustomization
// reads them, no chart holds them, the configuration does not ignore
// them. The listing follows manifest.Expand's rules for folders.
func (d *discovery) looseFiles(root string, recursive bool) []manifest.Source {
	var out []manifest.Source
	enter := func(dir string) bool {
		// A chart or kustomization below is deployed by helm or kustomize.
		return recursive && !helm.IsChart(dir) && (d.so.NoKustomize || d.refs(dir) == nil)
	}
	manifest.WalkFolder(root, enter, func(p string) {
		p = filepath.Clean(p)
		if d.skip != nil && d.skip(p) {
			return
		}
		if _, inChart := d.chartHolding(filepath.Dir(p)); inChart {
			return
		}
		if !d.so.NoKustomize && len(d.kustomizationsReading(p)) > 0 {
			return
		}
		out = append(out, manifest.Source{Name: p})
	}, func(string, error) {}) // a pipe or a dangling link is linted on its own, as a problem
	slices.SortFunc(out, func(a, b manifest.Source) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// entries returns the units the user named: the kustomization of a folder
// named (built as named, even when an overlay uses it), the roots that
// read a kustomization file named (a change there changes their builds), and the
// chart of anything named inside a chart (its values, a template, Chart.yaml:
// a change there changes the whole render). A named kustomization that
// cannot build offline brings the kustomizations it reads that can, as
// bases, so that its local files are still linted together.
func (d *discovery) entries(req *request) []*unit {
	var out []*unit
	for _, p := range req.paths {
		dir := p.abs
		if !p.dir {
			dir = filepath.Dir(p.abs)
		}
		if c, ok := d.chartHolding(dir); ok {
			for _, root := range d.chartRoots(c) {
				out = append(out, d.chartUnits(root)...)
			}
			continue
		}
		if d.so.NoKustomize || (!p.dir && !slices.Contains(kustomize.FileNames, filepath.Base(p.abs))) {
			continue
		}
		r := d.refs(dir)
		if r == nil || (d.skip != nil && d.skip(r.File)) {
			continue
		}
		s := d.kustScope(dir)
		if !p.dir {
			// A changed kustomization file changes the builds that read it.
			out = append(out, s.rootsUsing(dir)...)
			continue
		}
		u := s.unit(dir)
		// Built as named, but a kustomization that another one reads is a
		// base: that one deploys it, changed.
		if !u.base && u.cycle == nil && !s.isRoot(dir) {
			u.base, u.baseBy = true, "read by "+s.readersOf(dir)
		}
		out = append(out, u)
		if s.broken(dir, map[string]bool{}) {
			for _, b := range s.buildableReads(dir) {
				u := s.unit(b)
				u.base, u.baseBy = true, "read by "+display(dir)+", which does not build offline"
				out = append(out, u)
			}
		}
	}
	return out
}

// repoRoot is the folder holding .git above dir, or "" when there is none.
func (d *discovery) repoRoot(dir string) string {
	if r, ok := d.repoRoots[dir]; ok {
		return r
	}
	r := ""
	if exists(filepath.Join(dir, ".git")) {
		r = dir
	} else if parent := filepath.Dir(dir); parent != dir {
		r = d.repoRoot(parent)
	}
	d.repoRoots[dir] = r
	return r
}

// ancestors lists dir and the folders above it, up to the repository root.
func (d *discovery) ancestors(dir string) []string {
	root := d.repoRoot(dir)
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if dir == root || parent == dir {
			return out
		}
		dir = parent
	}
}

// scopeRoot is the folder searched for the kustomizations and charts that
// may use something in dir: the repository root when there is a .git;
// otherwise the highest folder of an unbroken chain of parents that hold a
// kustomization or chart themselves or in a direct subfolder (a copy of a
// repository's config/ tree without its .git).
func (d *discovery) scopeRoot(dir string) string {
	if r := d.repoRoot(dir); r != "" {
		return r
	}
	for {
		parent := filepath.Dir(dir)
		if parent == dir || !holdsSources(parent) {
			return dir
		}
		dir = parent
	}
}

func holdsSources(dir string) bool {
	if isSourceDir(dir) {
		return true
	}
	entries, err := overlay.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() && !skipDir(e.Name()) && isSourceDir(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

func isSourceDir(dir string) bool {
	_, ok := kustomize.FileIn(dir)
	return ok || helm.IsChart(dir)
}

// isKustomizationName reports whether a folder entry may be the folder's
// kustomization file. Names are compared ignoring case, as kustomize.FileIn's
// stat finds them on a case-insensitive file system.
func isKustomizationName(name string) bool {
	for _, n := range kustomize.FileNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// readRefs reads the kustomizations of the folders not read yet, on every
// CPU, into the cache refs answers from.
func (d *discovery) readRefs(dirs []string) {
	var todo []string
	seen := map[string]bool{}
	for _, dir := range dirs {
		if _, ok := d.kusts[dir]; !ok && !seen[dir] {
			seen[dir] = true
			todo = append(todo, dir)
		}
	}
	read := make([]*kustomize.Refs, len(todo))
	parallel.For(len(todo), d.jobs, func(i int) { read[i] = d.readRef(todo[i]) })
	for i, dir := range todo {
		d.kusts[dir] = read[i]
	}
}

// refs reads (once) the kustomization in dir; nil when there is none.
func (d *discovery) refs(dir string) *kustomize.Refs {
	if r, ok := d.kusts[dir]; ok {
		return r
	}
	r := d.readRef(dir)
	d.kusts[dir] = r
	return r
}

// readRef reads the kustomization in dir, starting from what a scope's
// walk found of it: its file, and its text when the walk read it.
func (d *discovery) readRef(dir string) *kustomize.Refs {
	var r *kustomize.Refs
	if k, ok := d.walked[dir]; ok && k.file != "" {
		r, _ = kustomize.RefsOf(dir, k.file, k.text)
	} else {
		r, _ = kustomize.ReadRefs(dir)
	}
	return r
}

// kustomizationsReading lists the kustomizations that read a file
// themselves: kustomize loads files only from below a kustomization's own
// folder (its default load restrictor), so they are in the file's folder
// or above it. A kustomization file reads itself.
func (d *discovery) kustomizationsReading(abs string) []*kustomize.Refs {
	var out []*kustomize.Refs
	for _, dir := range d.ancestors(filepath.Dir(abs)) {
		r := d.refs(dir)
		if r == nil {
			continue
		}
		if r.File == abs || slices.Contains(r.Files, abs) {
			out = append(out, r)
		}
	}
	return out
}

// kustScope is the graph of the kustomizations under one scope root.
//
// A run that names a few files reads every kustomization's text but
// parses only those that may refer to a folder whose consumers it asks
// for (lazy); any other run, or one whose texts the scan cannot vouch
// for, parses them all at once, on every CPU (complete). Both give the
// same graph for what is asked.
type kustScope struct {
	d         *discovery
	refs      map[string]*kustomize.Refs // by folder
	consumers map[string][]string        // folder → folders that use it, sorted
	effective map[string]int             // memo for isEffective: 1 yes, 2 no, 3 in progress
	cycles    map[string][]string        // memo for cycle
	units     map[string]*unit

	complete bool
	// walked are the folders the walk found a kustomization in, and texts
	// their texts while the scope is lazy.
	walked  map[string]bool
	texts   []kustText
	asked   map[string]bool // folders whose consumers are all known
	lookups int
}

// lazyLookups is how many folders' consumers a lazy scope looks up in the
// texts before it parses every kustomization instead: each lookup scans
// every text, which pays only while the run asks about a few folders.
const lazyLookups = 64

func (d *discovery) kustScope(dir string) *kustScope {
	root := d.scopeRoot(dir)
	if s, ok := d.kustScopes[root]; ok {
		return s
	}
	s := &kustScope{d: d, refs: map[string]*kustomize.Refs{}, consumers: map[string][]string{},
		effective: map[string]int{}, cycles: map[string][]string{}, units: map[string]*unit{},
		walked: map[string]bool{}, asked: map[string]bool{}}
	d.kustScopes[root] = s
	// The walk lists folders and reads nothing: only a folder whose
	// listing has a kustomization file name can hold a kustomization, and
	// those files, a small part of a repository, are read in parallel.
	found, charts := d.scopeFolders(root)
	for _, k := range found {
		s.walked[k.dir] = true
		d.walked[k.dir] = k
	}
	if d.lazyKusts {
		texts := make([]kustText, len(found))
		parallel.For(len(found), d.jobs, func(i int) { texts[i] = readKustText(found[i], root, charts) })
		if !slices.ContainsFunc(texts, func(t kustText) bool { return t.unwalked }) {
			s.texts = texts
			return s
		}
	}
	s.readAll()
	return s
}

// readAll parses every walked kustomization: the scope is complete.
func (s *kustScope) readAll() {
	s.complete, s.texts = true, nil
	dirs := slices.Sorted(maps.Keys(s.walked))
	s.d.readRefs(dirs)
	for _, dir := range dirs {
		if r := s.d.refs(dir); r != nil {
			s.refs[dir] = r
		}
	}
	// A kustomization reached only through bases outside the scope walk
	// (../../other) is still part of the graph.
	for _, dir := range dirs {
		if s.refs[dir] != nil {
			s.add(dir)
		}
	}
}

// ref is the kustomization in dir when it is part of the graph: walked,
// or used by one that is. A lazy scope parses a walked one on first use.
func (s *kustScope) ref(dir string) *kustomize.Refs {
	if r, ok := s.refs[dir]; ok || s.complete || !s.walked[dir] {
		return r
	}
	r := s.d.refs(dir)
	s.refs[dir] = r
	if r != nil {
		s.add(dir)
	}
	return r
}

// consumersOf lists the kustomizations that use dir. The list is a copy:
// the graph may grow while a caller walks it.
func (s *kustScope) consumersOf(dir string) []string {
	if s.complete || s.asked[dir] {
		return slices.Clone(s.consumers[dir])
	}
	s.lookups++
	if s.lookups > lazyLookups || strings.ContainsAny(dir, tokenBreaks) {
		s.readAll()
		return slices.Clone(s.consumers[dir])
	}
	for i := range s.texts {
		t := &s.texts[i]
		if within(t.dir, dir) || t.mayName(dir) {
			s.ref(t.dir) // add records it as a consumer if it is one
		}
	}
	s.asked[dir] = true
	return slices.Clone(s.consumers[dir])
}

func (s *kustScope) add(dir string) {
	r := s.refs[dir]
	for _, sub := range r.Dirs {
		cs := s.consumers[sub]
		if i, found := slices.BinarySearch(cs, dir); !found {
			s.consumers[sub] = slices.Insert(cs, i, dir)
		}
		if _, known := s.refs[sub]; !known {
			if sr := s.d.refs(sub); sr != nil {
				s.refs[sub] = sr
				s.add(sub)
			}
		}
	}
}

// broken reports whether building dir fails for a reason known without
// building: a missing local file or a remote reference, in it or in
// anything it uses.
func (s *kustScope) broken(dir string, seen map[string]bool) bool {
	if seen[dir] {
		return false
	}
	seen[dir] = true
	r := s.ref(dir)
	if r == nil {
		return true
	}
	if len(r.Missing) > 0 || r.Remote || s.cycle(dir) != nil {
		return true
	}
	for _, sub := range r.Dirs {
		if s.broken(sub, seen) {
			return true
		}
	}
	return false
}

// cycle returns the shortest chain of references from dir back to dir
// (dir first and last), or nil when dir does not include itself. kustomize
// cannot build such a kustomization, nor anything that uses it.
func (s *kustScope) cycle(dir string) []string {
	if c, ok := s.cycles[dir]; ok {
		return c
	}
	var found []string
	from := map[string]string{}
	queue := []string{dir}
	for len(queue) > 0 && found == nil {
		k := queue[0]
		queue = queue[1:]
		r := s.ref(k)
		if r == nil {
			continue
		}
		for _, sub := range r.Dirs {
			if sub == dir {
				found = []string{dir}
				for at := k; at != dir; at = from[at] {
					found = append(found, at)
				}
				found = append(found, dir)
				slices.Reverse(found)
				break
			}
			if _, seen := from[sub]; !seen && s.ref(sub) != nil {
				from[sub] = k
				queue = append(queue, sub)
			}
		}
	}
	s.cycles[dir] = found
	return found
}

// isEffective reports whether dir's objects reach a successful build: it
// builds, and it is not a component that only a failing build uses.
func (s *kustScope) isEffective(dir string) bool {
	switch s.effective[dir] {
	case 1:
		return true
	case 2, 3:
		return false
	}
	s.effective[dir] = 3
	ok := !s.ignored(dir) && !s.broken(dir, map[string]bool{})
	if ok && s.ref(dir).Component {
		ok = s.hasEffectiveConsumer(dir)
	}
	if ok {
		s.effective[dir] = 1
	} else {
		s.effective[dir] = 2
	}
	return ok
}

// readersOf names the kustomizations that read dir and build, as
// messages show them: the first, and how many others.
func (s *kustScope) readersOf(dir string) string {
	var rs []string
	for _, c := range s.consumersOf(dir) {
		if s.isEffective(c) {
			rs = append(rs, display(c))
		}
	}
	slices.Sort(rs)
	switch len(rs) {
	case 0:
		return "no kustomization that builds"
	case 1:
		return rs[0]
	}
	return fmt.Sprintf("%s and %d others", rs[0], len(rs)-1)
}

func (s *kustScope) hasEffectiveConsumer(dir string) bool {
	for _, c := range s.consumersOf(dir) {
		if s.isEffective(c) {
			return true
		}
	}
	return false
}

// isRoot: a kustomization that no working kustomization uses is built on
// its own. One used only by an overlay that cannot build (gatekeeper's
// config/overlays/dev needs a file its Makefile writes) is then a root
// itself rather than never linted.
//
// A kustomization in a cycle is a root too, even a component, so that
// its cycle is reported and its files linted one by one.
//
// One that units.entries names is deployed as built, whatever reads it:
// operator-sdk's config/default is what `make deploy` applies, though
// config/manifests reads it to generate the OLM bundle.
func (s *kustScope) isRoot(dir string) bool {
	r := s.ref(dir)
	if r == nil || s.ignored(dir) {
		return false
	}
	return s.cycle(dir) != nil || (!r.Component && (deployed(dir, s.d.so.Deployed) || !s.hasEffectiveConsumer(dir)))
}

// buildableReads lists the outermost kustomizations that dir reads and
// that build on their own (components only build inside another).
func (s *kustScope) buildableReads(dir string) []string {
	var out []string
	seen := map[string]bool{dir: true}
	var down func(string)
	down = func(k string) {
		r := s.ref(k)
		if r == nil {
			return
		}
		for _, sub := range r.Dirs {
			if seen[sub] {
				continue
			}
			seen[sub] = true
			if sr := s.ref(sub); sr != nil && !sr.Component && s.isEffective(sub) {
				out = append(out, sub)
				continue
			}
			down(sub)
		}
	}
	down(dir)
	slices.Sort(out)
	return out
}

// ignored reports whether the configuration's ignore globs cover the
// kustomization in dir: it is then not built, as if it were not there.
func (s *kustScope) ignored(dir string) bool {
	r := s.ref(dir)
	return r != nil && s.d.skip != nil && s.d.skip(r.File)
}

// rootsUsing returns the root units whose build includes dir.
func (s *kustScope) rootsUsing(dir string) []*unit {
	var out []*unit
	seen := map[string]bool{}
	var up func(string)
	up = func(k string) {
		if seen[k] {
			return
		}
		seen[k] = true
		if s.isRoot(k) {
			out = append(out, s.unit(k))
		}
		for _, c := range s.consumersOf(k) {
			up(c)
		}
	}
	up(dir)
	slices.SortFunc(out, func(a, b *unit) int { return strings.Compare(a.dir, b.dir) })
	return out
}

func (s *kustScope) unit(dir string) *unit {
	if u, ok := s.units[dir]; ok {
		return u
	}
	u := &unit{kind: kustomizeUnit, dir: dir, reads: map[string]bool{}}
	var walk func(string)
	walk = func(k string) {
		r := s.ref(k)
		if r == nil || u.reads[r.File] {
			return
		}
		u.reads[r.File] = true
		for _, f := range r.Files {
			u.reads[f] = true
		}
		for _, sub := range r.Dirs {
			walk(sub)
		}
	}
	walk(dir)
	if c := s.cycle(dir); c != nil {
		u.cycle = c
		u.cycleAt = s.ref(dir).DirAt[c[1]]
		u.cycleAt.File = s.ref(dir).File
	}
	s.units[dir] = u
	return u
}

// chartInfo is what discovery reads of a Chart.yaml.
type chartInfo struct {
	dir     string
	library bool
	// local are the folders of its file:// dependencies.
	local []string
}

func (d *discovery) chart(dir string) *chartInfo {
	if c, ok := d.charts[dir]; ok {
		return c
	}
	c := &chartInfo{dir: dir}
	d.charts[dir] = c
	data, err := overlay.ReadDiskFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return c
	}
	var meta struct {
		Type         string `yaml:"type"`
		Dependencies []struct {
			Repository string `yaml:"repository"`
		} `yaml:"dependencies"`
	}
	if yaml.Unmarshal(data, &meta) != nil {
		return c
	}
	c.library = meta.Type == "library"
	for _, dep := range meta.Dependencies {
		if rest, ok := strings.CutPrefix(dep.Repository, "file://"); ok {
			c.local = append(c.local, filepath.Clean(filepath.Join(dir, filepath.FromSlash(rest))))
		}
	}
	return c
}

// chartHolding finds the chart a folder belongs to: the nearest folder
// with a Chart.yaml at or above it, and, for a subchart vendored under
// another chart's charts/, that chart.
func (d *discovery) chartHolding(dir string) (string, bool) {
	// Asked once per file: a folder of thousands of files stats the
	// Chart.yaml of each ancestor once, not once per file.
	if c, ok := d.holders[dir]; ok {
		return c, c != ""
	}
	c, ok := d.findChartHolding(dir)
	d.holders[dir] = c
	return c, ok
}

func (d *discovery) findChartHolding(dir string) (string, bool) {
	found := ""
	for _, a := range d.ancestors(dir) {
		if helm.IsChart(a) {
			found = a
			break
		}
	}
	if found == "" {
		return "", false
	}
	for {
		parent := filepath.Dir(found)
		if filepath.Base(parent) != "charts" || !helm.IsChart(filepath.Dir(parent)) {
			return found, true
		}
		found = filepath.Dir(parent)
	}
}

// chartRoots returns the charts rendered with chart c: c itself, unless
// another chart of the scope uses it as a file:// dependency (linkerd's
// partials), or it is a library chart.
func (d *discovery) chartRoots(c string) []string {
	var dependents []string
	for _, other := range d.chartsInScope(c) {
		if other != c && slices.Contains(d.chart(other).local, c) {
			dependents = append(dependents, other)
		}
	}
	if len(dependents) == 0 {
		if d.chart(c).library {
			return nil
		}
		return []string{c}
	}
	var out []string
	for _, dep := range dependents {
		for _, r := range d.chartRoots(dep) {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (d *discovery) chartsInScope(c string) []string {
	root := d.scopeRoot(c)
	if cs, ok := d.chartScope[root]; ok {
		return cs
	}
	var cs []string
	_ = overlay.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		if p != root && (skipDir(e.Name()) || e.Name() == "templates") {
			return filepath.SkipDir
		}
		if helm.IsChart(p) {
			cs = append(cs, p)
		}
		return nil
	})
	d.chartScope[root] = cs
	return cs
}

// chartUnits returns the units of a chart folder: one per chart entry of
// the options that names it (each with its own values), else one with the
// run's values.
func (d *discovery) chartUnits(dir string) []*unit {
	if us := d.gitopsCharts[dir]; len(us) > 0 {
		return us
	}
	var out []*unit
	for _, c := range d.so.ChartConfigs {
		if absPath(c.Dir) == dir {
			out = append(out, d.newChartUnit(dir, c))
		}
	}
	if len(out) == 0 {
		out = append(out, d.newChartUnit(dir, Chart{Dir: dir}))
	}
	return out
}

func (d *discovery) newChartUnit(dir string, c Chart) *unit {
	c.Dir = dir
	c.ValuesFiles = append(slices.Clip(c.ValuesFiles), d.so.ValuesFiles...)
	c.Set = append(slices.Clip(c.Set), d.so.Set...)
	c.SetString = append(slices.Clip(c.SetString), d.so.SetString...)
	if c.Namespace == "" && d.so.Namespace != "" {
		c.Namespace, c.GivenBy = d.so.Namespace, "--namespace"
	}
	u := &unit{kind: chartUnit, dir: dir, chart: c}
	var add func(string)
	add = func(p string) {
		if slices.Contains(u.readDirs, p) {
			return
		}
		u.readDirs = append(u.readDirs, p)
		for _, l := range d.chart(p).local {
			add(l)
		}
	}
	add(dir)
	return u
}

func exists(p string) bool {
	_, err := overlay.Stat(p)
	return err == nil
}

// within reports whether p is dir or below it (both absolute).
func within(p, dir string) bool {
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == filepath.Separator)
}
