package source

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// kustFolder is a folder whose listing holds a kustomization file, that
// file when the listing tells which kustomize.FileIn would pick, and its
// text when the walk was asked to read it.
type kustFolder struct {
	dir, file string
	text      []byte
	// scan is what scanning text found, when the discovery index kept it.
	scan *kustScan
}

// kustomizationFolders lists the folders under root whose listing holds a
// kustomization file, sorted, as filepath.WalkDir would find them: hidden,
// vendor and node_modules folders are not entered, nor charts (a chart is
// rendered, not built), nor links to folders. Each level of the tree is
// listed on every CPU, and a kustomization file is read (withText) while
// its folder is open: a monorepo has thousands of folders, and listing
// them is most of what naming one file in it costs.
//
// charts are the chart folders the walk did not enter.
func kustomizationFolders(root string, jobs int, withText bool) (found []kustFolder, charts []string) {
	return walkKustomizations(root, jobs, withText, nil)
}

// walkKustomizations is kustomizationFolders, adding to inputs (when not
// nil) what its answer depends on, as the cache checks it: every folder's
// entries, every kustomization file's text, where a link named Chart.yaml
// leads.
func walkKustomizations(root string, jobs int, withText bool, inputs *[]cache.Input) (found []kustFolder, charts []string) {
	w := &kustWalk{withText: withText, inputs: inputs}
	level := []string{root}
	for len(level) > 0 {
		next := make([][]string, len(level))
		// Twice as many walkers as CPUs: each spends most of its time in
		// system calls, and two per CPU list a monorepo a third faster.
		parallel.For(len(level), 2*jobs, func(i int) { next[i] = w.visit(level[i]) })
		level = slices.Concat(next...)
	}
	slices.SortFunc(w.found, func(a, b kustFolder) int { return strings.Compare(a.dir, b.dir) })
	slices.Sort(w.charts)
	return w.found, w.charts
}

// kustWalk is what the walkers of walkKustomizations share; they visit
// the folders of a level at once, so every append holds mu.
type kustWalk struct {
	withText bool
	inputs   *[]cache.Input

	mu     sync.Mutex
	found  []kustFolder
	charts []string
}

func (w *kustWalk) input(in cache.Input) {
	if w.inputs != nil {
		w.mu.Lock()
		*w.inputs = append(*w.inputs, in)
		w.mu.Unlock()
	}
}

// visit lists one folder: it records the folder if it holds a
// kustomization file, or as a chart (then nothing in it is entered, as
// WalkDir would skip it), and returns the subfolders to walk next.
func (w *kustWalk) visit(dir string) (subs []string) {
	f, ok := openFolder(dir, w.inputs != nil)
	if !ok {
		w.input(cache.Input{Op: overlay.OpEntries, Path: dir, Sig: "error"})
		return nil
	}
	defer f.close()
	if w.inputs != nil {
		w.input(cache.Input{Op: overlay.OpEntries, Path: dir, Sig: f.entriesSig(), Stat: f.print.stat, Newest: f.print.newest})
	}
	var kinds []folderEntry
	for _, e := range f.entries {
		name := e.name
		switch {
		case e.mode.IsDir():
			if !skipDir(name) {
				subs = append(subs, joinPath(dir, name))
			}
		case name == "Chart.yaml" && isRegularFile(filepath.Join(dir, name), e.mode, w.input):
			w.mu.Lock()
			w.charts = append(w.charts, dir)
			w.mu.Unlock()
			return nil
		case isKustomizationName(name):
			kinds = append(kinds, e)
		}
	}
	if kinds != nil {
		k := kustFolder{dir: dir}
		if name := listedKustomization(kinds); name != "" {
			k.file = joinPath(dir, name)
			if w.withText {
				k.text = w.read(f, k.file, name)
			}
		}
		w.mu.Lock()
		w.found = append(w.found, k)
		w.mu.Unlock()
	}
	return subs
}

// read reads a kustomization file while its folder is open, or takes an
// editor's unsaved buffer of it, and records its text as an input.
func (w *kustWalk) read(f *folder, file, name string) []byte {
	text, ok := overlay.Get(file)
	var err error
	var p statPrint
	if !ok {
		text, p, err = f.read(name, w.inputs != nil)
	}
	if w.inputs != nil {
		sig := "error"
		if err == nil {
			sig = overlay.Sum(text)
		}
		w.input(cache.Input{Op: overlay.OpRead, Path: file, Sig: sig, Stat: p.stat, Newest: p.newest})
	}
	return text
}

// listedKustomization is the kustomization file name kustomize.FileIn
// would pick, from the kustomization names a folder's listing holds and
// their types; "" when only a stat can tell (a link, a name in another
// case).
func listedKustomization(kinds []folderEntry) string {
	for _, n := range kustomize.FileNames {
		i := slices.IndexFunc(kinds, func(e folderEntry) bool { return e.name == n })
		switch {
		case i < 0 || kinds[i].mode.IsDir():
			continue
		case kinds[i].mode.IsRegular():
			return n
		}
		return ""
	}
	return ""
}

// entriesSig is the folder's overlay.OpEntries signature, from its
// listing.
func (f *folder) entriesSig() string {
	names := make([]string, len(f.entries))
	types := make([]os.FileMode, len(f.entries))
	for i, e := range f.entries {
		names[i], types[i] = e.name, e.mode
	}
	return overlay.EntriesSig(names, types)
}

// statPrint is a fingerprint the walk took of an open folder or file for
// the cache (cache.Input's Stat and Newest); none when stat is "".
type statPrint struct {
	stat   string
	newest time.Time
}

// folderEntry is a name in a folder's listing and its type bits.
type folderEntry struct {
	name string
	mode os.FileMode
}

// isRegularFile reports whether an entry of this type at p is a regular
// file, following a link as helm.IsChart's stat does.
func isRegularFile(p string, mode os.FileMode, input func(cache.Input)) bool {
	if mode.IsRegular() {
		return true
	}
	if mode&os.ModeSymlink == 0 {
		return false
	}
	input(cache.Input{Op: overlay.OpStat, Path: p, Sig: overlay.Sign(overlay.OpStat, p)})
	fi, err := overlay.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// tokenBreaks are the bytes that end a path written in YAML or JSON. A
// folder whose path holds one of them is never looked up in kustomization
// texts: every kustomization is read instead.
const tokenBreaks = " \t\r\n\"'[]{},\\"

// kustText is a kustomization file's text, kept to tell which folders it
// may refer to without parsing it.
type kustText struct {
	dir  string
	text []byte
	// dotTargets are where its paths ending in "." or ".." lead ("..",
	// "../x/.."): their last element is not the name of what they name.
	dotTargets []string
	// unwalked: a path in it leads to a folder where the walk did not look
	// (outside the scope root, a hidden or vendored folder, a chart), whose
	// kustomization is in the graph only because something refers to it:
	// who refers to what cannot then be told from the walked texts.
	unwalked bool
}

func readKustText(k kustFolder, root string, charts []string) kustText {
	t := kustText{dir: k.dir, text: k.text}
	scan := k.scan
	if k.file == "" {
		file, ok := kustomize.FileIn(k.dir)
		if !ok {
			return t
		}
		t.text, _ = overlay.ReadFile(file)
		scan = nil
	}
	if scan == nil {
		s := scanKustText(k.dir, t.text, root, charts)
		scan = &s
	}
	t.dotTargets = scan.dotTargets
	t.unwalked = scan.escape || slices.ContainsFunc(scan.leaving, isDir)
	return t
}

// kustScan is what a kustomization's text tells without a parse: the
// paths in it whose last element is a dot, and those that lead where the
// walk does not look (leavesWalk), which make it unwalked if they are
// folders. It depends on the text, its folder, the scope root and the
// charts the walk skipped, all of them the discovery index's, so the
// index keeps it (encodeWalk); whether a path leaving the walk is a
// folder is not, and is looked at on every run.
type kustScan struct {
	dotTargets, leaving []string
	escape              bool // an escape can spell any path: unwalked
}

// noScan is the scan of most texts, shared.
var noScan = &kustScan{}

func scanKustText(dir string, text []byte, root string, charts []string) (s kustScan) {
	if bytes.IndexByte(text, '\\') >= 0 {
		s.escape = true
		return s
	}
	for start := 0; start < len(text); {
		if isBreak(text[start]) {
			start++
			continue
		}
		end := start
		for end < len(text) && !isBreak(text[end]) {
			end++
		}
		tok := text[start:end]
		start = end
		// Most words lead nowhere the walk missed and end in no dot; only
		// those that may are looked at further.
		skipped := hasSkippedElement(tok)
		leaves := skipped || len(charts) > 0 || bytes.Contains(tok, []byte(".."))
		dotted := endsInDot(tok)
		if !leaves && !dotted || inComment(text, end-len(tok)) {
			continue
		}
		p := joinPath(dir, string(tok))
		if leaves && leavesWalk(p, root, charts, skipped) {
			s.leaving = append(s.leaving, p)
		}
		if dotted {
			s.dotTargets = append(s.dotTargets, p)
		}
	}
	return s
}

// leavesWalk reports whether p, a clean path that a kustomization in a
// walked folder writes, is where the walk of root does not look: outside
// it, in a chart, or below a folder it skips. Only a path written with a
// skipped element (skipped) can lead below one: the folder it is written
// in has none.
func leavesWalk(p, root string, charts []string, skipped bool) bool {
	if !within(p, root) || slices.ContainsFunc(charts, func(c string) bool { return within(p, c) }) {
		return true
	}
	if !skipped {
		return false
	}
	rel, err := filepath.Rel(root, p)
	return err != nil || hasSkippedElement([]byte(filepath.ToSlash(rel)))
}

// joinPath is filepath.Join(dir, rel) for a clean absolute dir, built
// without cleaning it again when rel is plain (see plainJoin): the scan
// joins a path for every reference that climbs, in thousands of texts.
func joinPath(dir, rel string) string {
	if base, rest, ok := plainJoin(dir, rel); ok {
		return base + string(filepath.Separator) + rest
	}
	return filepath.Join(dir, rel)
}

// joinsTo reports whether filepath.Join(dir, rel) is target, for a clean
// absolute dir, without joining them when rel is plain.
func joinsTo(dir, rel, target string) bool {
	if base, rest, ok := plainJoin(dir, rel); ok {
		return len(target) == len(base)+1+len(rest) && strings.HasPrefix(target, base) &&
			target[len(base)] == filepath.Separator && strings.HasSuffix(target, rest)
	}
	return filepath.Join(dir, rel) == target
}

// plainJoin splits what joining rel to a clean absolute dir gives into an
// ancestor of dir and names below it, when rel is plain: "../" some times
// and then names, without "." or ".." among them, an empty name or a
// trailing slash, and climbing no higher than the root's child.
func plainJoin(dir, rel string) (base, rest string, ok bool) {
	if filepath.Separator != '/' || len(dir) < 2 || dir[0] != '/' || dir[len(dir)-1] == '/' {
		return "", "", false
	}
	for strings.HasPrefix(rel, "../") {
		i := strings.LastIndexByte(dir, '/')
		if i <= 0 {
			return "", "", false
		}
		dir, rel = dir[:i], rel[3:]
	}
	for name := range strings.SplitSeq(rel, "/") {
		if name == "" || name == "." || name == ".." {
			return "", "", false
		}
	}
	return dir, rel, true
}

func isDir(p string) bool {
	fi, err := overlay.Stat(p)
	return err == nil && fi.IsDir()
}

// hasSkippedElement reports whether a path has an element the walk does
// not enter (skipDir).
func hasSkippedElement(tok []byte) bool {
	for len(tok) > 0 {
		e, rest, _ := bytes.Cut(tok, []byte("/"))
		if len(e) > 0 && (e[0] == '.' || string(e) == "vendor" || string(e) == "node_modules") && skipDir(string(e)) {
			return true
		}
		tok = rest
	}
	return false
}

// endsInDot reports whether a path's last element is "." or "..".
func endsInDot(tok []byte) bool {
	if len(tok) == 0 || tok[len(tok)-1] != '.' && tok[len(tok)-1] != '/' {
		return false
	}
	tok = bytes.TrimRight(tok, "/")
	return bytes.HasSuffix(tok, []byte("/.")) || bytes.HasSuffix(tok, []byte("/..")) ||
		string(tok) == "." || string(tok) == ".."
}

// mayName reports whether the kustomization may refer to target: whether
// its text writes a path that resolves to target, or writes one in a form
// this byte scan cannot read as YAML would (an anchor or tag before it, a
// plain word around it), which only a parse can tell. (A text with an
// escape is never scanned: its scope parses everything.) A false "yes" costs
// a parse; a false "no" would lose a build, so every doubt answers yes.
// A path that resolves to target ends in target's name, unless its last
// element is a dot (dotTargets).
func (t *kustText) mayName(target string) bool {
	if slices.Contains(t.dotTargets, target) {
		return true
	}
	name := []byte(filepath.Base(target))
	for off := 0; ; {
		i := bytes.Index(t.text[off:], name)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(name)
		off = end
		for start > 0 && !isBreak(t.text[start-1]) {
			start--
		}
		for end < len(t.text) && !isBreak(t.text[end]) {
			end++
		}
		if inComment(t.text, start) {
			continue
		}
		if !scalarStarts(t.text, start) || !scalarEnds(t.text, end) {
			return true
		}
		if joinsTo(t.dir, string(t.text[start:end]), target) {
			return true
		}
	}
}

// inComment reports whether i is inside a comment: after a "#" that starts
// its line or follows a blank, with no quote before it on the line (which
// could make the "#" part of a quoted scalar). Commented-out references
// are common in kubebuilder's scaffolding ("#- ../prometheus"). A "#" in a
// block scalar's text is taken as a comment too: a reference cannot be
// written there, as a path with a newline is not one.
func inComment(text []byte, i int) bool {
	line := text[bytes.LastIndexByte(text[:i], '\n')+1 : i]
	h := bytes.IndexByte(line, '#')
	for h >= 0 {
		if h == 0 || line[h-1] == ' ' || line[h-1] == '\t' {
			return !bytes.ContainsAny(line[:h], `"'`)
		}
		next := bytes.IndexByte(line[h+1:], '#')
		if next < 0 {
			return false
		}
		h += 1 + next
	}
	return false
}

func isBreak(b byte) bool { return breaks[b] }

// breaks marks the bytes of tokenBreaks: scanning thousands of texts asks
// about every byte of them.
var breaks = func() (t [256]bool) {
	for i := range len(tokenBreaks) {
		t[tokenBreaks[i]] = true
	}
	return t
}()

// scalarStarts reports whether a scalar of YAML or JSON can begin at i:
// what comes before it on its line, blanks aside, is nothing, a sequence
// dash, a mapping colon or a flow bracket, comma or quote that itself
// opens a scalar. After anything else (an anchor, a tag, a word) the bytes
// at i may continue a longer scalar.
func scalarStarts(text []byte, i int) bool {
	if i > 0 && (text[i-1] == '"' || text[i-1] == '\'') {
		i-- // the quote must open a scalar itself
	}
	j := i
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	if j == 0 {
		return true
	}
	switch text[j-1] {
	case '\n', '[', '{', ',', ':', '?':
		return true
	case '-':
		return j-1 == 0 || strings.IndexByte(" \t\n", text[j-2]) >= 0
	}
	return false
}

// scalarEnds reports whether a scalar of YAML or JSON can end at i: what
// follows on its line, blanks aside, is nothing, a comment, a flow bracket
// or comma, a mapping colon, or a closing quote that itself ends there.
func scalarEnds(text []byte, i int) bool {
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	j := i
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j == len(text) {
		return true
	}
	switch text[j] {
	case '\r', '\n', ']', '}', ',', ':':
		return true
	case '#':
		return j > i // a comment needs a blank before it
	}
	return false
}
