package manifest

import "strings"

// Range is a span in a file. Lines and columns are 1-based; columns count
// Unicode code points; the end is exclusive.
type Range struct {
	Line, Column, EndLine, EndColumn int
}

// IsZero reports whether r is unset.
func (r Range) IsZero() bool { return r.Line == 0 }

type entry struct {
	key   Range // the mapping key, when the path names a field or map key
	value Range
}

// Index maps API field paths (as the server prints them) to where they are
// written. It is built once, while the document is decoded.
type Index struct {
	m map[string]entry
}

func newIndex() *Index { return &Index{m: make(map[string]entry, 64)} }

func (ix *Index) set(path string, key, value Range) {
	ix.m[path] = entry{key: key, value: value}
}

// Lookup returns where path is written. A path that is not written (a
// missing field) resolves to its closest written ancestor; atKey prefers
// the mapping key over the value. ok is false only when nothing on the way
// up is indexed.
func (ix *Index) Lookup(path string, atKey bool) (r Range, exact, ok bool) {
	if ix == nil {
		return Range{}, false, false
	}
	exact = true
	for p := path; ; p = parentPath(p) {
		if e, found := ix.m[p]; found {
			switch {
			case atKey && exact && !e.key.IsZero():
				return e.key, exact, true
			case !exact && !e.key.IsZero():
				// A missing field belongs to its parent: point at the
				// parent's key, which is where a reader adds the field.
				return e.key, exact, true
			}
			return e.value, exact, true
		}
		if p == "" {
			return Range{}, false, false
		}
		exact = false
	}
}

// parentPath strips the last step of a field path:
// a.b[1].c -> a.b[1] -> a.b -> a -> "".
func parentPath(p string) string {
	if p == "" {
		return ""
	}
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}
