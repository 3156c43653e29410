package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
)

// OncePerFile reports the finding of a rule marked OnePerFile that is the
// same (severity and message) on several objects of one kind in one file
// once: at the first of them, its message counting them, the others as
// related locations. It runs on the report's findings, where each is in
// the file it is read in (a kustomize build's or a chart's findings are
// mapped back to their sources by then) and suppressions have dropped the
// ones an object silences, so the count is of the objects left to fix.
// The folded finding offers one fix for the file when every object's
// finding offers the same one (its edits are the union of theirs), and
// none otherwise: a fix that mends some of the objects would leave the
// count wrong. ds is sorted by diag.Compare; so is the result.
func OncePerFile(ds []diag.Diagnostic) []diag.Diagnostic {
	type same struct {
		file, rule, message, kind, units string
		severity                         diag.Severity
	}
	var groups map[same][]int
	for i := range ds {
		d := &ds[i]
		if d.File == "" || d.Object == nil || !onePerFile(d.Rule) {
			continue
		}
		if groups == nil {
			groups = map[same][]int{}
		}
		k := same{d.File, d.Rule, d.Message, d.Object.Kind, strings.Join(d.Units, "\x00"), d.Severity}
		groups[k] = append(groups[k], i)
	}
	folded := make([]bool, len(ds))
	folding := false
	for _, at := range groups {
		if len(at) < 2 {
			continue
		}
		folding = true
		first := &ds[at[0]]
		related := make([]diag.Related, 0, len(at)-1+len(first.Related))
		for _, i := range at[1:] {
			d := &ds[i]
			folded[i] = true
			obj := *d.Object
			related = append(related, diag.Related{
				Span: d.Span,
				Path: d.Path, Object: &obj, Message: fmt.Sprintf("also %s %q", obj.Kind, obj.Name),
			})
		}
		first.Message = fmt.Sprintf("%d %s in this file: %s", len(at), plural(first.Object.Kind), first.Message)
		first.Fixes = joinFixes(ds, at)
		first.Related = append(related, first.Related...)
	}
	if !folding {
		return ds
	}
	return withoutFolded(ds, folded)
}

// withoutFolded drops, in place, the findings folded into another.
func withoutFolded(ds []diag.Diagnostic, folded []bool) []diag.Diagnostic {
	out := ds[:0]
	for i := range ds {
		if !folded[i] {
			out = append(out, ds[i])
		}
	}
	return out
}

// joinFixes is the one fix of the findings at, each of which offers it
// first (the same message and applicability): their edits together. Nil
// when one finding does not, or the edits overlap.
func joinFixes(ds []diag.Diagnostic, at []int) []diag.Fix {
	var fix diag.Fix
	for k, i := range at {
		fs := ds[i].Fixes
		if len(fs) == 0 || k > 0 && (fs[0].Message != fix.Message || fs[0].Applicability != fix.Applicability) {
			return nil
		}
		if k == 0 {
			fix = diag.Fix{Message: fs[0].Message, Applicability: fs[0].Applicability}
		}
		for _, e := range fs[0].Edits {
			if !slices.Contains(fix.Edits, e) {
				fix.Edits = append(fix.Edits, e)
			}
		}
	}
	diag.SortEdits(fix.Edits)
	if diag.Overlapping(fix.Edits) {
		return nil
	}
	return []diag.Fix{fix}
}

// onePerFile reports whether rule is marked OnePerFile.
func onePerFile(rule string) bool {
	r, ok := Lookup(rule)
	return ok && r.OnePerFile
}

// plural is the plural of a Kubernetes kind, as the API's resource names
// form it (ValidatingAdmissionPolicy, ValidatingAdmissionPolicies).
func plural(kind string) string {
	if strings.HasSuffix(kind, "y") {
		return strings.TrimSuffix(kind, "y") + "ies"
	}
	return kind + "s"
}
