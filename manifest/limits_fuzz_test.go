package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
)

// FuzzIndex checks the compact position index against the plain map it
// replaced: the same paths set in the same order resolve to the same
// ranges, written or not, before and after it is frozen.
func FuzzIndex(f *testing.F) {
	f.Add("webhooks[0].rules[1].operations[2]\nwebhooks[0]\nmetadata.labels[a.b/c]\nwebhooks", "webhooks[0].rules[1].scope")
	f.Add("a\na.b\na.b\na[x[1]]", "a[x[1]].c")
	// More children than wideAt, some set twice, and a child of one of them.
	var wide []string
	for i := range 2*wideAt + 3 {
		wide = append(wide, fmt.Sprintf("metadata.labels[k%d]", i%(wideAt+5)))
	}
	f.Add(strings.Join(append(wide, "metadata.labels[k3].x", "metadata.labels"), "\n"), "metadata.labels[k20].y")
	f.Fuzz(func(t *testing.T, paths, query string) {
		ix := newIndex()
		model := map[string]entry{}
		for i, p := range strings.Split(paths, "\n") {
			key := diag.Span{Line: i + 1, Column: 1, EndLine: i + 1, EndColumn: 2}
			if i%3 == 0 {
				key = diag.Span{}
			}
			val := diag.Span{Line: i + 1, Column: 5, EndLine: i + 2, EndColumn: 9}
			ix.set(p, key, val)
			model[p] = entry{key: key, value: val}
		}
		queries := append(strings.Split(paths, "\n"), query, "")
		for _, frozen := range []bool{false, true} {
			if frozen {
				ix.freeze()
			}
			for _, q := range queries {
				for _, atKey := range []bool{false, true} {
					r, exact, ok := ix.Lookup(q, atKey)
					mr, mexact, mok := modelLookup(model, q, atKey)
					if r != mr || exact != mexact || ok != mok {
						t.Fatalf("frozen=%v Lookup(%q, %v) = %+v %v %v, want %+v %v %v", frozen, q, atKey, r, exact, ok, mr, mexact, mok)
					}
				}
			}
		}
	})
}

type entry struct{ key, value diag.Span }

// modelLookup is the index's contract written over a map of full paths.
func modelLookup(m map[string]entry, path string, atKey bool) (diag.Span, bool, bool) {
	exact := true
	for p := path; ; p = fieldpath.Parent(p) {
		if e, found := m[p]; found {
			switch {
			case atKey && exact && !e.key.IsZero():
				return e.key, exact, true
			case !exact && !e.key.IsZero():
				return e.key, exact, true
			}
			return e.value, exact, true
		}
		if p == "" {
			return diag.Span{}, false, false
		}
		exact = false
	}
}

// FuzzJSONStream checks that cutting concatenated JSON values keeps every
// value whole and at its line and column in the file.
func FuzzJSONStream(f *testing.F) {
	f.Add([]byte(`{"a":1}{"b":[2]}` + "\n  [3]\n" + `{"é":"ü"}`))
	f.Add([]byte("{}\n\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := Chunk{data: data, firstLine: 3}
		parts := splitJSONStream(c)
		if len(parts) == 1 {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		for i, p := range parts {
			var want json.RawMessage
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("part %d: the stream does not decode: %v", i, err)
			}
			text := bytes.TrimLeft(p.data, " ")
			if !bytes.Equal(text, want) {
				t.Fatalf("part %d = %q, want %q", i, text, want)
			}
			// The value's first byte sits at the part's line and padded column.
			end := int(dec.InputOffset())
			start := end - len(want)
			line := c.firstLine + bytes.Count(data[:start], []byte{'\n'})
			if p.firstLine != line {
				t.Fatalf("part %d on line %d, want %d", i, p.firstLine, line)
			}
			lineStart := bytes.LastIndexByte(data[:start], '\n') + 1
			if got, want := len([]rune(string(p.data[:len(p.data)-len(text)]))), len([]rune(string(data[lineStart:start]))); got != want {
				t.Fatalf("part %d padded by %d, want %d", i, got, want)
			}
		}
	})
}

// TestSetUnderIsSet checks the decoder's way of adding a field (under the
// node of the field that holds it) against adding it by path, for map
// keys that hold the path separators.
func TestSetUnderIsSet(t *testing.T) {
	keys := []string{"a", "a.b", "x[1]", "[", "]", "[]", "a]", ".", "k"}
	for i := range wideAt + 2 {
		keys = append(keys, fmt.Sprintf("n%d", i))
	}
	byPath, under := newIndex(), newIndex()
	var paths []string
	add := func(holder, path string, line int) {
		r := diag.Span{Line: line, Column: 1, EndLine: line, EndColumn: 2}
		byPath.set(path, r, r)
		under.setUnder(under.at(holder), holder, path, r, r)
		paths = append(paths, path)
	}
	line := 1
	for _, holder := range []string{"metadata.labels", "webhooks[0].namespaceSelector.matchLabels"} {
		for _, k := range append(keys, keys[:3]...) {
			add(holder, fieldpath.Key(holder, k), line)
			add(fieldpath.Key(holder, k), fieldpath.Field(fieldpath.Key(holder, k), "f"), line+1)
			line += 2
		}
	}
	for _, frozen := range []bool{false, true} {
		if frozen {
			byPath.freeze()
			under.freeze()
		}
		for _, p := range append(paths, "metadata.labels[zz]", "metadata") {
			for _, atKey := range []bool{false, true} {
				r1, e1, ok1 := byPath.Lookup(p, atKey)
				r2, e2, ok2 := under.Lookup(p, atKey)
				if r1 != r2 || e1 != e2 || ok1 != ok2 {
					t.Errorf("frozen=%v Lookup(%q, %v): setUnder gives %+v %v %v, set gives %+v %v %v", frozen, p, atKey, r2, e2, ok2, r1, e1, ok1)
				}
			}
		}
	}
}
