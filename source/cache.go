package source

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/gitops"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// Step 3 with a cache (--cache-dir): a unit whose entry is valid is not
// loaded, its stored findings are; any other is linted while the cache
// records what it reads, and stored. The entry's key is what is known of
// the unit before it is loaded (discovery's description of it); the
// cache adds the run's configuration and checks the inputs recorded.

// cachedLint returns the unit's result from c, or lints it with lint and
// stores the result in c.
func cachedLint(c *cache.Cache, u *unit, lint func() *unitResult) *unitResult {
	key, ok := u.cacheKey()
	if c == nil || !ok {
		return lint()
	}
	if data, hit := c.Lookup(key); hit {
		if r, ok := decodeResult(data); ok {
			return r
		}
	}
	// A build made during discovery is linted instead of building it
	// again: what it read is among the unit's inputs.
	var built cache.Reads
	if u.prebuilt != nil {
		built = u.prebuilt.reads
	}
	w := c.Begin()
	r := lint()
	data, ok := encodeResult(r)
	if !ok {
		w.End()
		return r
	}
	c.Store(key, w, data, built)
	return r
}

// cacheKey describes the unit as discovery made it: every field that
// loading and linting it read. Units read from stdin are not cached.
func (u *unit) cacheKey() ([]byte, bool) {
	if u.kind == fileUnit && u.file.Stdin {
		return nil, false
	}
	src := func(s manifest.Source) [2]string {
		problem := ""
		if s.Problem != nil {
			problem = s.Problem.Error()
		}
		return [2]string{s.Name, problem}
	}
	var files [][2]string
	for _, f := range u.files {
		files = append(files, src(f))
	}
	data, err := json.Marshal(struct {
		Kind                                  string
		Dir                                   string
		Files                                 [][2]string
		File                                  [2]string
		Recursive, Entry, Base                bool
		BaseBy, DisabledBy, ArchivedBy, Shown string
		Deployed, Together                    Fact
		Chart                                 Chart
		Reads, ReadDirs, Cycle                []string
		CycleAt                               diag.Span
		Gitops                                *gitops.Entry
		Notes                                 []diag.Diagnostic
		NotesDependOnOverlay                  []bool
	}{
		Kind: u.kind.name(), Dir: u.dir, Files: files, File: src(u.file),
		Recursive: u.recursive, Entry: u.entry, Base: u.base,
		BaseBy: u.baseBy, DisabledBy: u.disabledBy, ArchivedBy: u.archivedBy, Shown: u.shown,
		Deployed: u.deployed, Together: u.together, Chart: u.chart,
		Reads: slices.Sorted(maps.Keys(u.reads)), ReadDirs: u.readDirs, Cycle: u.cycle, CycleAt: u.cycleAt,
		Gitops: u.gitops, Notes: u.notes, NotesDependOnOverlay: dependsOnOverlay(u.notes),
	})
	return data, err == nil
}

func dependsOnOverlay(ds []diag.Diagnostic) []bool {
	var out []bool
	for _, d := range ds {
		out = append(out, d.DependsOnOverlay)
	}
	return out
}

// storedResult is a unitResult as kept in the cache: the findings as
// located, before they are reported, so every output format prints a hit
// as it prints a unit linted now. gob keeps every field of a finding
// byte for byte, the unexported-to-JSON DependsOnOverlay included.
//
// The findings follow it in messages of resultBatch each, N in all: gob
// reads a message whole into a buffer of its own, so the 120,000 findings
// of a folder of broken configurations, one message, were held twice
// while a hit decoded them (and twice while a miss encoded them).
type storedResult struct {
	N                 int
	Failed, Base      bool
	Configs, Policies int
	CRDs              int
	Chart             string
	Applied           *applied // what a Flux entry's unit applies (order.go)
}

const resultBatch = 1024

// encodeResult encodes r, unless it must not be reused: a rule panicked
// (the panic is reported again) or the unit read stdin.
func encodeResult(r *unitResult) ([]byte, bool) {
	if len(r.internal) > 0 || r.stdin != nil {
		return nil, false
	}
	var msgs messages
	enc := gob.NewEncoder(&msgs)
	err := enc.Encode(storedResult{
		N: len(r.diags), Failed: r.failed, Base: r.base,
		Configs: r.configs, Policies: r.policies, CRDs: r.crds, Chart: r.chart,
		Applied: r.applied,
	})
	for ds := r.diags; err == nil && len(ds) > 0; ds = ds[min(len(ds), resultBatch):] {
		err = enc.Encode(ds[:min(len(ds), resultBatch)])
	}
	return bytes.Join(msgs, nil), err == nil
}

// messages keeps each message gob writes, to be joined once at its size:
// a buffer grown by doubling held up to three times the entry at once.
type messages [][]byte

func (m *messages) Write(p []byte) (int, error) {
	*m = append(*m, bytes.Clone(p))
	return len(p), nil
}

func decodeResult(data []byte) (*unitResult, bool) {
	dec := gob.NewDecoder(bytes.NewReader(data))
	var s storedResult
	if err := dec.Decode(&s); err != nil || s.N < 0 {
		return nil, false
	}
	var diags []diag.Diagnostic
	strs := sharedStrings{}
	if s.N > 0 {
		// A finding takes more than a byte of the entry: a count that
		// says otherwise sizes nothing.
		diags = make([]diag.Diagnostic, 0, min(s.N, len(data)))
	}
	for len(diags) < s.N {
		var batch []diag.Diagnostic
		if err := dec.Decode(&batch); err != nil || len(batch) == 0 || len(diags)+len(batch) > s.N {
			return nil, false
		}
		strs.diagnostics(batch)
		diags = append(diags, batch...)
	}
	return &unitResult{
		diags: diags, failed: s.Failed, base: s.Base,
		configs: s.Configs, policies: s.Policies, crds: s.CRDs, chart: s.Chart,
		applied: s.Applied,
	}, true
}

// sharedStrings makes the equal strings of decoded findings one string.
// gob gives every finding its own copy of its file, rule, message and
// path, which a unit's findings repeat: the 120,000 findings of 24,000
// broken configurations hold a few thousand distinct strings. A plain map,
// not an intern.Table: one decoder uses it, and it goes with the decode.
type sharedStrings map[string]string

func (m sharedStrings) string(s *string) {
	if *s == "" {
		return
	}
	if c, ok := m[*s]; ok {
		*s = c
		return
	}
	m[*s] = *s
}

func (m sharedStrings) diagnostics(ds []diag.Diagnostic) {
	for i := range ds {
		d := &ds[i]
		m.span(&d.Span)
		m.string(&d.Rule)
		m.string(&d.Message)
		m.string(&d.Path)
		m.string(&d.Webhook)
		m.string(&d.Origin)
		m.object(d.Object)
		if u := d.Unchecked; u != nil {
			m.string(&u.Noun)
			m.string(&u.Name)
			m.string(&u.Source)
		}
		for j := range d.Related {
			r := &d.Related[j]
			m.span(&r.Span)
			m.string(&r.Message)
			m.string(&r.Path)
			m.object(r.Object)
		}
		for j := range d.Units {
			m.string(&d.Units[j])
		}
		for j := range d.Fixes {
			f := &d.Fixes[j]
			m.string(&f.Message)
			for k := range f.Edits {
				m.string(&f.Edits[k].File)
				m.string(&f.Edits[k].NewText)
			}
		}
	}
}

func (m sharedStrings) span(s *diag.Span) { m.string(&s.File) }

func (m sharedStrings) object(o *diag.Object) {
	if o != nil {
		m.string(&o.APIVersion)
		m.string(&o.Kind)
		m.string(&o.Name)
		m.string(&o.Namespace)
	}
}

// Discovery's walk with a cache: the folders of a scope that hold a
// kustomization, with their texts, and its charts (kustomizationFolders)
// are the discovery index. Naming one file in a monorepo of thousands of
// folders costs mostly that walk, and the index is checked in a fraction
// of it: a stat of each folder and kustomization file (cache.LookupInputs),
// their listings and texts compared only where a stat moved. What is built
// from the index (which kustomizations read the file, the units) is
// computed again from it, so it is exactly what a walk would give.

// scopeFolders is kustomizationFolders(root), kept by Watched when the
// editor server's client reports the changes on disk; else from the cache
// when its index of root is valid; else walked, reading every
// kustomization's text so that the index serves any later run, and stored.
func (d *discovery) scopeFolders(root string) ([]kustFolder, []string) {
	if w := d.so.Watched; w != nil {
		return w.scopeFolders(root, d.jobs)
	}
	c := d.so.Cache
	if c == nil {
		return kustomizationFolders(root, d.jobs, d.lazyKusts)
	}
	key := cache.IndexKey(root)
	if data, ok := c.LookupInputs(key); ok {
		if found, charts, ok := decodeWalk(data); ok {
			return found, charts
		}
	}
	if d.jobs > 1 {
		go kustomize.Warm() // beside the walk, as Lint does without the cache
	}
	began := time.Now()
	var inputs []cache.Input
	found, charts := walkKustomizations(root, d.jobs, true, &inputs)
	// Each text is scanned once, for the runs the index serves: a run
	// that names one file scans them all (kustScope).
	parallel.For(len(found), d.jobs, func(i int) {
		if k := &found[i]; k.file != "" {
			s := scanKustText(k.dir, k.text, root, charts)
			k.scan = &s
		}
	})
	c.StoreInputs(key, began, inputs, encodeWalk(found, charts))
	return found, charts
}

// encodeWalk writes a walk's answer as strings with their length before
// them; a text is written with a flag, nil (not read) and empty apart,
// and with its scan, when there is one (2: its escape flag and paths).
func encodeWalk(found []kustFolder, charts []string) []byte {
	n := 0
	for _, k := range found {
		n += len(k.dir) + len(k.file) + len(k.text) + 16
	}
	b := make([]byte, 0, n)
	str := func(s []byte) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	strs := func(ss []string) {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			str([]byte(s))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(found)))
	for _, k := range found {
		str([]byte(k.dir))
		str([]byte(k.file))
		switch {
		case k.text == nil:
			b = append(b, 0)
		case k.scan == nil:
			b = append(b, 1)
			str(k.text)
		default:
			b = append(b, 2)
			str(k.text)
			if k.scan.escape {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
			strs(k.scan.dotTargets)
			strs(k.scan.leaving)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(charts)))
	for _, c := range charts {
		str([]byte(c))
	}
	return b
}

func decodeWalk(b []byte) (found []kustFolder, charts []string, ok bool) {
	bad := false
	uvarint := func() int {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > uint64(len(b)) {
			bad = true
			return 0
		}
		b = b[n:]
		return int(v)
	}
	bytesOf := func() []byte {
		n := uvarint()
		if bad || n > len(b) {
			bad = true
			return nil
		}
		s := b[:n:n]
		b = b[n:]
		return s
	}
	// A scan's paths are few (most texts have none), so they are strings
	// of their own.
	strs := func() []string {
		var out []string
		for range uvarint() {
			if p := bytesOf(); !bad {
				out = append(out, string(p))
			}
		}
		return out
	}
	scanOf := func() *kustScan {
		if bad || len(b) == 0 || b[0] > 1 {
			bad = true
			return nil
		}
		s := kustScan{escape: b[0] == 1}
		b = b[1:]
		s.dotTargets, s.leaving = strs(), strs()
		if !s.escape && s.dotTargets == nil && s.leaving == nil {
			return noScan
		}
		return &s
	}
	// The paths are cut from one string of them all, made once the walk's
	// answer is read and their size known: a monorepo's index has
	// thousands of folders, and two strings of their own for each were
	// most of what decoding it allocated. spans are each path's start in
	// the answer and its end.
	whole := b
	var spans []int
	size := 0
	path := func() {
		p := bytesOf()
		end := len(whole) - len(b)
		spans = append(spans, end-len(p), end)
		size += len(p)
	}
	n := uvarint()
	found = make([]kustFolder, 0, n)
	spans = make([]int, 0, min(4*n, len(b)))
	for range n {
		path()
		path()
		if bad || len(b) == 0 {
			return nil, nil, false
		}
		var k kustFolder
		flag := b[0]
		b = b[1:]
		if flag > 2 {
			return nil, nil, false
		}
		if flag > 0 {
			k.text = bytesOf()
			if k.text == nil {
				k.text = []byte{}
			}
		}
		if flag == 2 {
			k.scan = scanOf()
		}
		found = append(found, k)
	}
	for range uvarint() {
		path()
	}
	if bad || len(b) != 0 {
		return nil, nil, false
	}
	var paths strings.Builder
	paths.Grow(size)
	for i := 0; i < len(spans); i += 2 {
		paths.Write(whole[spans[i]:spans[i+1]])
	}
	all, start := paths.String(), 0
	next := func() string {
		end := start + spans[1] - spans[0]
		s := all[start:end]
		start, spans = end, spans[2:]
		return s
	}
	for i := range found {
		found[i].dir, found[i].file = next(), next()
	}
	for len(spans) > 0 {
		charts = append(charts, next())
	}
	return found, charts, true
}
