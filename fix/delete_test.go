package fix_test

import "testing"

// TestDeleteKeepsStyle makes review-versions' safe fix (remove a
// duplicate version) in each way a list can be written: a block entry's
// line, a one-line flow entry with its comma, and in a flow list written
// one entry a line (pretty JSON) the entry's line, or for the last entry
// the entry and the comma before it (the JSON cases were found by the
// fuzz differential set, fuzz-json-023). The cases are in
// testdata/delete (textCases).
func TestDeleteKeepsStyle(t *testing.T) {
	for _, c := range textCases(t, "delete") {
		t.Run(c.name, func(t *testing.T) {
			if got := fixAll(t, c.name, c.in, false); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
