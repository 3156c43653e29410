package manifest

import (
	"unicode/utf8"

	"github.com/webhooklint/webhooklint/diag"
)

// LocateWithin points inside the string value written at path: at the
// characters from the start-th to the end-th non-blank character of the
// decoded value (0-based, end exclusive; blanks are spaces, tabs and line
// breaks). Counting only non-blank characters makes the place survive
// what YAML does between the text and the value: block scalars (| and >)
// and their indentation, folding, quoting and escapes all change blanks or
// turn several source characters into one, which the scan accounts for.
// ok is false when the path is not written as a scalar here.
func (d *Document) LocateWithin(path string, start, end int) (diag.Span, bool) {
	if start < 0 || end <= start {
		return diag.Span{}, false
	}
	at, exact, ok := d.Positions.Lookup(path, false)
	if !ok || !exact {
		return diag.Span{}, false
	}
	src := d.src
	if src == nil && d.within != nil {
		src = d.within.source() // only now that there is a place to refine
	}
	if src == nil {
		return diag.Span{}, false
	}
	s := &valueScanner{src: src, line: at.Line - src.lineOffset, col: at.Column}
	first, ok := s.nth(start)
	if !ok {
		return diag.Span{}, false
	}
	last, ok := s.nth(end - 1)
	if !ok || last.line != first.line {
		// Keep the range on one line: the start is what matters.
		last = first
	}
	off := src.lineOffset
	return diag.Span{Line: first.line + off, Column: first.col, EndLine: last.line + off, EndColumn: last.col + last.width}, true
}

type place struct{ line, col, width int }

// valueScanner walks a scalar's source and yields its non-blank value
// characters in order.
type valueScanner struct {
	src       *source
	line, col int // start of the scalar node (1-based, columns in runes)

	started bool
	style   byte // '|' or '>' (block), '\'', '"', or 0 (plain)
	runes   []rune
	cur     int // index into runes of the current line
	count   int // non-blank value characters yielded so far
	last    place
}

func isBlank(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// nth returns the place of the n-th non-blank value character (0-based);
// calls must ask for non-decreasing n.
func (s *valueScanner) nth(n int) (place, bool) {
	if !s.started {
		s.started = true
		s.load(s.line)
		s.cur = s.col - 1
		if s.cur < 0 || s.cur >= len(s.runes) {
			return place{}, false
		}
		switch c := s.runes[s.cur]; c {
		case '|', '>':
			s.style = byte(c)
			s.nextLine() // the header line holds indicators and maybe a comment
		case '\'', '"':
			s.style = byte(c)
			s.cur++
		}
		s.count = -1
	}
	if n <= s.count {
		return s.last, n == s.count
	}
	for s.line <= len(s.src.starts) {
		if s.cur >= len(s.runes) {
			if !s.nextLine() {
				break
			}
			continue
		}
		c := s.runes[s.cur]
		p := place{line: s.line, col: s.cur + 1, width: 1}
		switch {
		case s.style == '\'' && c == '\'':
			if s.cur+1 < len(s.runes) && s.runes[s.cur+1] == '\'' {
				p.width = 2
				s.cur += 2
				break
			}
			return place{}, false // end of the scalar
		case s.style == '"' && c == '"':
			return place{}, false
		case s.style == '"' && c == '\\':
			if s.cur+1 >= len(s.runes) { // escaped line break: nothing
				s.nextLine()
				continue
			}
			e := s.runes[s.cur+1]
			width := 2
			switch e {
			case 'x':
				width = 4
			case 'u':
				width = 6
			case 'U':
				width = 10
			}
			s.cur += min(width, len(s.runes)-s.cur)
			if e == 'n' || e == 't' || e == 'r' || e == ' ' || e == '\t' {
				continue // a blank
			}
			p.width = width
		default:
			s.cur++
			if isBlank(c) {
				continue
			}
		}
		s.count++
		s.last = p
		if s.count == n {
			return p, true
		}
	}
	return place{}, false
}

func (s *valueScanner) load(line int) {
	text := s.src.line(line)
	s.runes = s.runes[:0]
	for len(text) > 0 {
		r, size := utf8.DecodeRune(text)
		s.runes = append(s.runes, r)
		text = text[size:]
	}
}

func (s *valueScanner) nextLine() bool {
	if s.line >= len(s.src.starts) {
		s.line++
		return false
	}
	s.line++
	s.load(s.line)
	s.cur = 0
	return true
}
