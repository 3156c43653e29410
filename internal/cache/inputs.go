package cache

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/internal/parallel"
)

// Results whose caller lists their inputs itself (LookupInputs and
// StoreInputs: the discovery index, made of thousands of folder listings
// and kustomization files) are checked by stat first, as git checks its
// index: an input whose stat fingerprint (device, inode, type, size,
// modification and change times) is what it was when the entry was
// written is taken to have its signature still, and only one whose
// fingerprint moved is read again and compared by content. A stat costs
// a fraction of a listing or a read.
//
// The racy case, as git names it: a file changed twice within one tick
// of the file system's clock, once before its fingerprint was taken and
// once after, keeps its modification time. So a fingerprint is kept only
// for an input whose times are older than the run that read it by more
// than racyWindow (a tick of the coarsest file system clock: FAT's two
// seconds, with margin): a change after the run began would give it a
// time within the window. The others are compared by content on every
// lookup until a lookup finds them settled and writes the entry again
// with their fingerprints, as git refreshes its index. The change time,
// which no user can set back (touch -d, tar, rsync -t set the
// modification time), is part of the fingerprint where the system has it.
var racyWindow = 3 * time.Second

// An Input is what a result listed by its caller depends on.
type Input struct {
	Op        overlay.Op // OpRead (content), OpEntries or OpList (a folder's entries), OpStat
	Path, Sig string     // Sig as overlay.Sign gives it
	// Stat and Newest are the input's fingerprint and the newest of its
	// times, as FdPrint gives them, when the caller took them from the
	// open file or folder before reading it; else StoreInputs stats Path.
	Stat   string
	Newest time.Time
}

// LookupInputs returns the result stored for key by StoreInputs if every
// input is as it was. It is counted in InputStats, not in Stats (units).
func (c *Cache) LookupInputs(key []byte) (result []byte, hit bool) {
	if c == nil {
		return nil, false
	}
	defer func() {
		if hit {
			c.inputHits.Add(1)
		} else {
			c.inputMisses.Add(1)
		}
	}()
	began := time.Now()
	e, ok := c.read(c.entryName(key))
	if !ok {
		return nil, false
	}
	settled := make([]string, len(e.Inputs))
	var refresh atomic.Bool
	if !c.validStat(e.Inputs, func(i int, fp string, newest time.Time) {
		if newest.Before(began.Add(-racyWindow)) {
			settled[i] = fp
			refresh.Store(true)
		}
	}) {
		return nil, false
	}
	if refresh.Load() {
		for i, fp := range settled {
			if fp != "" {
				e.Inputs[i].Stat = fp
			}
		}
		c.write(key, e)
	}
	return e.Result, true
}

// InputStats are the run's LookupInputs that found a valid entry and
// those that did not.
func (c *Cache) InputStats() (hits, misses int64) {
	if c == nil {
		return 0, 0
	}
	return c.inputHits.Load(), c.inputMisses.Load()
}

// StoreInputs stores result as key's entry, computed from inputs read
// after began (the time before the first of them was read).
func (c *Cache) StoreInputs(key []byte, began time.Time, inputs []Input, result []byte) {
	if c == nil || result == nil {
		return
	}
	inputs = Fingerprinted(began, inputs)
	recs := make([]record, len(inputs))
	for i, in := range inputs {
		recs[i] = record{Op: in.Op, Path: in.Path, Sig: in.Sig, Stat: in.Stat}
	}
	c.write(key, &entry{Inputs: recs, Result: result})
}

// Fingerprinted returns inputs read after began with the stat fingerprint
// each may be checked by (Unchanged): the one the caller took, else one
// taken now; none for a racy input, which is compared by content.
func Fingerprinted(began time.Time, inputs []Input) []Input {
	out := make([]Input, len(inputs))
	parallel.For(len(inputs), workers(len(inputs)), func(i int) {
		in := inputs[i]
		fp, newest, ok := in.Stat, in.Newest, in.Stat != ""
		if !ok {
			fp, newest, ok = fingerprint(in.Op, in.Path)
		}
		in.Stat = ""
		if ok && newest.Before(began.Add(-racyWindow)) {
			in.Stat, in.Newest = fp, newest
		}
		out[i] = in
	})
	return out
}

// Unchanged reports whether every input (Fingerprinted) still has its
// signature, checked as LookupInputs checks an entry's: by stat where the
// fingerprint vouches for it, else by content. It keeps nothing: a caller
// that holds a result in memory checks its inputs with it.
func Unchanged(inputs []Input) bool {
	recs := make([]record, len(inputs))
	for i, in := range inputs {
		recs[i] = record{Op: in.Op, Path: in.Path, Sig: in.Sig, Stat: in.Stat}
	}
	return (&Cache{}).validStat(recs, func(int, string, time.Time) {})
}

// validStat is valid for inputs that may have fingerprints, checked on
// every CPU when there are many. settle is told of each input without a
// fingerprint that was found unchanged, with its fingerprint now (taken
// before it was signed) and the newest of its times.
func (c *Cache) validStat(inputs []record, settle func(i int, fp string, newest time.Time)) bool {
	var bad atomic.Bool
	const chunk = 512
	parallel.For((len(inputs)+chunk-1)/chunk, workers(len(inputs)), func(k int) {
		// A fingerprint is compared in a buffer of the worker's: most
		// match, and a string of each would be ten thousand allocations.
		buf := make([]byte, 0, 128)
		for i := k * chunk; i < min(len(inputs), (k+1)*chunk) && !bad.Load(); i++ {
			in := inputs[i]
			var newest time.Time
			ok := statable(in.Op, in.Path)
			if ok {
				buf, newest, ok = appendPathPrint(buf[:0], in.Path)
			}
			if ok && in.Stat != "" && string(buf) == in.Stat {
				continue
			}
			if !c.valid(inputs[i : i+1]) {
				bad.Store(true)
				return
			}
			if ok {
				settle(i, string(buf), newest)
			}
		}
	})
	return !bad.Load()
}

// workers is how many goroutines check n inputs: one per CPU Go runs on,
// each with at least 1,024 of them (fewer are not worth a goroutine).
func workers(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/1024))
}

// fingerprint is path's stat fingerprint for op, following links as the
// read did, and the newest of its times; none for an input a stat cannot
// vouch for, or a path an editor's buffer stands in for.
func fingerprint(op overlay.Op, path string) (string, time.Time, bool) {
	if !statable(op, path) {
		return "", time.Time{}, false
	}
	return pathPrint(path)
}

// statable reports whether an input may be vouched for by its path's
// fingerprint: a read or a listing, of a path no editor's buffer stands in
// for.
func statable(op overlay.Op, path string) bool {
	switch op {
	case overlay.OpRead, overlay.OpEntries, overlay.OpList:
	default:
		return false
	}
	_, buffered := overlay.Get(path)
	return !buffered
}
