package manifest

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/rules"
)

// TextEdits turns the rules' fixes on this object into edits of its file,
// one list per fix, nil where a fix cannot be made here. Only text that
// is the file on disk is edited (not stdin, not a kustomize build or a
// rendered chart, whose findings are moved to other files), and only
// where the text holds the value the rule read: an alias, a tag or a
// multi-line scalar gets no fix rather than a wrong one.
func (d *Document) TextEdits(fixes []rules.FieldFix) [][]diag.Edit {
	if d.within == nil || d.Positions == nil {
		return make([][]diag.Edit, len(fixes))
	}
	src := d.within.source()
	out := make([][]diag.Edit, len(fixes))
	if src == nil {
		return out
	}
	for i, f := range fixes {
		out[i] = d.fixEdits(src, f)
	}
	return out
}

func (d *Document) fixEdits(src *source, f rules.FieldFix) []diag.Edit {
	var edits []diag.Edit
	for _, fe := range f.Edits {
		var e diag.Edit
		var ok bool
		switch {
		case fe.Insert:
			e, ok = d.insertField(src, fe)
		case fe.Delete:
			e, ok = d.deleteEntry(src, fe)
		default:
			e, ok = d.replaceScalar(src, fe)
		}
		if !ok {
			return nil
		}
		// Fields inserted at one place are one insertion, in the fix's order.
		if k := slices.IndexFunc(edits, func(o diag.Edit) bool {
			return o.Offset == e.Offset && o.EndOffset == o.Offset && e.EndOffset == e.Offset
		}); k >= 0 {
			edits[k].NewText += e.NewText
			continue
		}
		edits = append(edits, e)
	}
	diag.SortEdits(edits)
	if len(edits) == 0 || diag.Overlapping(edits) {
		return nil
	}
	return edits
}

// scalarAt is the byte span [start, end) within src.data of the scalar
// written at path, on line (src-relative), if it is written there as a
// one-line scalar whose value is old.
func (d *Document) scalarAt(src *source, path, old string) (line, start, end int, style yaml.Style, ok bool) {
	r, exact, found := d.Positions.Lookup(path, false)
	if !found || !exact || r.Line != r.EndLine {
		return 0, 0, 0, 0, false
	}
	line = r.Line - src.lineOffset
	text := src.line(line)
	if text == nil {
		return 0, 0, 0, 0, false
	}
	s, e := src.offset(line, text, r.Column), src.offset(line, text, r.EndColumn)
	if e <= s {
		return 0, 0, 0, 0, false
	}
	n, ok := scalarNode(text[s:e])
	if !ok || n.Value != old {
		return 0, 0, 0, 0, false
	}
	base := src.starts[line-1]
	return line, base + s, base + e, n.Style, true
}

// scalar is what a fix reads of a scalar's text.
type scalar struct {
	Value, Tag string
	Style      yaml.Style
}

// scalarNode decodes text that should be exactly one scalar.
func scalarNode(text []byte) (scalar, bool) {
	scalars.mu.Lock()
	r, seen := scalars.m[string(text)]
	scalars.mu.Unlock()
	if seen {
		return r.scalar, r.ok
	}
	r.scalar, r.ok = decodeScalar(text)
	scalars.mu.Lock()
	if len(scalars.m) < maxScalars && len(text) <= maxScalarText {
		scalars.m[string(text)] = r
	}
	scalars.mu.Unlock()
	return r.scalar, r.ok
}

func decodeScalar(text []byte) (scalar, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) != 1 {
		return scalar{}, false
	}
	n := doc.Content[0]
	if n.Kind != yaml.ScalarNode || n.Tag == "" || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) != 0 {
		return scalar{}, false
	}
	return scalar{Value: n.Value, Tag: n.Tag, Style: n.Style}, true
}

// scalars remembers decoded scalar texts for the whole process: a unit of
// thousands of configurations has a fix on the same few texts ("31",
// Unknown) in each, and a YAML parser made for each was 2 KB of garbage a
// configuration. Past maxScalars distinct texts it stops remembering, and
// it never keeps a long one (a caBundle).
var scalars = struct {
	mu sync.Mutex
	m  map[string]scalarResult
}{m: map[string]scalarResult{}}

type scalarResult struct {
	scalar
	ok bool
}

const (
	maxScalars    = 4096
	maxScalarText = 256
)

func (d *Document) replaceScalar(src *source, fe rules.FieldEdit) (diag.Edit, bool) {
	line, start, end, style, ok := d.scalarAt(src, fe.Path, fe.Old)
	if !ok {
		return diag.Edit{}, false
	}
	text, ok := scalarText(fe.New, fe.Number, style)
	if !ok {
		return diag.Edit{}, false
	}
	return d.edit(src, line, start, line, end, text), true
}

// scalarText writes v the way the scalar it replaces is written: in the
// same quotes, or plain where plain text reads back as the same string.
func scalarText(v string, number bool, style yaml.Style) (string, bool) {
	if number {
		if _, err := strconv.Atoi(v); err != nil {
			return "", false
		}
		return v, style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0
	}
	switch {
	case style&yaml.SingleQuotedStyle != 0:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'", !strings.ContainsAny(v, "\n")
	case style&yaml.DoubleQuotedStyle != 0 || !plainSafe(v):
		return strconv.Quote(v), true
	}
	return v, true
}

// plainSafe reports whether v reads back as the same string written
// plain, in block and flow context alike.
func plainSafe(v string) bool {
	if v == "" || strings.ContainsAny(v, ",[]{}#:&*!|>'\"%@`\n\t") || strings.TrimSpace(v) != v {
		return false
	}
	n, ok := scalarNode([]byte(v))
	return ok && n.Tag == "!!str" && n.Value == v
}

var (
	blockEntry = lazy.Regexp(`^[ \t]*-[ \t]+$`)
	flowComma  = lazy.Regexp(`^[ \t]*,[ \t]*$`)
)

// deleteEntry removes the list entry at fe.Path (…[k]): its whole line in
// a block sequence, or it and the comma before it (after it, for the
// first) in a flow sequence on one line.
func (d *Document) deleteEntry(src *source, fe rules.FieldEdit) (diag.Edit, bool) {
	list, k, ok := fieldpath.SplitIndex(fe.Path)
	if !ok {
		return diag.Edit{}, false
	}
	line, start, end, _, ok := d.scalarAt(src, fe.Path, fe.Old)
	if !ok {
		return diag.Edit{}, false
	}
	lineStart := src.starts[line-1]
	text := src.line(line)
	before, after := src.data[lineStart:start], bytes.TrimSpace(src.data[end:lineStart+len(text)])
	if blockEntry().Match(before) && (len(after) == 0 || after[0] == '#') {
		if line < len(src.starts) {
			return d.edit(src, line, lineStart, line+1, src.starts[line], ""), true
		}
		return d.edit(src, line, lineStart, line, lineStart+len(text), ""), true
	}
	if len(bytes.TrimSpace(before)) == 0 {
		return d.deleteFlowLine(src, fe.Path, line, start, end, after)
	}
	// A flow sequence: the neighbor on the same line, with only a comma
	// between.
	neighbor := k - 1
	if k == 0 {
		neighbor = 1
	}
	r, exact, found := d.Positions.Lookup(list+"["+strconv.Itoa(neighbor)+"]", false)
	if !found || !exact || r.Line != r.EndLine || r.Line-src.lineOffset != line {
		return diag.Edit{}, false
	}
	ns, ne := lineStart+src.offset(line, text, r.Column), lineStart+src.offset(line, text, r.EndColumn)
	if k == 0 && end <= ns && flowComma().Match(src.data[end:ns]) {
		return d.edit(src, line, start, line, ns, ""), true
	}
	if k > 0 && ne <= start && flowComma().Match(src.data[ne:start]) {
		return d.edit(src, line, ne, line, end, ""), true
	}
	return diag.Edit{}, false
}

// deleteFlowLine removes an entry of a flow sequence written one entry a
// line (pretty JSON), the entry [start, end) alone on its line: the line
// when a comma ends it, else (the last entry) the entry and the comma
// that ends the line of the entry before it.
func (d *Document) deleteFlowLine(src *source, path string, line, start, end int, after []byte) (diag.Edit, bool) {
	list, k, _ := fieldpath.SplitIndex(path)
	if string(after) == "," {
		lineStart := src.starts[line-1]
		if line < len(src.starts) {
			return d.edit(src, line, lineStart, line+1, src.starts[line], ""), true
		}
		return diag.Edit{}, false
	}
	if len(after) != 0 || k == 0 {
		return diag.Edit{}, false
	}
	if _, exact, found := d.Positions.Lookup(list+"["+strconv.Itoa(k+1)+"]", false); found && exact {
		return diag.Edit{}, false
	}
	r, exact, found := d.Positions.Lookup(list+"["+strconv.Itoa(k-1)+"]", false)
	if !found || !exact || r.Line != r.EndLine {
		return diag.Edit{}, false
	}
	pl := r.Line - src.lineOffset
	text := src.line(pl)
	if text == nil || pl >= line {
		return diag.Edit{}, false
	}
	pe := src.starts[pl-1] + src.offset(pl, text, r.EndColumn)
	if pe > start || string(bytes.TrimSpace(src.data[pe:start])) != "," {
		return diag.Edit{}, false
	}
	return d.edit(src, pl, pe, line, end, ""), true
}

// edit makes the edit of src.data's bytes [start, end) (start on line,
// end on endLine, both src-relative) in file coordinates.
func (d *Document) edit(src *source, line, start, endLine, end int, text string) diag.Edit {
	col := func(l, off int) int {
		if l > len(src.starts) {
			return 1
		}
		return utf8.RuneCount(src.data[src.starts[l-1]:off]) + 1
	}
	return diag.Edit{
		File: d.File, Offset: src.fileOffset + start, EndOffset: src.fileOffset + end,
		Line: line + src.lineOffset, Column: col(line, start),
		EndLine: endLine + src.lineOffset, EndColumn: col(endLine, end),
		NewText: text,
	}
}

// ReplaceScalarAt is the edit of a file's text that writes fe.New in
// place of the one-line scalar starting at line and col (1-based, col in
// code points) when it reads fe.Old, in its quoting: a value written
// outside a YAML document the loader read (a template line, a values
// key). What follows the scalar on its line (a comment) stays.
func ReplaceScalarAt(file string, data []byte, line, col int, fe rules.FieldEdit) (diag.Edit, bool) {
	src := newSource(data, 0)
	src.fileOffset = 0
	text := src.line(line)
	if text == nil || fe.Insert || fe.Delete {
		return diag.Edit{}, false
	}
	s := src.offset(line, text, col)
	e, ok := scalarEnd(text, s)
	if !ok {
		return diag.Edit{}, false
	}
	n, ok := scalarNode(text[s:e])
	if !ok || n.Value != fe.Old {
		return diag.Edit{}, false
	}
	newText, ok := scalarText(fe.New, fe.Number, n.Style)
	if !ok {
		return diag.Edit{}, false
	}
	d := &Document{File: file}
	base := src.starts[line-1]
	return d.edit(src, line, base+s, line, base+e, newText), true
}

// scalarEnd is where the scalar that starts at byte s of a line ends: its
// closing quote, or for a plain one the start of a comment or the line's
// end, less trailing blanks.
func scalarEnd(text []byte, s int) (int, bool) {
	if s >= len(text) {
		return 0, false
	}
	switch q := text[s]; q {
	case '"', '\'':
		for i := s + 1; i < len(text); i++ {
			switch {
			case q == '"' && text[i] == '\\':
				i++
			case text[i] == q && q == '\'' && i+1 < len(text) && text[i+1] == '\'':
				i++
			case text[i] == q:
				return i + 1, true
			}
		}
		return 0, false
	}
	e := len(text)
	if i := bytes.Index(text[s:], []byte(" #")); i >= 0 {
		e = s + i
	}
	e = s + len(bytes.TrimRight(text[s:e], " \t\r"))
	return e, e > s
}
