package diag

import (
	"cmp"
	"slices"
)

// Applicability says whether a fix may be applied without a reader's
// review, as Ruff and rustc name it.
type Applicability string

const (
	// Safe fixes keep what the configuration means: they change how it is
	// written or what the API server would reject anyway, never which
	// requests reach the webhook or how they are answered.
	Safe Applicability = "safe"
	// Unsafe fixes change behavior: they are the change a maintainer
	// would most likely make, applied only when asked (--unsafe-fixes).
	Unsafe Applicability = "unsafe"
)

// Fix is a change that resolves a finding: a set of text edits applied
// together or not at all.
type Fix struct {
	// Message says what the fix does, one line: "list v1 first".
	Message       string        `json:"message"`
	Applicability Applicability `json:"applicability"`
	// Edits are sorted by file and offset and do not overlap.
	Edits []Edit `json:"edits"`
}

// Edit replaces the bytes [Offset, EndOffset) of File with NewText. The
// same span is given as 1-based lines and columns (code points, end
// exclusive) for readers that count that way, as an editor does. An
// insertion has Offset == EndOffset; a deletion an empty NewText.
type Edit struct {
	File      string `json:"file"`
	Offset    int    `json:"offset"`
	EndOffset int    `json:"endOffset"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	NewText   string `json:"newText"`
}

// SortEdits orders edits by file, then offset, then end.
func SortEdits(es []Edit) {
	slices.SortFunc(es, func(a, b Edit) int {
		if c := cmp.Compare(a.File, b.File); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Offset, b.Offset); c != 0 {
			return c
		}
		return cmp.Compare(a.EndOffset, b.EndOffset)
	})
}

// Overlapping reports whether two of the sorted edits touch the same
// bytes of a file. Two insertions at one offset overlap too: their order
// would be a guess.
func Overlapping(es []Edit) bool {
	for i := 1; i < len(es); i++ {
		a, b := es[i-1], es[i]
		if a.File == b.File && (b.Offset < a.EndOffset || b.Offset == a.Offset) {
			return true
		}
	}
	return false
}
