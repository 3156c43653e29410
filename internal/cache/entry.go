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
	// The inputs' strings are cut from one string of their part of b: a
	// discovery index has ten thousand inputs, and three strings of their
	// own for each were most of the time its lookup spent decoding. The
	// result is b's own bytes, not copied: b is the backend's, read-only.
	skip := d
	for range n {
		skip.op()
		skip.skip(3)
	}
	if skip.bad {
		return nil, false
	}
	d.s = string(b[:len(b)-len(skip.b)])
	e := &entry{Inputs: make([]record, 0, n)}
	for range n {
		e.Inputs = append(e.Inputs, record{Op: d.op(), Path: d.string(), Sig: d.string(), Stat: d.string()})
	}
	e.Result = d.bytes()
	if d.bad || len(d.b) != 0 {
		return nil, false
	}
	return e, true
}

// A decoder reads b from its start; s, when set, holds the same bytes as
// the part of b it starts with, and strings are cut from it.
type decoder struct {
	b   []byte
	s   string
	off int // of b's start in s
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.advance(n)
	return v
}

func (d *decoder) advance(n int) {
	d.b = d.b[n:]
	d.off += n
}

func (d *decoder) op() overlay.Op {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	op := overlay.Op(d.b[0])
	d.advance(1)
	return op
}

// length reads a string's length, and reports whether that many bytes
// follow.
func (d *decoder) length() (int, bool) {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return 0, false
	}
	return int(n), true
}

func (d *decoder) skip(strings int) {
	for range strings {
		if n, ok := d.length(); ok {
			d.advance(n)
		}
	}
}

func (d *decoder) string() string {
	n, ok := d.length()
	if !ok || d.off+n > len(d.s) {
		d.bad = true
		return ""
	}
	s := d.s[d.off : d.off+n]
	d.advance(n)
	return s
}

func (d *decoder) bytes() []byte {
	n, ok := d.length()
	if !ok {
		return nil
	}
	b := d.b[:n:n]
	d.advance(n)
	return b
}
