// Package suggest finds the name a user probably meant, for "did you mean"
// hints on unknown fields, rules and configuration keys.
package suggest

import (
	"fmt"
	"slices"
	"strings"
)

// maxDistance is the largest edit distance still taken for a typo.
const maxDistance = 2

// Closest returns the candidate nearest to name (case-insensitively), or ""
// when none is close enough. Ties go to the alphabetically first
// candidate so hints are deterministic.
func Closest(name string, candidates []string) string {
	best, bestDist := "", maxDistance+1
	for _, c := range slices.Sorted(slices.Values(candidates)) {
		if strings.EqualFold(c, name) {
			return c
		}
		if d := Distance(strings.ToLower(name), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Hint formats Closest as ` (did you mean "x"?)`, or "" without a match.
func Hint(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// Distance is the Levenshtein edit distance between a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
