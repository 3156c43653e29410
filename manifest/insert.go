package manifest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/rules"
)

// insertField is the edit that adds the field fe.Path, which the object
// does not write, to the mapping that holds it, written the way that
// mapping's fields are: a block mapping gets a line at its siblings'
// indentation, a flow mapping (JSON among them) an entry with the same
// quoting, separators and line breaks. A mapping that is anchored, sits
// under an anchor or merges another (<<) gets no insertion: the field
// would change or come from elsewhere too.
func (d *Document) insertField(src *source, fe rules.FieldEdit) (diag.Edit, bool) {
	parent := fieldpath.Parent(fe.Path)
	name, ok := strings.CutPrefix(fieldpath.Last(fe.Path), ".")
	if !ok || name == "" || strings.ContainsAny(name, ".[]") || fe.Value == nil {
		return diag.Edit{}, false
	}
	if _, exact, found := d.Positions.Lookup(fe.Path, false); found && exact {
		return diag.Edit{}, false
	}
	r, exact, found := d.Positions.Lookup(parent, false)
	if !found || !exact {
		return diag.Edit{}, false
	}
	root, err := src.nodes()
	if err != nil {
		return diag.Edit{}, false
	}
	m := mappingAt(root, r.Line-src.lineOffset, r.Column)
	if m == nil || len(m.Content) == 0 {
		return diag.Edit{}, false
	}
	var names []string
	for i := 0; i < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value == "<<" || k.Value == name || k.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return diag.Edit{}, false
		}
		names = append(names, k.Value)
	}
	after := insertAfter(names, name, fe.After)
	if m.Style&yaml.FlowStyle != 0 {
		return d.insertFlow(src, m, after, name, fe.Value)
	}
	return d.insertBlock(src, root, m, after, name, fe.Value)
}

// insertAfter is the index of the field the new one goes after (-1:
// before the first): where it sorts among fields sorted by name (as
// controller-gen writes them), else after the first of after present,
// else last.
func insertAfter(names []string, name string, after []string) int {
	if len(names) > 1 && slices.IsSorted(names) {
		i, _ := slices.BinarySearch(names, name)
		return i - 1
	}
	for _, a := range after {
		if i := slices.Index(names, a); i >= 0 {
			return i
		}
	}
	return len(names) - 1
}

// mappingAt finds the mapping node that starts at line and col (1-based,
// in the document), refusing one reached through an anchor.
func mappingAt(n *yaml.Node, line, col int) *yaml.Node {
	if n == nil || n.Anchor != "" || n.Kind == yaml.AliasNode {
		return nil
	}
	if n.Kind == yaml.MappingNode && n.Line == line && n.Column == col {
		return n
	}
	for _, c := range n.Content {
		if c.Line > line {
			break
		}
		if m := mappingAt(c, line, col); m != nil {
			return m
		}
	}
	return nil
}

// insertBlock writes the field on a line of its own, at the indentation
// of m's keys: after the lines of field i's key and value (its trailing
// comment and nested comments stay with it), or before the first key.
func (d *Document) insertBlock(src *source, root, m *yaml.Node, i int, name string, v any) (diag.Edit, bool) {
	first := m.Content[0]
	indent := strings.Repeat(" ", first.Column-1)
	eol := "\n"
	if l := src.data[src.starts[first.Line-1]:]; bytes.Contains(l[:bytes.IndexByte(append(l, '\n'), '\n')], []byte("\r")) {
		eol = "\r\n"
	}
	st := blockStyleOf(root)
	text, ok := st.field(name, v, indent)
	if !ok {
		return diag.Edit{}, false
	}
	text = strings.ReplaceAll(text, "\n", eol)
	if i < 0 {
		off := src.starts[first.Line-1] + src.offset(first.Line, src.line(first.Line), first.Column)
		line := first.Line
		return d.edit(src, line, off, line, off, text+eol+indent), true
	}
	last := entryEnd(src, m.Content[2*i], m.Content[2*i+1])
	if last < len(src.starts) {
		off := src.starts[last]
		return d.edit(src, last+1, off, last+1, off, indent+text+eol), true
	}
	off := len(src.data)
	return d.edit(src, last, off, last, off, eol+indent+text), true
}

// entryEnd is the last line (1-based, in the document) of a block
// mapping's entry: its key's line and every following line indented
// deeper, or at the key's indentation when it continues a block sequence
// written without indentation; blank lines at its end are not its own.
func entryEnd(src *source, k, v *yaml.Node) int {
	keyIndent := k.Column - 1
	deepest := lastLine(v)
	last := k.Line
	for n := k.Line + 1; n <= len(src.starts); n++ {
		text := src.line(n)
		trimmed := bytes.TrimLeft(text, " ")
		if len(bytes.TrimSpace(trimmed)) == 0 {
			continue
		}
		ind := len(text) - len(trimmed)
		compactItem := ind == keyIndent && v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 &&
			trimmed[0] == '-' && (len(trimmed) == 1 || trimmed[1] == ' ')
		if ind > keyIndent || n <= deepest || compactItem {
			last = n
			continue
		}
		break
	}
	return last
}

// lastLine is the line the last of n's nodes starts on.
func lastLine(n *yaml.Node) int {
	l := n.Line
	for _, c := range n.Content {
		l = max(l, lastLine(c))
	}
	return l
}

// blockStyle is how a block document writes nested values: lists of
// scalars in flow ([a, b]) or as entries, the entries' dash indented from
// their key by seqIndent, and nested mappings indented by step.
type blockStyle struct {
	flowLists       bool
	seqIndent, step int
}

// blockStyleOf reads the style from the document's first list of scalars,
// block sequence and nested block mapping; kubectl's defaults otherwise.
func blockStyleOf(root *yaml.Node) blockStyle {
	st := blockStyle{step: 2}
	var seenList, seenSeq, seenMap bool
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				switch {
				case v.Kind == yaml.SequenceNode && len(v.Content) > 0:
					if !seenList && v.Content[0].Kind == yaml.ScalarNode {
						seenList, st.flowLists = true, v.Style&yaml.FlowStyle != 0
					}
					if !seenSeq && v.Style&yaml.FlowStyle == 0 {
						seenSeq, st.seqIndent = true, max(v.Content[0].Column-2-k.Column, 0)
					}
				case v.Kind == yaml.MappingNode && len(v.Content) > 0 && v.Style&yaml.FlowStyle == 0 && !seenMap && v.Line > k.Line:
					seenMap, st.step = true, max(v.Column-k.Column, 1)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return st
}

// field writes "name: value" in block style; lines after the first carry
// their whole indentation (indent is that of name).
func (st blockStyle) field(name string, v any, indent string) (string, bool) {
	key, ok := flowText(name, false)
	if !ok {
		return "", false
	}
	switch v := v.(type) {
	case string, int:
		s, ok := flowText(v, false)
		return key + ": " + s, ok
	case []string:
		if st.flowLists || len(v) == 0 {
			s, ok := flowText(v, false)
			return key + ": " + s, ok
		}
		var b strings.Builder
		b.WriteString(key + ":")
		for _, e := range v {
			s, ok := flowText(e, false)
			if !ok {
				return "", false
			}
			b.WriteString("\n" + indent + strings.Repeat(" ", st.seqIndent) + "- " + s)
		}
		return b.String(), true
	case rules.Mapping:
		if len(v) == 0 {
			return key + ": {}", true
		}
		var b strings.Builder
		b.WriteString(key + ":")
		inner := indent + strings.Repeat(" ", st.step)
		for _, f := range v {
			s, ok := st.field(f.Name, f.Value, inner)
			if !ok {
				return "", false
			}
			b.WriteString("\n" + inner + s)
		}
		return b.String(), true
	case []rules.Mapping:
		if len(v) == 0 {
			return key + ": []", true
		}
		var b strings.Builder
		b.WriteString(key + ":")
		dash := indent + strings.Repeat(" ", st.seqIndent)
		for _, m := range v {
			if len(m) == 0 {
				b.WriteString("\n" + dash + "- {}")
				continue
			}
			for j, f := range m {
				s, ok := st.field(f.Name, f.Value, dash+"  ")
				if !ok {
					return "", false
				}
				if j == 0 {
					b.WriteString("\n" + dash + "- " + s)
				} else {
					b.WriteString("\n" + dash + "  " + s)
				}
			}
		}
		return b.String(), true
	}
	return "", false
}

// flowText writes v on one line: as JSON, or as YAML flow with strings
// plain where they read back the same.
func flowText(v any, asJSON bool) (string, bool) {
	switch v := v.(type) {
	case string:
		if asJSON || !plainSafe(v) {
			b, err := json.Marshal(v)
			return string(b), err == nil
		}
		return v, true
	case int:
		return strconv.Itoa(v), true
	case []string:
		return flowList(v, asJSON)
	case []rules.Mapping:
		return flowList(v, asJSON)
	case rules.Mapping:
		parts := make([]string, len(v))
		for i, f := range v {
			k, ok1 := flowText(f.Name, asJSON)
			s, ok2 := flowText(f.Value, asJSON)
			if !ok1 || !ok2 {
				return "", false
			}
			parts[i] = k + ": " + s
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	return "", false
}

// flowList writes a list with flowText.
func flowList[T any](v []T, asJSON bool) (string, bool) {
	parts := make([]string, len(v))
	for i, e := range v {
		s, ok := flowText(e, asJSON)
		if !ok {
			return "", false
		}
		parts[i] = s
	}
	return "[" + strings.Join(parts, ", ") + "]", true
}

// insertFlow adds the field to a flow mapping (a JSON object among them):
// after field i's value or before the first key, with the comma and the
// line break or space the mapping uses between its fields, keys quoted
// the way its first key is, and in JSON a nested value indented as
// json.MarshalIndent would.
func (d *Document) insertFlow(src *source, m *yaml.Node, i int, name string, v any) (diag.Edit, bool) {
	first := m.Content[0]
	asJSON := first.Style&yaml.DoubleQuotedStyle != 0
	multiLine := first.Line != m.Line
	for j := 2; j < len(m.Content); j += 2 {
		multiLine = multiLine || m.Content[j].Line != m.Content[j-2].Line
	}
	firstText := src.line(first.Line)
	firstOff := src.starts[first.Line-1] + src.offset(first.Line, firstText, first.Column)
	indent := string(firstText[:firstOff-src.starts[first.Line-1]])
	if multiLine && strings.TrimLeft(indent, " \t") != "" {
		return diag.Edit{}, false
	}
	// What the mapping writes after a key's colon and after a comma.
	colon, comma := ": ", " "
	if k, vs := src.rangeOf(first), src.rangeOf(m.Content[1]); k.EndLine == vs.Line {
		between, ok := src.between(k.EndLine, k.EndColumn, vs.Column)
		if !ok || strings.TrimSpace(between) != ":" {
			return diag.Edit{}, false
		}
		colon = between
	}
	if !multiLine && len(m.Content) >= 4 {
		e, n := src.extent(m.Content[1]), src.rangeOf(m.Content[2])
		between, ok := src.between(n.Line, e.EndColumn, n.Column)
		if e.EndLine != n.Line || !ok || strings.TrimSpace(between) != "," {
			return diag.Edit{}, false
		}
		comma = between[strings.IndexByte(between, ',')+1:]
	}
	if multiLine {
		comma = "\n" + indent
	}
	key, ok := flowText(name, asJSON)
	if !ok {
		return diag.Edit{}, false
	}
	val, ok := flowText(v, asJSON)
	if !ok {
		return diag.Edit{}, false
	}
	if asJSON && (multiLine || comma == "" && colon == ":") {
		var b bytes.Buffer
		var err error
		if multiLine {
			err = json.Indent(&b, []byte(val), indent, "  ")
		} else {
			err = json.Compact(&b, []byte(val)) // minified as the file is
		}
		if err != nil {
			return diag.Edit{}, false
		}
		val = b.String()
	}
	kv := key + colon + val
	if i < 0 {
		return d.edit(src, first.Line, firstOff, first.Line, firstOff, kv+","+comma), true
	}
	line, off, ok := src.closedEnd(m.Content[2*i+1])
	if !ok {
		return diag.Edit{}, false
	}
	return d.edit(src, line, off, line, off, ","+comma+kv), true
}

// closedEnd is where a value's text ends (a src-relative line and an
// offset in src.data): after its last descendant and the closing bracket
// of every flow collection it ends in, which in a multi-line flow
// collection (JSON) are on lines of their own, after blanks and comments.
func (s *source) closedEnd(n *yaml.Node) (line, off int, ok bool) {
	last, closers := lastDescendant(n)
	e := s.extent(last)
	line = e.EndLine - s.lineOffset
	l := s.line(line)
	if l == nil {
		return 0, 0, false
	}
	off = s.starts[line-1] + s.offset(line, l, e.EndColumn)
	for ; closers > 0; closers-- {
		for off < len(s.data) && bytes.IndexByte([]byte(" \t\r\n#"), s.data[off]) >= 0 {
			if s.data[off] == '#' {
				for off < len(s.data) && s.data[off] != '\n' {
					off++
				}
				continue
			}
			off++
		}
		if off == len(s.data) || s.data[off] != ']' && s.data[off] != '}' {
			return 0, 0, false
		}
		off++
	}
	line, _ = slices.BinarySearch(s.starts, off+1)
	return line, off, true
}

// between is the text of a file line from column from to column to.
func (s *source) between(fileLine, from, to int) (string, bool) {
	n := fileLine - s.lineOffset
	l := s.line(n)
	if l == nil || to < from {
		return "", false
	}
	a := s.offset(n, l, from)
	return string(l[a:s.offset(n, l, to)]), true
}
