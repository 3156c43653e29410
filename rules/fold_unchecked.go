package rules

import (
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
)

// FoldUnchecked reports a rule's could-not-check notices (findings with
// diag.Unchecked: a remote chart, folder or kustomize reference not read
// offline) as one finding per rule and run: one gap, one finding, so a
// tree that names a dozen remote charts does not bury its findings under
// a dozen alike. It is at the first notice (ds order), its message (the
// rule's Unchecked) counting the notices and the distinct sources they
// name (two entries naming one folder are one source) and naming the first
// few, each other notice a related location naming its source. It runs on
// the report's findings after suppressions, so a silenced notice leaves
// the count. A single notice keeps its own message. ds is sorted by
// diag.Compare; so is the result.
func FoldUnchecked(ds []diag.Diagnostic) []diag.Diagnostic {
	type same struct {
		rule, units string
		severity    diag.Severity
	}
	var groups map[same][]int
	var order []same
	for i := range ds {
		d := &ds[i]
		if d.Unchecked == nil || len(d.Fixes) > 0 {
			continue
		}
		if r, ok := Lookup(d.Rule); !ok || r.Unchecked == nil {
			continue
		}
		if groups == nil {
			groups = map[same][]int{}
		}
		k := same{d.Rule, strings.Join(d.Units, "\x00"), d.Severity}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	folded := make([]bool, len(ds))
	folding := false
	for _, k := range order {
		at := groups[k]
		if len(at) < 2 {
			continue
		}
		folding = true
		first := &ds[at[0]]
		related := make([]diag.Related, 0, len(at)-1+len(first.Related))
		var nouns, names []string
		for n, i := range at {
			d := &ds[i]
			nouns, names = append(nouns, d.Unchecked.Noun), append(names, d.Unchecked.Name)
			if n == 0 {
				continue
			}
			folded[i] = true
			related = append(related, diag.Related{
				Span:    d.Span,
				Message: d.Unchecked.Source,
			})
		}
		sources := distinct(names)
		first.Message = MustLookup(k.rule).Unchecked(len(at), len(sources), nounFor(nouns, len(sources)), listNames(sources, 3))
		first.Related = append(related, first.Related...)
	}
	if !folding {
		return ds
	}
	return withoutFolded(ds, folded)
}

// nounFor is what the notices are about, for n of them: their common
// noun, or "source" when they differ; plural unless n is 1.
func nounFor(nouns []string, n int) string {
	slices.Sort(nouns)
	noun := nouns[0]
	if noun != nouns[len(nouns)-1] {
		noun = "source"
	}
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// distinct is the names once each, sorted: the sources the notices name.
// The folded line lists the first three ("argo-cd, cert-manager, dex and
// 7 more"); the related locations name them all.
func distinct(names []string) []string {
	slices.Sort(names)
	return slices.Compact(names)
}

// UncheckedSources counts the distinct sources the could-not-check notices
// of ds name (by noun and name, as the folded findings count them): what a
// run's summary says was not checked.
func UncheckedSources(ds []diag.Diagnostic) int {
	seen := map[diag.Unchecked]bool{}
	for _, d := range ds {
		if d.Unchecked != nil {
			seen[diag.Unchecked{Noun: d.Unchecked.Noun, Name: d.Unchecked.Name}] = true
		}
	}
	return len(seen)
}
