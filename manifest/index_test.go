package manifest

import (
	"reflect"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

// A frozen index is kept packed; unpacked, it is the same nodes, whatever
// the lines and columns (a minified file's columns, lines going back up
// between siblings, unset spans).
func TestIndexPacking(t *testing.T) {
	ix := newIndex()
	ix.set("", diag.Span{}, diag.Span{Line: 1, Column: 1, EndLine: 90000, EndColumn: 3})
	ix.set("spec", diag.Span{Line: 70000, Column: 1, EndLine: 70000, EndColumn: 5}, diag.Span{Line: 70001, Column: 3, EndLine: 89999, EndColumn: 1})
	ix.set("metadata.name", diag.Span{Line: 3, Column: 3, EndLine: 3, EndColumn: 7}, diag.Span{Line: 3, Column: 9, EndLine: 3, EndColumn: 1 << 30})
	ix.set("spec.items[0]", diag.Span{}, diag.Span{Line: 70002, Column: 2_000_000_000, EndLine: 70002, EndColumn: 2_000_000_010})
	ix.set("spec.a", diag.Span{Line: 2, Column: 1, EndLine: 2, EndColumn: 2}, diag.Span{})
	want := map[string]diag.Span{}
	for _, p := range []string{"", "spec", "metadata", "metadata.name", "spec.items[0]", "spec.items[0].x", "spec.a", "nothing"} {
		for _, atKey := range []bool{false, true} {
			r, _, _ := ix.Lookup(p, atKey)
			want[p+"|"+map[bool]string{false: "v", true: "k"}[atKey]] = r
		}
	}
	ix.freeze()
	if ix.packed == nil || ix.nodes != nil {
		t.Fatal("a frozen index is not packed")
	}
	for k, w := range want {
		p, atKey := k[:len(k)-2], k[len(k)-1] == 'k'
		if r, _, _ := ix.Lookup(p, atKey); !reflect.DeepEqual(r, w) {
			t.Errorf("Lookup(%q, %v) = %+v after packing, want %+v", p, atKey, r, w)
		}
	}
}
