package cache

import (
	"reflect"
	"testing"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// An entry decodes to what was encoded, and any part of one cut short, or
// with a byte changed, decodes to nothing or to an entry (the checksum
// before it tells a damaged one), never a panic.
func TestEntryRoundTrip(t *testing.T) {
	want := &entry{
		Inputs: []record{
			{Op: overlay.OpEntries, Path: "/repo", Sig: "entries a b", Stat: "1 2 3"},
			{Op: overlay.OpRead, Path: "/repo/a/kustomization.yaml", Sig: "sum"},
			{Op: overlay.OpStat, Path: "", Sig: "", Stat: ""},
		},
		Result: []byte("the index"),
	}
	data := encodeEntry(want)
	got, ok := decodeEntry(data)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v %v, want %+v", got, ok, want)
	}
	for i := range data {
		if e, ok := decodeEntry(data[:i]); ok {
			t.Errorf("%d of %d bytes decode to %+v", i, len(data), e)
		}
		changed := append([]byte(nil), data...)
		changed[i] ^= 0xff
		decodeEntry(changed)
	}
}
