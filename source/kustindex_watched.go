package source

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Watched is what the editor server keeps between runs when its client
// reports every change on disk under the workspace folders
// (workspace/didChangeWatchedFiles, with a watcher on every path created
// or deleted and on every kustomization file changed): the discovery
// index of each scope root, decoded, read again only where a reported
// change touched what it was made from. A monorepo's index is made from
// thousands of folder listings and kustomization files, and checking
// each by stat was most of what an edit cost (docs/performance.md); gopls
// trusts the client's events in the same way.
//
// What no watcher covers is still checked on every run, as the cache
// checks the index (by stat, by content where a stat cannot vouch): the
// inputs outside the folders, a link's target, a folder that could not
// be listed.
type Watched struct {
	roots []string

	// pendingMu guards indexes and each index's pending paths: a change is
	// reported without waiting for a run.
	pendingMu sync.Mutex
	indexes   map[string]*keptIndex // by scope root

	// mu is held by a run while it reads or updates an index.
	mu sync.Mutex
}

// keptIndex is one scope root's walk (kustomizationFolders with texts)
// and what it was made from.
type keptIndex struct {
	pending map[string]bool // paths reported since the last run

	walked  bool
	found   map[string]kustFolder // by folder
	charts  map[string]bool
	watched map[string]watchedInput // inputs the watchers cover, by path
	checked []cache.Input           // the others, fingerprinted

	// The sorted answer, made again after a change.
	foundList []kustFolder
	chartList []string
	listed    bool
}

// watchedInput is an input the watchers cover: only its signature is
// compared, when a change to it is reported (a monorepo's index has ten
// thousand).
type watchedInput struct {
	op  overlay.Op
	sig string
}

// NewWatched returns what a server keeps for a client that watches the
// workspace folders roots.
func NewWatched(roots []string) *Watched {
	w := &Watched{indexes: map[string]*keptIndex{}}
	for _, r := range roots {
		w.roots = append(w.roots, absPath(r))
	}
	return w
}

// Changed tells w that the client reported path created, changed or
// deleted on disk, or that an editor's buffer of it changed.
func (w *Watched) Changed(path string) {
	path = absPath(path)
	w.pendingMu.Lock()
	defer w.pendingMu.Unlock()
	for _, k := range w.indexes {
		k.pending[path] = true
	}
}

// covers reports whether the client reports every change to an input: a
// folder's listing changes only by a path created or deleted in it, and a
// kustomization file by a change to it, under a workspace folder. A
// link's target (OpStat) may be anywhere, and a folder that could not be
// listed may become readable without an event.
func (w *Watched) covers(in cache.Input) bool {
	if in.Op != overlay.OpEntries && in.Op != overlay.OpRead || in.Sig == "error" {
		return false
	}
	return slices.ContainsFunc(w.roots, func(r string) bool { return within(in.Path, r) })
}

// scopeFolders is kustomizationFolders(root) with texts, as the cache's
// scopeFolders gives it: kept from the last run, with what the reported
// changes touched read again; walked whole the first time and whenever an
// input the watchers do not cover changed.
func (w *Watched) scopeFolders(root string, jobs int) ([]kustFolder, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// The index is registered before it is walked: a change reported
	// during the walk is pending for the next run.
	w.pendingMu.Lock()
	k := w.indexes[root]
	if k == nil {
		k = &keptIndex{}
		w.indexes[root] = k
	}
	pending := k.pending
	k.pending = map[string]bool{}
	w.pendingMu.Unlock()

	if !k.walked || !cache.Unchanged(k.checked) {
		k.found, k.charts, k.watched, k.checked = map[string]kustFolder{}, map[string]bool{}, map[string]watchedInput{}, nil
		k.add(w, root, jobs)
		k.walked = true
	} else {
		k.update(w, pending, jobs)
	}
	if !k.listed {
		k.foundList = slices.Collect(maps.Values(k.found))
		slices.SortFunc(k.foundList, func(a, b kustFolder) int { return strings.Compare(a.dir, b.dir) })
		k.chartList = slices.Sorted(maps.Keys(k.charts))
		k.listed = true
	}
	return k.foundList, k.chartList
}

// update reads again what the reported paths touched: a path the walk
// read, or one created or deleted in a folder it listed. A folder whose
// listing or kustomization changed is listed again (revisit); parents
// first, so that a path in a folder made since is found by its parent's
// walk.
func (k *keptIndex) update(w *Watched, pending map[string]bool, jobs int) {
	var paths []string
	for p := range pending {
		paths = append(paths, p, filepath.Dir(p))
	}
	slices.SortFunc(paths, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	for _, p := range slices.Compact(paths) {
		in, ok := k.watched[p]
		if !ok || overlay.Sign(in.op, p) == in.sig {
			continue
		}
		dir := p
		if in.op != overlay.OpEntries {
			dir = filepath.Dir(p)
		}
		k.revisit(w, dir, jobs)
	}
}

// revisit lists dir again, which the walk had listed: its own
// kustomization and chart are read again, the subfolders gone from its
// listing dropped with everything under them, and those new to it walked.
func (k *keptIndex) revisit(w *Watched, dir string, jobs int) {
	own := func(p string, op overlay.Op) bool {
		return p == dir || filepath.Dir(p) == dir && op != overlay.OpEntries
	}
	before := map[string]bool{}
	for p, in := range k.watched {
		switch {
		case own(p, in.op):
			delete(k.watched, p)
		case in.op == overlay.OpEntries && filepath.Dir(p) == dir:
			before[p] = true
		}
	}
	k.checked = slices.DeleteFunc(k.checked, func(in cache.Input) bool {
		if in.Op == overlay.OpEntries && in.Path != dir && filepath.Dir(in.Path) == dir {
			before[in.Path] = true
		}
		return own(in.Path, in.Op)
	})
	delete(k.found, dir)
	delete(k.charts, dir)

	began := time.Now()
	var inputs []cache.Input
	walk := &kustWalk{withText: true, inputs: &inputs}
	subs := walk.visit(dir)
	k.keep(w, began, walk.found, walk.charts, inputs)
	for p := range before {
		if !slices.Contains(subs, p) {
			k.drop(p)
		}
	}
	for _, p := range subs {
		if !before[p] {
			k.add(w, p, jobs)
		}
	}
}

// add walks dir, a folder new to the index, and keeps what it found.
func (k *keptIndex) add(w *Watched, dir string, jobs int) {
	began := time.Now()
	var inputs []cache.Input
	found, charts := walkKustomizations(dir, jobs, true, &inputs)
	k.keep(w, began, found, charts, inputs)
}

func (k *keptIndex) keep(w *Watched, began time.Time, found []kustFolder, charts []string, inputs []cache.Input) {
	for _, f := range found {
		k.found[f.dir] = f
	}
	for _, c := range charts {
		k.charts[c] = true
	}
	var checked []cache.Input
	for _, in := range inputs {
		if w.covers(in) {
			k.watched[in.Path] = watchedInput{op: in.Op, sig: in.Sig}
		} else {
			checked = append(checked, in)
		}
	}
	k.checked = append(k.checked, cache.Fingerprinted(began, checked)...)
	k.listed = false
}

// drop forgets dir and everything under it: it is gone from its
// parent's listing, or no longer walked (its parent became a chart).
func (k *keptIndex) drop(dir string) {
	maps.DeleteFunc(k.found, func(p string, _ kustFolder) bool { return within(p, dir) })
	maps.DeleteFunc(k.charts, func(p string, _ bool) bool { return within(p, dir) })
	maps.DeleteFunc(k.watched, func(p string, _ watchedInput) bool { return within(p, dir) })
	k.checked = slices.DeleteFunc(k.checked, func(in cache.Input) bool { return within(in.Path, dir) })
	k.listed = false
}
