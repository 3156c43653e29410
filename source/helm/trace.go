package helm

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/lazy"
)

// Trace is where a rendered field was traced to in its template.
type Trace struct {
	// Its File is set when the field was traced into a named template (a
	// define block) of another file; empty means the template's own file.
	// A trace is one line.
	diag.Span
	// Exact reports that the path's last key was found; otherwise the
	// position is that of the closest ancestor found (or the document's
	// start).
	Exact bool
	// Literal reports that the value is written literally on that line
	// (no template action), so the line is where to change it; otherwise
	// the value comes from values or a helper, named by the action there.
	Literal bool
	// Shared reports that a list index of the path was not written as
	// its own item (a range loop's body, taken for every element): the
	// line writes other elements too.
	Shared bool
}

// Trace maps a field path of the doc-th document rendered from a template
// to a line of the template text.
//
// Method: Helm output carries no positions, so the path's keys are looked
// up in the template text, in order, each below the previous one: a key
// matches a line whose content (after an optional "- ") starts with
// "key:", indented deeper than its parent key, skipping lines that are
// only template actions. A list index [i] selects the i-th "- " item
// under its key when the template writes items literally; when it does
// not (a range loop writes one item for all), the first item is used,
// which is the loop body that produced every element. Keys produced by
// include/toYaml of a values block are not in the template text; the
// search then stops at the deepest key that is, which is the line whose
// action emits the value. Documents are matched to template chunks by
// their order between "---" separators when the counts agree.
func (t *Template) Trace(doc int, path string) Trace {
	lines := bytes.Split(t.Source, []byte{'\n'})
	start, end := chunk(lines, doc)
	res := Trace{Span: diag.Point("", start+1, 1)}
	if k := findKey(lines, start, end, -1, false, "kind"); k.line >= 0 {
		res = Trace{Span: diag.LineSpan("", k.line+1, k.col, k.col+utf8.RuneCountInString("kind"))}
	}
	if path == "" {
		return res
	}
	steps := fieldpath.Split(path)
	res = traceSteps(lines, start, end, steps, res)
	if res.Exact {
		return res
	}
	// The field may be written in a named template the chunk includes
	// (`include "x.webhook" .`): look for the longest end of the path
	// that one of them writes, from the whole path down to its last key.
	for _, name := range includedDefines(lines[start:end]) {
		d := t.defines[name]
		if d == nil {
			continue
		}
		for k := range steps {
			if tr := traceSteps(d.lines, d.start, d.end, steps[k:], Trace{Span: diag.Point("", d.start+1, 1)}); tr.Exact {
				tr.File = d.file
				return tr
			}
		}
	}
	return res
}

// traceSteps looks the path's steps up in lines [start, end), below res
// (the document's start or kind), and returns the deepest position found.
// A path may start with a list index when it continues a path traced
// elsewhere (a named template that writes list items).
func traceSteps(lines [][]byte, start, end int, steps []fieldpath.Step, res Trace) Trace {
	from, parentIndent, inItem := start, -1, false
	shared := false
	first := 0
	for first < len(steps) && steps[first].Index >= 0 {
		item, itemIndent, own, ok := listItem(lines, from, end, -1, steps[first].Index)
		if !ok {
			return res
		}
		shared = shared || !own
		from, parentIndent, inItem = item, itemIndent, true
		res = Trace{Span: diag.Point("", item+1, itemIndent+1)}
		first++
	}
	for i := first; i < len(steps); i++ {
		s := steps[i]
		if s.Index >= 0 {
			continue // handled with its key
		}
		k := findKey(lines, from, end, parentIndent, inItem, s.Key)
		if k.line < 0 {
			return res
		}
		res = Trace{Span: diag.LineSpan("", k.line+1, k.col, k.col+utf8.RuneCountInString(s.Key))}
		from, parentIndent, inItem = k.line+1, k.indent, false
		// List indices directly after this key.
		for i+1 < len(steps) && steps[i+1].Index >= 0 {
			i++
			item, itemIndent, own, ok := listItem(lines, from, end, k.indent, steps[i].Index)
			if !ok {
				break
			}
			shared = shared || !own
			// Keys of the item are on the "- " line or below it, indented
			// deeper than the dash.
			from, parentIndent, inItem = item, itemIndent, true
			res = Trace{Span: diag.Point("", item+1, itemIndent+1)}
		}
		if i == len(steps)-1 {
			res.Exact, res.Shared = true, shared
			v := strings.TrimSpace(string(k.rest))
			res.Literal = v != "" && !strings.Contains(v, "{{")
			if v != "" {
				// Point at the value: the key line shows what to change.
				c := k.valueCol
				res.Column, res.EndColumn = c, c+utf8.RuneCountInString(strings.TrimRight(string(k.rest), " \t\r"))
			}
		}
	}
	return res
}

type keyHit struct {
	line, col, indent, valueCol int
	rest                        []byte
}

var keyLine = lazy.Regexp(`^(\s*)(?:-\s+)?("?)([^\s:"]+)("?):(?:\s+|$)`)

// findKey finds the first line in [from, end) writing key, deeper than
// parentIndent, and stops at a line that closes the parent block. When
// inItem, from is a list item's "- " line, whose first key sits on it.
func findKey(lines [][]byte, from, end, parentIndent int, inItem bool, key string) keyHit {
	for i := from; i < end; i++ {
		l := bytes.TrimRight(lines[i], "\r")
		trimmed := bytes.TrimSpace(l)
		if len(trimmed) == 0 || trimmed[0] == '#' || bytes.HasPrefix(trimmed, []byte("{{")) {
			continue
		}
		indent := len(l) - len(bytes.TrimLeft(l, " "))
		if parentIndent >= 0 && indent <= parentIndent && (!inItem || i != from) {
			return keyHit{line: -1}
		}
		m := keyLine().FindSubmatchIndex(l)
		if m == nil || string(l[m[6]:m[7]]) != key {
			continue
		}
		col := utf8.RuneCount(l[:m[6]]) + 1 - (m[5] - m[4])
		return keyHit{line: i, col: col, indent: indent, valueCol: utf8.RuneCount(l[:m[1]]) + 1, rest: l[m[1]:]}
	}
	return keyHit{line: -1}
}

// listItem finds the n-th "- " item of the list under a key at keyIndent,
// or the first one when there are fewer (a range loop). It returns the
// item's line and the column of its content (for nested keys), and
// whether that is the n-th item itself.
func listItem(lines [][]byte, from, end, keyIndent, n int) (line, indent int, own, ok bool) {
	first, count := -1, 0
	firstIndent := 0
	itemIndent := -1
	for i := from; i < end; i++ {
		l := bytes.TrimRight(lines[i], "\r")
		trimmed := bytes.TrimSpace(l)
		if len(trimmed) == 0 || trimmed[0] == '#' || bytes.HasPrefix(trimmed, []byte("{{")) {
			continue
		}
		ind := len(l) - len(bytes.TrimLeft(l, " "))
		isItem := bytes.HasPrefix(trimmed, []byte("- ")) || bytes.Equal(trimmed, []byte("-"))
		if ind < keyIndent || (ind == keyIndent && !isItem) {
			break
		}
		if !isItem || (itemIndent >= 0 && ind != itemIndent) {
			continue
		}
		itemIndent = ind
		if first < 0 {
			first, firstIndent = i, ind
		}
		if count == n {
			return i, ind, true, true
		}
		count++
	}
	if first < 0 {
		return 0, 0, false, false
	}
	return first, firstIndent, false, true
}

// chunk returns the line range of the doc-th YAML document of a
// template, or the whole template when doc is out of range (the caller
// could not tell which chunk produced the document).
func chunk(lines [][]byte, doc int) (start, end int) {
	cs := chunks(lines)
	if doc >= 0 && doc < len(cs) {
		return cs[doc][0], cs[doc][1]
	}
	return 0, len(lines)
}

// chunks splits a template at "---" lines into the ranges that hold
// content.
func chunks(lines [][]byte) [][2]int {
	starts := []int{0}
	for i, l := range lines {
		t := bytes.TrimRight(l, " \r\t")
		if bytes.Equal(t, []byte("---")) {
			starts = append(starts, i+1)
		}
	}
	var out [][2]int
	for i, s := range starts {
		e := len(lines)
		if i+1 < len(starts) {
			e = starts[i+1] - 1
		}
		if hasContent(lines[s:e]) {
			out = append(out, [2]int{s, e})
		}
	}
	return out
}

// ChunkOf returns the chunk of a template that wrote a rendered document
// when the ranks of chunks and documents do not agree (a conditional
// dropped one): the only chunk that writes the document's kind
// literally, else the only one of those that writes its name literally
// (validating and mutating twins, whose fields are the same text).
// It is -1 when no chunk, or more than one, fits.
func ChunkOf(src []byte, kind, name string) int {
	lines := bytes.Split(src, []byte{'\n'})
	var byKind []int
	for i, c := range chunks(lines) {
		if k := findKey(lines, c[0], c[1], -1, false, "kind"); k.line >= 0 && keyValue(lines[k.line]) == kind {
			byKind = append(byKind, i)
		}
	}
	if len(byKind) == 1 {
		return byKind[0]
	}
	found := -1
	cs := chunks(lines)
	for _, i := range byKind {
		for l := cs[i][0]; l < cs[i][1]; l++ {
			if name != "" && keyValue(lines[l]) == name && bytes.HasPrefix(bytes.TrimSpace(lines[l]), []byte("name:")) {
				if found >= 0 && found != i {
					return -1
				}
				found = i
			}
		}
	}
	return found
}

// keyValue is the literal value of a "key: value" line, unquoted.
func keyValue(line []byte) string {
	_, v, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return ""
	}
	return strings.Trim(strings.TrimSpace(string(v)), `"'`)
}

// Chunks counts the YAML documents a template writes literally, for
// matching rendered documents to template chunks.
func Chunks(src []byte) int { return len(chunks(bytes.Split(src, []byte{'\n'}))) }

func hasContent(lines [][]byte) bool {
	for _, l := range lines {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.HasPrefix(t, []byte("{{")) {
			return true
		}
	}
	return false
}

// define is a named template: its file and the lines of its body.
type define struct {
	file       string
	lines      [][]byte
	start, end int // [start, end) lines, from the define action to its end
}

var (
	// blockAction is an action that opens or closes a block.
	blockAction = lazy.Regexp(`\{\{-?\s*(define|if|range|with|block|end)\b(?:\s+"([^"]*)")?`)
	// includeAction names the template an include or template action
	// renders.
	includeAction = lazy.Regexp(`\b(?:include|template)\s+"([^"]+)"`)
)

// parseDefines adds the define blocks of a template's text to defs; a
// name already defined (by a file earlier in name order) is kept.
func parseDefines(file string, src []byte, defs map[string]*define) {
	if !bytes.Contains(src, []byte("define")) {
		return
	}
	lines := bytes.Split(src, []byte{'\n'})
	lineAt := func(off int) int { return bytes.Count(src[:off], []byte{'\n'}) }
	depth := 0
	var open *define
	var name string
	for _, m := range blockAction().FindAllSubmatchIndex(src, -1) {
		switch kw := string(src[m[2]:m[3]]); {
		case kw == "end":
			depth--
			if depth == 0 && open != nil {
				open.end = lineAt(m[0]) + 1
				if _, seen := defs[name]; !seen && name != "" {
					defs[name] = open
				}
				open = nil
			}
			depth = max(depth, 0)
		case kw == "define" && depth == 0:
			depth++
			if m[4] >= 0 {
				name = string(src[m[4]:m[5]])
				open = &define{file: file, lines: lines, start: lineAt(m[0])}
			}
		default:
			depth++
		}
	}
}

// includedDefines lists the named templates included in lines, in order.
func includedDefines(lines [][]byte) []string {
	var out []string
	for _, l := range lines {
		for _, m := range includeAction().FindAllSubmatch(l, -1) {
			if n := string(m[1]); !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}
