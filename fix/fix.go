// Package fix applies the fixes findings carry (diag.Fix) to files: it
// picks which fixes to make, makes their edits, and writes a unified diff
// of the result. The CLI's --fix and --diff and the language server's code
// actions share it.
package fix

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/webhooklint/webhooklint/diag"
)

// Select picks at most one fix per diagnostic (its first allowed one),
// safe fixes only unless unsafe is set, and skips a fix whose edits touch
// what an earlier pick edits: what it fixes is looked at again on the next
// run. Two findings with the same fix (one edit) make it once. It returns
// each file's edits, sorted, and the number of diagnostics fixed.
func Select(ds []diag.Diagnostic, unsafe bool) (map[string][]diag.Edit, int) {
	byFile := map[string][]diag.Edit{}
	fixed := 0
	for _, d := range ds {
		for _, f := range d.Fixes {
			if f.Applicability != diag.Safe && !unsafe {
				continue
			}
			if fits(byFile, f.Edits) {
				for _, e := range f.Edits {
					if !slices.Contains(byFile[e.File], e) {
						byFile[e.File] = append(byFile[e.File], e)
					}
				}
				for file := range byFile {
					diag.SortEdits(byFile[file])
				}
				fixed++
				break
			}
		}
	}
	return byFile, fixed
}

// fits reports whether edits can join the chosen ones: each is either one
// of them already or touches none of them.
func fits(chosen map[string][]diag.Edit, edits []diag.Edit) bool {
	for _, e := range edits {
		if slices.Contains(chosen[e.File], e) {
			continue
		}
		for _, c := range chosen[e.File] {
			if e.Offset < c.EndOffset && c.Offset < e.EndOffset || e.Offset == c.Offset {
				return false
			}
		}
	}
	return true
}

// Apply makes sorted, non-overlapping edits of one file to its text. Every
// byte outside the edits' spans is kept.
func Apply(data []byte, edits []diag.Edit) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(data))
	at := 0
	for _, e := range edits {
		if e.Offset < at || e.EndOffset < e.Offset || e.EndOffset > len(data) {
			return nil, fmt.Errorf("%s: edit of bytes %d to %d does not fit the file (%d bytes): it changed since it was linted", e.File, e.Offset, e.EndOffset, len(data))
		}
		out.Write(data[at:e.Offset])
		out.WriteString(e.NewText)
		at = e.EndOffset
	}
	out.Write(data[at:])
	return out.Bytes(), nil
}
