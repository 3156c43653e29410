package source

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

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
		asked: map[string]bool{}}
	d.kustScopes[root] = s
	// The walk lists folders and reads nothing: only a folder whose
	// listing has a kustomization file name can hold a kustomization, and
	// those files, a small part of a repository, are read in parallel.
	found, charts := d.scopeFolders(root)
	// Sized once: a monorepo's scope has thousands of kustomizations, which
	// these maps would otherwise move at every doubling.
	s.walked = make(map[string]bool, len(found))
	if len(d.walked) == 0 {
		d.walked = make(map[string]kustFolder, len(found))
	}
	for _, k := range found {
		s.walked[k.dir] = true
		d.walked[k.dir] = k
	}
	if d.lazyKusts {
		// In pieces of many texts: a text the index has scanned takes less
		// than handing a piece to a worker.
		const piece = 256
		texts := make([]kustText, len(found))
		parallel.For((len(found)+piece-1)/piece, d.jobs, func(n int) {
			for i := n * piece; i < min(len(found), (n+1)*piece); i++ {
				texts[i] = readKustText(found[i], root, charts)
			}
		})
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
