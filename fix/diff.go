package fix

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
)

// context is how many unchanged lines a hunk shows around a change, as
// diff -u does.
const context = 3

// change replaces the old lines [from, to) with text.
type change struct {
	from, to int
	text     []byte
}

// Diff writes the unified diff of one file's sorted edits, naming the file
// a/name and b/name as patch -p1 reads them. The edits say which lines
// change, so no diff algorithm is needed: each run of changed lines is
// replaced by its edited text.
func Diff(w io.Writer, name string, data []byte, edits []diag.Edit) error {
	if len(edits) == 0 {
		return nil
	}
	lines := splitLines(data)
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	// lineOf is the 0-based line holding byte off (the last line for the
	// end of the file).
	lineOf := func(off int) int {
		i := sort.Search(len(lines), func(i int) bool { return starts[i+1] > off })
		return min(i, max(len(lines)-1, 0))
	}
	var changes []change
	for i := 0; i < len(edits); {
		from := lineOf(edits[i].Offset)
		to := lineOf(max(edits[i].EndOffset-1, edits[i].Offset)) + 1
		if e := edits[i]; e.Offset == e.EndOffset && strings.HasSuffix(e.NewText, "\n") {
			// Whole lines inserted at a line's start (or after the last
			// line break): no line of the file changes.
			if k, ok := slices.BinarySearch(starts, e.Offset); ok && (k < len(lines) || len(lines) > 0 && bytes.HasSuffix(data, []byte("\n"))) {
				from, to = k, k
			}
		}
		j := i + 1
		for j < len(edits) && lineOf(edits[j].Offset) < to {
			to = max(to, lineOf(max(edits[j].EndOffset-1, edits[j].Offset))+1)
			j++
		}
		if len(lines) == 0 {
			from, to = 0, 0
		}
		text, err := Apply(data[starts[from]:starts[to]], shift(edits[i:j], -starts[from]))
		if err != nil {
			return err
		}
		changes = append(changes, change{from, to, text})
		i = j
	}
	if _, err := fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", name, name); err != nil {
		return err
	}
	delta := 0 // new lines minus old lines of the hunks written
	for i := 0; i < len(changes); {
		j := i + 1
		for j < len(changes) && changes[j].from-changes[j-1].to <= 2*context {
			j++
		}
		from := max(changes[i].from-context, 0)
		to := min(changes[j-1].to+context, len(lines))
		var body bytes.Buffer
		oldN, newN := 0, 0
		at := from
		context := func(end int) {
			for ; at < end; at++ {
				writeLine(&body, ' ', lines[at])
				oldN++
				newN++
			}
		}
		for _, c := range changes[i:j] {
			context(c.from)
			for ; at < c.to; at++ {
				writeLine(&body, '-', lines[at])
				oldN++
			}
			for _, l := range splitLines(c.text) {
				writeLine(&body, '+', l)
				newN++
			}
		}
		context(to)
		if _, err := fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(from, oldN), hunkRange(from+delta, newN)); err != nil {
			return err
		}
		if _, err := w.Write(body.Bytes()); err != nil {
			return err
		}
		delta += newN - oldN
		i = j
	}
	return nil
}

// splitLines cuts text after each line break; the last line may lack one.
func splitLines(text []byte) [][]byte {
	var out [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			return append(out, text)
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

func writeLine(b *bytes.Buffer, mark byte, line []byte) {
	b.WriteByte(mark)
	b.Write(line)
	if !bytes.HasSuffix(line, []byte{'\n'}) {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// hunkRange is a hunk's "start,count" for lines from the 0-based from; an
// empty range names the line before it, as diff -u does.
func hunkRange(from, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", from)
	}
	return fmt.Sprintf("%d,%d", from+1, n)
}

func shift(edits []diag.Edit, by int) []diag.Edit {
	out := make([]diag.Edit, len(edits))
	for i, e := range edits {
		e.Offset += by
		e.EndOffset += by
		out[i] = e
	}
	return out
}
