package manifest

import (
	"bytes"
	"hash/maphash"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// source is the text of one YAML document and where it sits in its file,
// used to turn node positions into file ranges with an end.
type source struct {
	data       []byte
	starts     []int // byte offset of each line start within data
	lineOffset int   // file line of data's first line, minus one
	fileOffset int   // where data starts in its file's text, or -1

	// Where each code point of the last long line looked up starts, so
	// that a minified one-line file is not re-scanned for every scalar.
	runesOf   int // 1-based line, or 0
	runeStart []int32

	// The text's node tree, parsed on first use (nodes): a document's
	// fixes that insert fields each read it.
	tree *parsedTree
}

type parsedTree struct {
	root yaml.Node
	err  error
}

// nodes is the text's node tree, parsed once; callers must not change it.
func (s *source) nodes() (*yaml.Node, error) {
	if s.tree == nil {
		s.tree = &parsedTree{}
		s.tree.err = yaml.Unmarshal(s.data, &s.tree.root)
	}
	return &s.tree.root, s.tree.err
}

// longLine is the length from which a line's column offsets are kept.
const longLine = 256

// offset is the byte offset of a 1-based column (in code points) on a
// line, clamped to the line's end.
func (s *source) offset(n int, text []byte, col int) int {
	if len(text) < longLine {
		off := 0
		for c := 1; c < col && off < len(text); c++ {
			if text[off] < utf8.RuneSelf {
				off++
				continue
			}
			_, size := utf8.DecodeRune(text[off:])
			off += size
		}
		return off
	}
	if s.runesOf != n {
		s.runesOf, s.runeStart = n, s.runeStart[:0]
		for i := range string(text) {
			s.runeStart = append(s.runeStart, int32(i))
		}
	}
	if col-1 < len(s.runeStart) {
		return int(s.runeStart[max(col-1, 0)])
	}
	return len(text)
}

func newSource(data []byte, lineOffset int) *source {
	starts := make([]int, 1, bytes.Count(data, []byte{'\n'})+1)
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &source{data: data, starts: starts, lineOffset: lineOffset, fileOffset: -1}
}

// textRef is where a document's text is in its file, to read it again
// rather than hold it: a folder of thousands of configurations with
// matchConditions would otherwise keep every file's text until its rules
// have run, for the few findings located inside an expression.
type textRef struct {
	file                     string
	offset, size, lineOffset int
	sum                      uint64
}

var textSeed = maphash.MakeSeed()

func (s *source) ref(file string) *textRef {
	return &textRef{file: file, offset: s.fileOffset, size: len(s.data), lineOffset: s.lineOffset,
		sum: maphash.Bytes(textSeed, s.data)}
}

// source reads the text again, as Split prepared it; nil when the file is
// gone or has changed since.
func (r *textRef) source() *source {
	// Never open anything but a regular file again: a named pipe would
	// block the run.
	if fi, err := overlay.Stat(r.file); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := Read(Source{Name: r.file}, nil)
	if err != nil {
		return nil
	}
	data = validUTF8(data)
	if r.offset+r.size > len(data) {
		return nil
	}
	text := data[r.offset : r.offset+r.size]
	if maphash.Bytes(textSeed, text) != r.sum {
		return nil
	}
	src := newSource(text, r.lineOffset)
	src.fileOffset = r.offset
	return src
}

// line returns the text of a 1-based line of the document.
func (s *source) line(n int) []byte {
	if n < 1 || n > len(s.starts) {
		return nil
	}
	start := s.starts[n-1]
	end := len(s.data)
	if n < len(s.starts) {
		end = s.starts[n] - 1
	}
	l := s.data[start:end]
	return bytes.TrimSuffix(l, []byte{'\r'})
}

// rangeOf is where a node starts, with the end of its first token.
func (s *source) rangeOf(n *yaml.Node) diag.Span {
	if n == nil {
		return diag.Span{}
	}
	line, col := n.Line, n.Column
	endLine, endCol := line, col+1
	switch n.Kind {
	case yaml.ScalarNode:
		endLine, endCol = s.scalarEnd(n)
	case yaml.AliasNode:
		endCol = col + 1 + utf8.RuneCountInString(n.Value)
	}
	return diag.Span{Line: line + s.lineOffset, Column: col, EndLine: endLine + s.lineOffset, EndColumn: endCol}
}

// extent is the whole span of a node, children included.
func (s *source) extent(n *yaml.Node) diag.Span {
	r := s.rangeOf(n)
	if n == nil || (n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode) || len(n.Content) == 0 {
		if n != nil && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) {
			r.EndColumn = r.Column + 2 // {} or []
		}
		return r
	}
	// The node ends where its last descendant ends, plus the closing
	// bracket of every flow collection on the way down: in pretty JSON on
	// lines of their own, found in the text; right after it when the text
	// does not say (a trailing comma), as a one-line flow writes them.
	last, closers := lastDescendant(n)
	if closers > 0 {
		if line, off, ok := s.closedEnd(n); ok {
			r.EndLine, r.EndColumn = line+s.lineOffset, 1+utf8.RuneCount(s.data[s.starts[line-1]:off])
			return r
		}
	}
	end := s.rangeOf(last)
	if last.Kind == yaml.MappingNode || last.Kind == yaml.SequenceNode {
		end.EndColumn = end.Column + 2 // an empty {} or []
	}
	r.EndLine, r.EndColumn = end.EndLine, end.EndColumn+closers
	return r
}

// lastDescendant is the last node written within n (n itself when it is
// no collection or an empty one), and how many flow collections it ends
// on the way down: their closing brackets follow it.
func lastDescendant(n *yaml.Node) (last *yaml.Node, closers int) {
	last = n
	for depth := 0; depth < 64 && (last.Kind == yaml.MappingNode || last.Kind == yaml.SequenceNode) && len(last.Content) > 0; depth++ {
		if last.Style&yaml.FlowStyle != 0 {
			closers++
		}
		last = last.Content[len(last.Content)-1]
	}
	return last, closers
}

// scalarEnd finds where a scalar's text ends in the source.
func (s *source) scalarEnd(n *yaml.Node) (line, col int) {
	line, col = n.Line, n.Column
	text := s.line(line)
	rest := text[s.offset(line, text, col):]
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				return line, col + utf8.RuneCount(rest[:i+1])
			}
		}
		return line, col + utf8.RuneCount(rest)
	case n.Style&yaml.SingleQuotedStyle != 0:
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return line, col + utf8.RuneCount(rest[:i+1])
			}
		}
		return line, col + utf8.RuneCount(rest)
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return line, col + 1
	}
	// Plain scalar: its text runs to a comment, a flow indicator in flow
	// context, or the end of the line; the value never spans more than its
	// first line here because multi-line plain scalars are folded.
	v := n.Value
	if i := strings.IndexByte(v, '\n'); i >= 0 {
		v = v[:i]
	}
	if len(v) == 0 {
		return line, col + 1
	}
	return line, col + utf8.RuneCountInString(v)
}
