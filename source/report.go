package source

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/engine"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// reportUnits keeps the findings located in requested files, adds the
// notes of base units, and merges units: a finding every unit using its
// file has is reported once; one that only some have names them. The
// configuration's suppressions apply before findings are folded.
func reportUnits(req *request, units []*unit, results []*unitResult, lo *lint.Options, so Options) *lint.Result {
	out := &lint.Result{}
	m := newFindingMerge(results)
	stdinData := map[string][]byte{}
	for i, r := range results {
		out.Configs += r.configs
		out.Policies += r.policies
		out.CRDs += r.crds
		out.Internal = append(out.Internal, r.internal...)
		if r.stdin != nil {
			stdinData[units[i].file.Name] = r.stdin
		}
		m.addUnit(req, i, units[i], r)
		r.diags = nil // copied: drop the unit's own slice
	}
	out.Diagnostics = m.single()
	readers := newReaderIndex(units, results)
	out.Diagnostics = append(out.Diagnostics, unitsNamed(m.found, readers, units, m.offeredBy)...)
	// Selection and severity overrides once more, for the findings made
	// here rather than by the engine (the engine's pass unchanged: it
	// applied them already, and kept demoted base findings at info).
	out.Diagnostics = diag.Normalize(supersededByPlaceholders(lo.Selection().Select(out.Diagnostics)))
	if so.Suppress != nil {
		out.Diagnostics = so.Suppress(out.Diagnostics)
	}
	// Last, when every finding is in the file it is read in.
	out.Diagnostics = rules.OncePerFile(out.Diagnostics)
	out.Unchecked = rules.UncheckedSources(out.Diagnostics)
	raiseUnchecked(out, lo.Selection().Severity)
	// A rule's could-not-check notices are one finding for the run; the
	// editor server, which shows each file its own findings, has them
	// unfolded.
	if !so.WholeUnits {
		out.Diagnostics = rules.FoldUnchecked(out.Diagnostics)
	}

	out.Files = reportedFiles(req, out.Diagnostics, stdinData)
	return out
}

// raiseUnchecked makes the could-not-check notices (a remote chart,
// folder or kustomize reference not read offline) warnings when the run
// linted no webhook configuration, admission policy or CRD: they are then
// all the user learns, and a run that checked nothing must not pass
// silently. Otherwise they stay info, as made: a fact about what the tool
// read, not about the tree, and nothing the user can fix in it; the
// summary counts them. A severity the configuration sets for the rule
// stays.
func raiseUnchecked(out *lint.Result, overrides map[string]diag.Severity) {
	if out.Unchecked == 0 || out.Configs > 0 || out.Policies > 0 || out.CRDs > 0 {
		return
	}
	for i := range out.Diagnostics {
		d := &out.Diagnostics[i]
		if _, set := overrides[d.Rule]; d.Unchecked != nil && !set {
			d.Severity = diag.Warning
		}
	}
}

// findingMerge gathers the findings of the units as reported, each once
// with the units that have it.
//
// One unit (a folder, a build) needs no merging: its findings are
// de-duplicated by sorting, which keeps the first of equal ones as the
// map does, without a hundred thousand map entries and copies (the
// findings are even kept in the unit's own slice).
type findingMerge struct {
	one   bool
	kept  []diag.Diagnostic // one unit: its findings, in place
	found []*located        // more units: each finding once, in the order found
	byID  map[findingID]*located
	// offeredBy lists the units that offer each fix (fixKey.key).
	offeredBy map[string][]int
}

func newFindingMerge(results []*unitResult) *findingMerge {
	if len(results) == 1 {
		return &findingMerge{one: true}
	}
	n := 0
	for _, r := range results {
		n += len(r.diags)
	}
	return &findingMerge{found: make([]*located, 0, n), byID: make(map[findingID]*located, n), offeredBy: map[string][]int{}}
}

// addUnit adds the findings of unit i (with a base's notes) named as
// asked, leaving out those located in files not asked about.
func (m *findingMerge) addUnit(req *request, i int, u *unit, r *unitResult) {
	ds := r.diags
	if r.base {
		ds = append(ds, baseNotes(ds, u.baseBy)...)
	}
	stdinUnit := u.kind == fileUnit && u.file.Stdin
	if m.one {
		m.kept = ds[:0] // in place: each finding is written where it was or before
	}
	for _, d := range ds {
		var fixes []fixKey
		if !m.one && len(d.Fixes) > 0 {
			fixes = fixKeys(d.Fixes)
			for _, k := range fixes {
				if !slices.Contains(m.offeredBy[k.key], i) {
					m.offeredBy[k.key] = append(m.offeredBy[k.key], i)
				}
			}
		}
		abs, ok := nameFinding(req, u, r.failed, stdinUnit, &d)
		if !ok {
			continue
		}
		if m.one {
			m.kept = append(m.kept, d)
			continue
		}
		id := identity(d)
		if l := m.byID[id]; l != nil {
			if !slices.Contains(l.units, i) {
				l.units = append(l.units, i)
			}
			continue
		}
		l := &located{d: d, abs: abs, units: []int{i}, fixes: fixes}
		m.byID[id] = l
		m.found = append(m.found, l)
	}
}

// single is the findings of the one unit, sorted and each once (nil with
// more units: theirs are in found).
func (m *findingMerge) single() []diag.Diagnostic {
	if !m.one {
		return nil
	}
	// diag.Compare orders by exactly what identity holds.
	slices.SortStableFunc(m.kept, diag.Compare)
	return slices.CompactFunc(m.kept, func(a, b diag.Diagnostic) bool { return diag.Compare(a, b) == 0 })
}

// located is a finding as reported (named as asked), with its file's
// absolute path and the units that have it.
type located struct {
	d     diag.Diagnostic
	abs   string
	units []int
	// fixes identify the finding's fixes, for agreedFixes.
	fixes []fixKey
}

// fixKey is a fix of a finding as units offer it: its edits, and the
// files they edit (absolute).
type fixKey struct {
	key   string
	files []string
}

func fixKeys(fixes []diag.Fix) []fixKey {
	out := make([]fixKey, len(fixes))
	for i, f := range fixes {
		var b strings.Builder
		for _, e := range f.Edits {
			abs := absPath(e.File)
			fmt.Fprintf(&b, "%s\x00%d\x00%d\x00%s\x00", abs, e.Offset, e.EndOffset, e.NewText)
			if !slices.Contains(out[i].files, abs) {
				out[i].files = append(out[i].files, abs)
			}
		}
		out[i].key = b.String()
	}
	return out
}

// agreedFixes keeps the fixes of a finding that every unit reading the
// files they edit offers too, on this finding or another (a base's list
// index differs between overlays that merge patches into it): a base
// fixed for one overlay would otherwise change what another builds,
// which has no such finding, or fixes it otherwise.
func agreedFixes(l *located, readers *readerIndex, offeredBy map[string][]int) []diag.Fix {
	var out []diag.Fix
	for i, f := range l.d.Fixes {
		k := l.fixes[i]
		if !slices.ContainsFunc(k.files, func(abs string) bool { return !containsAll(offeredBy[k.key], readers.of(abs)) }) {
			out = append(out, f)
		}
	}
	return out
}

// nameFinding names a finding of unit u as the report shows it, and its
// related locations and fixes: as the user named its file (a failed
// build's, or an entry's outside the paths asked, relative to the working
// folder). ok is false for a finding in a file not asked about. It
// returns the file's absolute path.
func nameFinding(req *request, u *unit, failed, stdinUnit bool, d *diag.Diagnostic) (abs string, ok bool) {
	abs = d.File
	if !stdinUnit {
		abs = absPath(d.File)
	}
	switch {
	case stdinUnit:
	case failed:
		d.File = req.name(abs)
	default:
		name, ok := req.display(abs)
		if !ok && u.entry && (req.skip == nil || !req.skip(abs)) {
			// An entry's build reports all it installs, bases included.
			name, ok = req.name(abs), true
		}
		if !ok {
			return "", false
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
	return abs, true
}

// unitsNamed returns the findings merged across units, each naming the
// units that have it when not every unit that reads its file does, and
// offering the fixes the units agree on.
func unitsNamed(found []*located, readers *readerIndex, units []*unit, offeredBy map[string][]int) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, l := range found {
		d := l.d
		if len(d.Fixes) > 0 {
			d.Fixes = agreedFixes(l, readers, offeredBy)
		}
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
		out = append(out, d)
	}
	return out
}

// reportedFiles lists the files the report counts: the requested ones,
// then those with findings. Snippets come from stdin's text, kept here,
// and from the other files, which the text report reads again from disk
// one at a time (report.FileSource).
func reportedFiles(req *request, diags []diag.Diagnostic, stdinData map[string][]byte) []*manifest.File {
	var files []*manifest.File
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
		files = append(files, f)
	}
	for _, s := range req.sources {
		addFile(s.Name, s.Stdin)
	}
	for _, d := range diags {
		addFile(d.File, stdinData[d.File] != nil)
	}
	return files
}

// readerIndex answers which units (that loaded) read a file, in units'
// order. Loose files and kustomizations name the files they read, so they
// are looked up by path; only charts, which read whole folders, are asked
// one by one. Asking every unit for every file was quadratic in a folder
// of loose files.
type readerIndex struct {
	byFile   map[string][]int
	byCovers []int // units that read whole folders (charts): asked with covers
	units    []*unit
	cache    map[string][]int
}

func newReaderIndex(units []*unit, results []*unitResult) *readerIndex {
	x := &readerIndex{byFile: map[string][]int{}, units: units, cache: map[string][]int{}}
	for i, u := range units {
		if results[i].failed {
			continue
		}
		files, byName := u.kind.reads(u)
		if !byName {
			x.byCovers = append(x.byCovers, i)
			continue
		}
		for abs := range files {
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
	for _, i := range x.byCovers {
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
		out = append(out, engine.LoweredNote(rules.KustomizeBaseRule, first[file], count[file],
			"kustomize base ("+by+")", "lint its overlay, or name it in units.entries"))
	}
	return out
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
			for p := d.Path; p != "" && !covered; p = fieldpath.Parent(p) {
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
