package source

import (
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/webhooklint/webhooklint/internal/intern"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// folderUnit is the loose manifests of a plain folder (or of a tree, as
// the configuration's units.folders groups it), applied together as
// `kubectl apply -f DIR` applies them.
var folderUnit unitKind = folderKind{}

type folderKind struct{}

func (folderKind) name() string { return "folder" }

func (folderKind) discoverFile(d *discovery, _ manifest.Source, abs string) ([]*unit, bool) {
	if u := d.folderUnitOf(abs); u != nil {
		return []*unit{u}, true
	}
	return nil, false
}

func (folderKind) discoverEntry(*discovery, askedPath) ([]*unit, bool) { return nil, false }

func (folderKind) key(u *unit) string { return "d\x00" + u.dir }

func (folderKind) label(u *unit) string {
	if u.recursive {
		return "kubectl apply -R -f " + display(u.dir)
	}
	return "kubectl apply -f " + display(u.dir)
}

func (folderKind) covers(u *unit, abs string) bool {
	_, found := slices.BinarySearchFunc(u.files, abs, func(s manifest.Source, abs string) int { return strings.Compare(s.Name, abs) })
	return found
}

func (folderKind) reads(u *unit) (iter.Seq[string], bool) {
	return func(yield func(string) bool) {
		for _, f := range u.files {
			if !yield(f.Name) {
				return
			}
		}
	}, true
}

func (folderKind) lint(u *unit, in *lintInput) *unitResult { return lintFolder(u, in.lo, in.patches) }

// load loads the files of the folder that were asked about: a file named
// alone is what kubectl apply -f FILE installs, not its folder.
func (folderKind) load(u *unit, in *loadInput) Unit {
	only := slices.DeleteFunc(slices.Clone(u.files), func(s manifest.Source) bool { return !in.asked[s.Name] })
	return loadLooseFiles(Unit{Label: u.label()}, only, in)
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
		// The unit's configurations are all held until its last rule has
		// run: their repeated values are kept once.
		strs := intern.New()
		parallel.For(len(u.files), lo.Workers(), func(i int) {
			loaded[i] = loadLoose(u.files[i], nil, inner.Workers(), patches, alone, strs)
		})
		return loaded
	}
	alone := !mayHoldJudged(u.files, lo.Workers())
	loaded := load(alone)
	if alone && slices.ContainsFunc(loaded, func(l *looseFile) bool { return l.file.HasJudged() }) {
		loaded = load(false) // the guess missed one: every file's objects are needed
	}
	files := make([]*manifest.File, len(loaded))
	for i, l := range loaded {
		files[i] = l.file
	}
	waves := argoWaveFindings(u, files) // before the rules drop the positions
	r := lintLoose(loaded, lint.Unit{Base: u.base, Loose: looseAssumption(u), Applied: u.deployed.Known()}, lo)
	r.diags = append(r.diags, waves...)
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
