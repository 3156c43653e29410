package source

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/gitops"
)

// Workspace is what the editor server keeps of a folder it lints file by
// file (its workspace): the GitOps entries written anywhere in it. A file
// a Flux Kustomization, HelmRelease or Argo CD Application of the folder
// applies is then linted as `webhooklint FOLDER` lints it — with the
// entry's namespace, prefix, substitutions and values — although only the
// open files are named. The folder is walked once for the files that may
// hold an entry, or a ConfigMap or Secret one reads; the entries are
// found again only after one of those files (or one a Flux Kustomization
// reads to output its HelmReleases, or an ApplicationSet's Git files
// generator reads) changed, or a folder a Git directories generator
// matches appeared or went away.
type Workspace struct {
	dir  string
	skip func(string) bool

	// pending is what the editor reported since the last run: the files
	// changed, and whether files were created or removed. Reporting takes
	// only this lock, so that an edit is not held up by a run.
	pendingMu sync.Mutex
	changed   map[string]bool
	forget    bool

	// mu is held by a run, which alone reads and writes the rest.
	mu sync.Mutex
	// candidates are the files (absolute) that may hold an entry or the
	// data one reads, nil until the folder is walked; deps the other files
	// the kept entries were found from (what a Kustomization that outputs
	// HelmReleases builds).
	candidates map[string]bool
	deps       map[string]bool
	// kept are the entries found in the files key names; stale when a
	// file they were found from changed since. generated is what
	// ApplicationSets' Git generators read to find them.
	kept      []*gitops.Entry
	key       string
	stale     bool
	generated *gitops.Inputs

	// reads are the files each kept kustomize entry's build reads, until
	// one of them changes: a lint does not parse the kustomizations of
	// every entry of the folder again to learn which apply its files.
	readsMu sync.Mutex
	reads   map[*gitops.Entry]map[string]bool
}

// NewWorkspace returns the workspace of folder dir; skip is the
// configuration's ignore, as the command line applies it to the files of a
// folder named.
func NewWorkspace(dir string, skip func(string) bool) *Workspace {
	return &Workspace{dir: absPath(dir), skip: skip, changed: map[string]bool{}, stale: true}
}

// Holds reports whether file (absolute) is inside the workspace.
func (w *Workspace) Holds(file string) bool { return within(file, w.dir) }

// Changed tells the workspace that file's text changed (an edit, a save, a
// file written or removed on disk). The next run finds the entries again
// when it held what they were found from, or now may hold an entry.
func (w *Workspace) Changed(file string) {
	file = absPath(file)
	if !w.Holds(file) {
		return
	}
	w.pendingMu.Lock()
	w.changed[file] = true
	w.pendingMu.Unlock()
}

// Forget makes the next run find the entries again: a file was created or
// removed, which an ApplicationSet's Git generator lists.
func (w *Workspace) Forget() {
	w.pendingMu.Lock()
	w.forget = true
	w.pendingMu.Unlock()
}

// candidate reports whether file may hold an entry, or a ConfigMap or
// Secret an entry reads (substituteFrom, valuesFrom).
func (w *Workspace) candidate(file string) bool {
	if w.skip != nil && w.skip(file) {
		return false
	}
	data := readManifest(file)
	return gitops.MayHold(data) || bytes.Contains(data, []byte("ConfigMap")) || bytes.Contains(data, []byte("Secret"))
}

// entries are the entries of the workspace and of files (the run's), as
// d.findEntries finds them: kept from the last run when nothing they were
// found from changed.
func (w *Workspace) entries(d *discovery, files []string) []*gitops.Entry {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pendingMu.Lock()
	changed, forget := slices.Sorted(maps.Keys(w.changed)), w.forget
	clear(w.changed)
	w.forget = false
	w.pendingMu.Unlock()

	if w.candidates == nil {
		w.candidates = w.walk(d.jobs) // as it is now: nothing pending matters
		changed = nil
	}
	w.stale = w.stale || forget
	w.forgetReads(changed, forget)
	for _, f := range changed {
		now := w.candidate(f)
		w.stale = w.stale || w.candidates[f] || w.deps[f] || now
		if now {
			w.candidates[f] = true
		} else {
			delete(w.candidates, f)
		}
	}
	// A file outside the folder, or an open buffer the editor has not
	// reported yet, is read too.
	all := maps.Clone(w.candidates)
	for _, f := range files {
		if !all[f] && (!w.Holds(f) || w.candidate(f)) {
			all[f] = true
		}
	}
	list := slices.Sorted(maps.Keys(all))
	key := strings.Join(list, "\x00")
	if !w.stale && key == w.key && !w.generated.Moved() {
		return w.kept
	}
	w.generated = &gitops.Inputs{}
	w.forgetReads(nil, true) // of entries no longer kept
	w.kept, w.key, w.stale = d.findEntries(list, w.generated), key, false
	w.deps = map[string]bool{}
	for _, f := range w.generated.Files {
		w.deps[f] = true
	}
	for _, e := range w.kept {
		if by := e.AppliedBy; by != nil {
			for f := range d.gitopsReads(by) {
				w.deps[f] = true
			}
		}
	}
	return w.kept
}

// readsOf is the files e's build reads: kept from an earlier run, else
// what read returns, kept.
func (w *Workspace) readsOf(e *gitops.Entry, read func() map[string]bool) map[string]bool {
	w.readsMu.Lock()
	r, ok := w.reads[e]
	w.readsMu.Unlock()
	if ok {
		return r
	}
	r = read()
	w.readsMu.Lock()
	if w.reads == nil {
		w.reads = map[*gitops.Entry]map[string]bool{}
	}
	w.reads[e] = r
	w.readsMu.Unlock()
	return r
}

// forgetReads drops the kept reads of the entries that read a changed
// file (a kustomization that now lists others), or all of them when a
// file was created or removed (a folder without a kustomization, which
// Flux builds from the files it holds).
func (w *Workspace) forgetReads(changed []string, all bool) {
	w.readsMu.Lock()
	defer w.readsMu.Unlock()
	if all {
		clear(w.reads)
		return
	}
	for e, r := range w.reads {
		for _, f := range changed {
			if r[f] {
				delete(w.reads, e)
				break
			}
		}
	}
}

// walk lists the candidates among the files the command line reads in the
// folder.
func (w *Workspace) walk(jobs int) map[string]bool {
	found := map[string]bool{}
	sources, err := manifest.Expand([]string{w.dir}, "")
	if err != nil {
		return found
	}
	var files []string
	for _, s := range sources {
		if s.Problem == nil {
			files = append(files, absPath(s.Name))
		}
	}
	is := make([]bool, len(files))
	parallel.For(len(files), jobs, func(i int) { is[i] = w.candidate(files[i]) })
	for i, f := range files {
		if is[i] {
			found[f] = true
		}
	}
	return found
}

// workspaceUnits keeps, of the units of the workspace's entries, those the
// files named need: the entries their files belong to, those written in
// a file named, and, as peers, the Flux entries of the same clusters as
// any of them (the ordering step may compare what a cluster's entries
// apply). The others are not linted: what they find is in files not
// asked about.
func workspaceUnits(req *request, units []*unit, unitsOf [][]*unit) []*unit {
	need := map[*unit]bool{}
	for _, us := range unitsOf {
		for _, u := range us {
			need[u] = true
		}
	}
	for _, u := range units {
		if u.gitops != nil {
			if _, asked := req.display(u.gitops.At.File); asked {
				need[u] = true
			}
		}
	}
	keep := maps.Clone(need)
	nodes := fluxGraph(units)
	for _, n := range nodes {
		if !keep[units[n.unit]] {
			continue
		}
		for _, m := range nodes {
			if sameCluster(n, m) {
				keep[units[m.unit]] = true
			}
		}
	}
	for u := range keep {
		u.peer = !need[u]
	}
	unpeerShared(units, need)
	return slices.DeleteFunc(units, func(u *unit) bool { return u.gitops != nil && !need[u] && !u.peer })
}
