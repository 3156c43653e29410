package lsp

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Position encodings (LSP 3.17 PositionEncodingKind): what a character
// offset in a position counts.
const (
	encUTF8  = "utf-8"
	encUTF16 = "utf-16"
	encUTF32 = "utf-32"
)

// chooseEncoding picks UTF-16 (every client's default) when offered or
// when nothing is, else the first the client offers that the server
// knows.
func chooseEncoding(offered []string) string {
	if len(offered) == 0 {
		return encUTF16
	}
	for _, e := range offered {
		if e == encUTF16 {
			return e
		}
	}
	for _, e := range offered {
		if e == encUTF8 || e == encUTF32 {
			return e
		}
	}
	return encUTF16
}

// lineStart returns the byte offset where line (0-based) starts, or
// len(text) when text has fewer lines.
func lineStart(text string, line int) int {
	off := 0
	for ; line > 0; line-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}

// offset converts an LSP position to a byte offset into text, clamped to
// the line's end (as the specification says for a character past it).
func offset(text string, p position, enc string) int {
	if p.Line < 0 {
		return 0
	}
	start := lineStart(text, p.Line)
	end := strings.IndexByte(text[start:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += start
	}
	return start + unitsToBytes(text[start:end], p.Character, enc)
}

// unitsToBytes is how many bytes of line the first n units take.
func unitsToBytes(line string, n int, enc string) int {
	if n <= 0 {
		return 0
	}
	if enc == encUTF8 {
		return min(n, len(line))
	}
	i := 0
	for i < len(line) && n > 0 {
		r, size := utf8.DecodeRuneInString(line[i:])
		units := 1
		if enc == encUTF16 && r >= 0x10000 {
			units = 2
		}
		if units > n {
			break // inside a surrogate pair: stay before it
		}
		n -= units
		i += size
	}
	return i
}

// runesToUnits converts a 0-based column counted in code points (how
// webhooklint counts) into units of enc on line.
func runesToUnits(line string, runes int, enc string) int {
	if enc == encUTF32 {
		return runes
	}
	units := 0
	for _, r := range line {
		if runes <= 0 {
			break
		}
		runes--
		switch {
		case enc == encUTF8:
			units += utf8.RuneLen(r)
		case r >= 0x10000:
			units += utf16.RuneLen(r)
		default:
			units++
		}
	}
	return units + max(runes, 0) // a column past the line's end stays past it
}

// lines splits text for position conversions, without the newlines.
type lines []string

func splitLines(text string) lines { return strings.Split(text, "\n") }

// pos converts a 1-based line and code-point column into an LSP position.
func (ls lines) pos(line, col int, enc string) position {
	if line <= 0 {
		return position{}
	}
	l := ""
	if line-1 < len(ls) {
		l = strings.TrimSuffix(ls[line-1], "\r")
	}
	return position{Line: line - 1, Character: runesToUnits(l, max(col-1, 0), enc)}
}

// span converts a finding's range into an LSP range; a finding without an
// end covers the rest of its line's token, or one character.
func (ls lines) span(line, col, endLine, endCol int, enc string) lspRange {
	start := ls.pos(line, col, enc)
	if endLine <= 0 {
		end := start
		end.Character++
		return lspRange{Start: start, End: end}
	}
	return lspRange{Start: start, End: ls.pos(endLine, endCol, enc)}
}
