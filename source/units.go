package source

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/gitops"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

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

// unitsOf returns the units a file is linted through: those of the
// first kind that claims it (unitKinds): the chart whose folder holds it;
// else the root kustomizations that use it, directly or through bases,
// components and patches; else its plain folder; else the file alone.
func (d *discovery) unitsOf(s manifest.Source) []*unit {
	if s.Stdin {
		return []*unit{{kind: fileUnit, file: s}}
	}
	abs := absPath(s.Name)
	for _, k := range unitKinds {
		if units, claimed := k.discoverFile(d, s, abs); claimed {
			return units
		}
	}
	return nil
}

// entries returns the units the user named: for each path, those of the
// first kind that claims it (a chart's, a kustomization's).
func (d *discovery) entries(req *request) []*unit {
	var out []*unit
	for _, p := range req.paths {
		for _, k := range unitKinds {
			if units, claimed := k.discoverEntry(d, p); claimed {
				out = append(out, units...)
				break
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
	set := &unitSet{byKey: map[string]*unit{}}
	named := set.addEntries(d, req)
	unitsOf = set.addSources(d, req, so.WholeUnits, named)
	units = set.units
	unitFacts(req, so, units)
	if so.Workspace != nil {
		units = workspaceUnits(req, units, unitsOf)
	}
	slices.SortStableFunc(units, func(a, b *unit) int { return strings.Compare(a.key(), b.key()) })
	return units, unitsOf
}

// unitSet holds each unit once, in the order found: a unit found again
// (the same key) is the one found first.
type unitSet struct {
	units []*unit
	byKey map[string]*unit
}

func (s *unitSet) add(u *unit) *unit {
	if have := s.byKey[u.key()]; have != nil {
		return have
	}
	u.shown = display(u.dir)
	s.byKey[u.key()] = u
	s.units = append(s.units, u)
	return u
}

// addEntries adds the units of the GitOps entries and of the entries the
// user named, and returns the named kustomizations among them, which
// claim the files they read.
func (s *unitSet) addEntries(d *discovery, req *request) (named []*unit) {
	gitopsUnits := d.gitopsUnits(req)
	for _, u := range gitopsUnits {
		u = s.add(u)
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
		u = s.add(u)
		u.entry = true
		if u.kind == kustomizeUnit {
			named = append(named, u)
		}
	}
	return named
}

// addSources adds the units of each requested file: the named
// kustomizations that read it, else the units discovery finds for it.
func (s *unitSet) addSources(d *discovery, req *request, whole bool, named []*unit) [][]*unit {
	unitsOf := make([][]*unit, len(req.sources))
	for i, src := range req.sources {
		var us []*unit
		if !src.Stdin {
			abs := absPath(src.Name)
			for _, u := range named {
				if u.reads[abs] {
					us = append(us, u)
				}
			}
		}
		if len(us) == 0 {
			us = d.unitsOf(src)
		}
		for _, u := range us {
			u = s.add(u)
			if whole {
				u.entry = true
			}
			unitsOf[i] = append(unitsOf[i], u)
		}
	}
	return unitsOf
}

// unitFacts sets what discovery knows of each unit besides its files:
// whether it is an entry, whether it is deployed or a base, and a loose
// file that a commented-out entry disables.
func unitFacts(req *request, so Options, units []*unit) {
	packages := &olmMemo{packages: map[string][]olmChannel{}, folders: map[string]string{}}
	namesRoots := slices.ContainsFunc(so.Deployed, isRootFolder)
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
		if dir := bundleFolder(u); dir != "" && u.disabledBy == "" && !deployed(dir, so.Deployed) {
			u.archivedBy = archivedBundle(dir, packages)
		}
		if u.kind == folderUnit && len(u.files) > 1 {
			u.together = folderTogether(u, so)
		}
		switch {
		case u.gitops != nil:
			// A GitOps entry is deployed by its controller, whatever
			// units.entries or a commented-out reader says.
			u.deployed = Fact{Value: "deployed", Source: Given, By: u.gitops.Label()}
		case namedEntry(u, so.Deployed):
			u.deployed = Fact{Value: "deployed", Source: Given, By: "units.entries in .webhooklint.yaml"}
		case namesRoots && (u.kind == kustomizeUnit || u.kind == chartUnit):
			u.base, u.baseBy = true, "not named in units.entries"
		case u.kind == kustomizeUnit && !u.base:
			if by := disabledReader(u.dir); by != "" {
				u.base, u.baseBy = true, by
			}
		}
	}
}

// namedEntry reports whether units.entries names the unit: its folder
// (a kustomization, a chart, a plain folder), or the file of a unit of one
// file (a lone configuration, alone in its folder or linted on its own).
// A file of a plain folder of several is applied with the others: the
// folder is what is named.
func namedEntry(u *unit, entries []string) bool {
	switch {
	case u.kind == fileUnit:
		// An editor's buffer comes as stdin named by its path.
		return u.file.Name != "" && u.file.Name != "-" && deployed(u.absFile(), entries)
	case u.kind == folderUnit && len(u.files) == 1 && deployed(absPath(u.files[0].Name), entries):
		return true
	}
	return u.dir != "" && deployed(u.dir, entries)
}

// isRootFolder reports whether a units.entries entry names a
// kustomization or chart folder: only such an entry makes the roots it
// does not name bases. One that names a plain folder or a file says only
// that it is deployed as written.
func isRootFolder(entry string) bool {
	dir := absPath(entry)
	_, kust := kustomize.FileIn(dir)
	return kust || helm.IsChart(dir)
}

func deployed(dir string, entries []string) bool {
	for _, e := range entries {
		if absPath(e) == dir {
			return true
		}
	}
	return false
}
