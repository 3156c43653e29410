package rules

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
)

// One cause, one finding, for every front end (the CLI's files, units and
// live clusters; the Go analyzer's markers and literals). A user reads every finding as "fix this", so a
// finding that only follows from another one on the same object is
// dropped and counted in the message of the finding that explains it, and
// a finding repeated many times in one object is shown a bounded number of
// times. What explains what is declared in one place each:
//
//   - a rule's ExplainedBy metadata (Rule): for example, findings
//     that follow from a v1beta1 default are explained by
//     unserved-api-version on the same object;
//   - a server error (a Server rule, strict decoding included, at error severity) explains
//     every practice finding on its field or below it: the object is
//     rejected for that field, so advice about the same field is moot.
//
// Rules that can tell causes apart only from their own data (one caBundle
// finding per configuration, self-deadlock before system-critical-scope)
// do it themselves; see those rules.

// MaxPerCause is how many findings of one rule with the same message shape
// one object shows; the rest are summed up in one finding.
const MaxPerCause = 20

// ExplainCauses applies both steps to diagnostics sorted by diag.Compare
// and returns them sorted. Diagnostics are grouped by file and Object: a
// front end without objects (none of its diagnostics has Object set)
// gets only the cap.
func ExplainCauses(ds []diag.Diagnostic) []diag.Diagnostic {
	return diag.Normalize(capRepeats(dropExplained(ds)))
}

// objectOf groups diagnostics by the object they are about.
type objectOf struct {
	file      string
	object    diag.Object
	hasObject bool
}

func keyOf(d *diag.Diagnostic) objectOf {
	k := objectOf{file: d.File}
	if o := d.Object; o != nil {
		k.object, k.hasObject = *o, true
	}
	return k
}

// dropExplained removes explained findings and notes them on their roots.
func dropExplained(ds []diag.Diagnostic) []diag.Diagnostic {
	// Candidate roots per object: indexes by rule, and server errors.
	type roots struct {
		byRule map[string][]int
		errors []int
	}
	// Only findings that can be roots are indexed, and only findings that
	// can be explained look for one: a unit of a hundred thousand findings
	// has few of either.
	perObject := map[objectOf]*roots{}
	for i := range ds {
		d := &ds[i]
		isRoot, isError := rootRules()[d.Rule], isServerError(d) && d.Path != ""
		if d.Object == nil || !isRoot && !isError {
			continue
		}
		k := keyOf(d)
		r := perObject[k]
		if r == nil {
			r = &roots{}
			perObject[k] = r
		}
		if isRoot {
			if r.byRule == nil {
				r.byRule = map[string][]int{}
			}
			r.byRule[d.Rule] = append(r.byRule[d.Rule], i)
		}
		if isError {
			r.errors = append(r.errors, i)
		}
	}
	explains := map[int][]string{} // root index → rules of the findings it explains
	dropped := make([]bool, len(ds))
	for i := range ds {
		d := &ds[i]
		if d.Object == nil {
			continue
		}
		r := perObject[keyOf(d)]
		if r == nil {
			continue // no root in its object
		}
		if root := explainingRoot(i, ds, r.byRule, r.errors); root >= 0 {
			dropped[i] = true
			explains[root] = append(explains[root], d.Rule)
		}
	}
	if len(explains) == 0 {
		return ds
	}
	out := ds[:0]
	for i := range ds {
		if dropped[i] {
			continue
		}
		d := ds[i]
		if rs, ok := explains[i]; ok {
			d.Message = alsoCauses(d.Message, rs)
		}
		out = append(out, d)
	}
	return out
}

// rootRules are the rules that some rule's ExplainedBy names as a root.
var rootRules = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, r := range All() {
		for _, e := range r.ExplainedBy {
			out[e.Root] = true
		}
	}
	return out
})

// explainingRoot returns the index of the finding that explains ds[at], or
// -1. A root is never itself explained (roots are unserved-api-version and
// server errors, which no rule declares explained), so notes are not lost.
func explainingRoot(at int, ds []diag.Diagnostic, byRule map[string][]int, errors []int) int {
	d := &ds[at]
	r, ok := Lookup(d.Rule)
	if !ok {
		return -1
	}
	for _, e := range r.ExplainedBy {
		if e.DefaultsOnly && !fieldpath.IsWebhook(d.Path) {
			continue
		}
		for _, i := range byRule[e.Root] {
			if i != at {
				return i
			}
		}
	}
	if r.Category != Practice {
		return -1
	}
	for _, i := range errors {
		if fieldpath.Within(d.Path, ds[i].Path) {
			return i
		}
	}
	return -1
}

// isServerError reports a finding that says the API server rejects the
// object at its path: a server rule's error, or strict decoding's. Other
// input findings (a forbidden suppression, a placeholder) say nothing about
// the field they sit on.
func isServerError(d *diag.Diagnostic) bool {
	if d.Severity != diag.Error {
		return false
	}
	r, ok := Lookup(d.Rule)
	return ok && r.Category == Server
}

// alsoCauses is the note appended to a root's message: the rules of the
// findings it explains, or only their number when the names would make
// the message too long to read on one line.
func alsoCauses(msg string, explained []string) string {
	var names []string
	for _, r := range explained {
		if !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	slices.Sort(names)
	// "also causes dry-run-side-effects" when each rule is one finding;
	// with the count when some are several.
	note := " (also causes " + strings.Join(names, ", ") + ")"
	if len(explained) > len(names) {
		note = fmt.Sprintf(" (also causes %d findings: %s)", len(explained), strings.Join(names, ", "))
	}
	if utf8.RuneCountInString(msg)+utf8.RuneCountInString(note) > maxNotedMessage {
		note = " (also causes 1 finding)"
		if len(explained) > 1 {
			note = fmt.Sprintf(" (also causes %d findings)", len(explained))
		}
	}
	return msg + note
}

// maxNotedMessage bounds a root's message with its note.
const maxNotedMessage = 130

// capRepeats keeps the first MaxPerCause findings of each rule and message
// shape in each object and replaces the rest with one finding that counts
// them, so that a generated or aliased input cannot flood the output.
func capRepeats(ds []diag.Diagnostic) []diag.Diagnostic {
	type cause struct {
		object      objectOf
		rule, shape string
	}
	type tally struct {
		n        int
		severity diag.Severity
	}
	// Most runs have no object with more than MaxPerCause findings of
	// one rule; then nothing is capped and no message needs its shape.
	type ruleOf struct {
		object objectOf
		rule   string
	}
	if !overPerFile(ds) {
		return ds
	}
	perRule := map[ruleOf]int{}
	over := false
	for i := range ds {
		k := ruleOf{keyOf(&ds[i]), ds[i].Rule}
		perRule[k]++
		over = over || perRule[k] > MaxPerCause
	}
	if !over {
		return ds
	}
	causes := make([]cause, len(ds))
	tallies := map[cause]*tally{}
	capped := false
	for i := range ds {
		d := &ds[i]
		c := cause{keyOf(d), d.Rule, messageShape(d.Message)}
		causes[i] = c
		t := tallies[c]
		if t == nil {
			t = &tally{}
			tallies[c] = t
		}
		t.n++
		t.severity = max(t.severity, d.Severity)
		capped = capped || t.n > MaxPerCause
	}
	if !capped {
		return ds
	}
	out := ds[:0]
	shown := map[cause]int{}
	for i := range ds {
		c := causes[i]
		shown[c]++
		switch n := shown[c]; {
		case n <= MaxPerCause:
			out = append(out, ds[i])
		case n == MaxPerCause+1:
			// The summary takes the place of the first finding left out.
			d := ds[i]
			t := tallies[c]
			d.Severity = t.severity
			d.Message = fmt.Sprintf("%d more %s findings like the %d above in this object are not shown; fix those first",
				t.n-MaxPerCause, d.Rule, MaxPerCause)
			out = append(out, d)
		}
	}
	return out
}

// overPerFile reports whether some file has more than MaxPerCause findings
// of one rule, which an object of it needs to have any capped. Sorted
// findings (by file first, as diag.Normalize leaves them) are counted file
// by file, without a map of every object of a unit.
func overPerFile(ds []diag.Diagnostic) bool {
	if !slices.IsSortedFunc(ds, func(a, b diag.Diagnostic) int { return strings.Compare(a.File, b.File) }) {
		return true // the exact count decides
	}
	perRule := map[string]int{}
	for i := range ds {
		if i > 0 && ds[i].File != ds[i-1].File {
			clear(perRule)
		}
		perRule[ds[i].Rule]++
		if perRule[ds[i].Rule] > MaxPerCause {
			return true
		}
	}
	return false
}

// messageShape is a message with its numbers blanked: findings that differ
// only by an index or a count share one shape.
func messageShape(msg string) string {
	var b strings.Builder
	b.Grow(len(msg))
	inDigits := false
	for _, r := range msg {
		if r >= '0' && r <= '9' {
			if !inDigits {
				b.WriteByte('#')
			}
			inDigits = true
			continue
		}
		inDigits = false
		b.WriteRune(r)
	}
	return b.String()
}
