package cache

import (
	"encoding/binary"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// An entry is written as its inputs, each an op byte then its path,
// signature and stat fingerprint, and the result, every string with its
// length before it: a discovery index has ten thousand inputs and a
// megabyte of result, which JSON took longer to decode than the walk it
// replaces.

func encodeEntry(e *entry) []byte {
	n := 16 + len(e.Result)
	for _, in := range e.Inputs {
		n += 1 + 3*binary.MaxVarintLen32 + len(in.Path) + len(in.Sig) + len(in.Stat)
	}
	b := make([]byte, 0, n)
	b = binary.AppendUvarint(b, uint64(len(e.Inputs)))
	for _, in := range e.Inputs {
		b = append(b, byte(in.Op))
		b = appendString(b, in.Path)
		b = appendString(b, in.Sig)
		b = appendString(b, in.Stat)
	}
	return appendString(b, string(e.Result))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func decodeEntry(b []byte) (*entry, bool) {
	d := decoder{b: b}
	n := d.uvarint()
	if d.bad || n > uint64(len(b)) {
		return nil, false
	}
	e := &entry{Inputs: make([]record, 0, n)}
	for range n {
		if len(d.b) == 0 {
			return nil, false
		}
		op := overlay.Op(d.b[0])
		d.b = d.b[1:]
		e.Inputs = append(e.Inputs, record{Op: op, Path: d.string(), Sig: d.string(), Stat: d.string()})
	}
	e.Result = []byte(d.string())
	if d.bad || len(d.b) != 0 {
		return nil, false
	}
	return e, true
}

type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
