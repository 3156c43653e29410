package unrendered

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/webhooklint/webhooklint/internal/lazy"
)

// Document is the line range of one YAML document of a file (1-based,
// inclusive), and the first template action written bare in it, if any.
type Document struct {
	FirstLine, LastLine int
	// Action is "" when the document has no bare action.
	Action       string
	Line, Column int
}

var separatorLine = lazy.Regexp(`^---\s*(#.*)?$`)

// blockPlaceholder is a line that is one envsubst variable and nothing
// else: it stands for lines of YAML that clusterctl or envsubst write
// there (cluster-api-provider-metal3's cluster template has
// `${CTLPLANE_KUBEADM_EXTRA_CONFIG}` under a mapping).
var blockPlaceholder = lazy.Regexp(`^\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:]?[-=+?][^}]*)?\}[ \t]*(?:#.*)?$`)

// IsBlockPlaceholder reports whether a bare action Documents found is a
// line-long envsubst variable rather than a template action. Such a line
// can be valid YAML (the continuation of a plain scalar), so it counts only
// where the document did not parse.
func IsBlockPlaceholder(action string) bool {
	return strings.HasPrefix(action, "${")
}

// Documents cuts data at document separators (as Kubernetes' reader and
// the manifest loader do) and finds, in each document, the first template
// action that stands where YAML expects a node: at the start of a line or
// of a value, or inside a flow collection. Such an action cannot be data;
// it is a template that was never rendered. Actions inside quoted, plain or
// block strings and in comments are text (a ConfigMap holding an
// injector's template, a comment that mentions `{{ }}`) and do not count.
func Documents(data []byte) []Document {
	lines := bytes.Split(data, []byte{'\n'})
	var out []Document
	cur := Document{FirstLine: 1}
	var sc scanner
	for i, l := range lines {
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if separatorLine().Match(l) {
			cur.LastLine = i
			out = append(out, cur)
			cur = Document{FirstLine: i + 2}
			sc = scanner{}
			continue
		}
		if col, n, ok := sc.line(l); ok && cur.Action == "" {
			cur.Line, cur.Column = i+1, utf8.RuneCount(l[:col])+1
			cur.Action = string(bytes.TrimSpace(l[col : col+n]))
		}
	}
	cur.LastLine = len(lines)
	return append(out, cur)
}

// Describe is the template a document's bare action shows.
func Describe(path string, data []byte, d Document) Template {
	return classify(path, data, d.Line, d.Column, d.Action)
}

// scanner reads YAML lines just far enough to tell where nodes start.
type scanner struct {
	block int  // indentation a block scalar's text must exceed
	inBlk bool // inside a block scalar
	quote byte // inside a quoted scalar continued from an earlier line
	flow  int  // depth of open flow collections
}

// line scans one line and reports the byte offset and length of the first
// bare template action on it.
func (s *scanner) line(l []byte) (col, n int, ok bool) {
	indent := len(l) - len(bytes.TrimLeft(l, " \t"))
	if s.inBlk {
		if len(bytes.TrimSpace(l)) == 0 || indent > s.block {
			return 0, 0, false
		}
		s.inBlk = false
	}
	if s.quote == 0 && s.flow == 0 {
		if m := blockPlaceholder().Find(l[indent:]); m != nil {
			return indent, bytes.IndexByte(m, '}') + 1, true
		}
	}
	p := 0
	if s.quote != 0 {
		end := closeQuote(l, 0, s.quote)
		if end < 0 {
			return 0, 0, false
		}
		s.quote = 0
		p = end
		return s.rest(l, p, indent)
	}
	return s.node(l, indent, indent)
}

// node scans from p, where a node may start.
func (s *scanner) node(l []byte, p, indent int) (int, int, bool) {
	for {
		for p < len(l) && (l[p] == ' ' || l[p] == '\t') {
			p++
		}
		if p >= len(l) {
			return 0, 0, false
		}
		switch c := l[p]; {
		case bytes.HasPrefix(l[p:], []byte("{{")):
			return p, actionLen(l[p:]), true
		case c == '#':
			return 0, 0, false
		case c == '-' && (p+1 == len(l) || l[p+1] == ' '):
			p++
		case c == '?' && (p+1 == len(l) || l[p+1] == ' '):
			p++
		case c == '[' || c == '{':
			s.flow++
			p++
		case c == ']' || c == '}':
			s.flow = max(0, s.flow-1)
			p++
		case c == ',' && s.flow > 0:
			p++
		case c == '"' || c == '\'':
			end := closeQuote(l, p+1, c)
			if end < 0 {
				s.quote = c
				return 0, 0, false
			}
			return s.rest(l, end, indent)
		case c == '|' || c == '>':
			s.inBlk, s.block = true, indent
			return 0, 0, false
		case c == '&' || c == '!':
			// An anchor or tag: the node follows it.
			for p < len(l) && l[p] != ' ' {
				p++
			}
		default:
			return s.plain(l, p, indent)
		}
	}
}

// plain skips a plain scalar; a node may start after its key indicator
// or, in a flow collection, after a comma or closing bracket.
func (s *scanner) plain(l []byte, p, indent int) (int, int, bool) {
	for ; p < len(l); p++ {
		switch l[p] {
		case ':':
			if p+1 == len(l) || l[p+1] == ' ' || (s.flow > 0 && (l[p+1] == ',' || l[p+1] == ']' || l[p+1] == '}')) {
				return s.node(l, p+1, indent)
			}
		case '#':
			if p > 0 && (l[p-1] == ' ' || l[p-1] == '\t') {
				return 0, 0, false
			}
		case ',', ']', '}':
			if s.flow > 0 {
				return s.node(l, p, indent)
			}
		}
	}
	return 0, 0, false
}

// rest scans what follows a quoted scalar: a key indicator, a flow
// separator or a comment.
func (s *scanner) rest(l []byte, p, indent int) (int, int, bool) {
	for ; p < len(l); p++ {
		switch l[p] {
		case ' ', '\t':
		case ':':
			return s.node(l, p+1, indent)
		case ',', ']', '}':
			if s.flow > 0 {
				return s.node(l, p, indent)
			}
			return 0, 0, false
		default:
			return 0, 0, false // a comment, or text the parser rejects
		}
	}
	return 0, 0, false
}

// closeQuote returns the offset after the quote closing a scalar opened
// before p, or -1 when the line ends first.
func closeQuote(l []byte, p int, q byte) int {
	for ; p < len(l); p++ {
		switch {
		case q == '"' && l[p] == '\\':
			p++
		case l[p] == q && q == '\'' && p+1 < len(l) && l[p+1] == '\'':
			p++
		case l[p] == q:
			return p + 1
		}
	}
	return -1
}

// actionLen is the length of the action at the start of l ({{ … }}, or
// the rest of the line when it is not closed there).
func actionLen(l []byte) int {
	if i := bytes.Index(l, []byte("}}")); i >= 0 {
		return i + 2
	}
	return len(l)
}
