package cache

import (
	"runtime"
	"sync"
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
//
// These entries are named by the tool's build and key alone, not by the
// run's configuration: what their caller lists (the discovery index, a
// walk of the files) is the tree's, whatever the flags say. So the check
// of one can start before the flags are read (Prefetch), and runs with
// other flags share it.
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
	name := entryName(c.inputsSalt, key)
	k := c.prefetched(name)
	if k == nil {
		e, ok := c.read(name)
		if !ok {
			return nil, false
		}
		k = newCheck(c, e.Inputs, time.Now())
		k.e = e
		k.run(workers(len(e.Inputs)))
	}
	if k.bad.Load() {
		return nil, false
	}
	if k.refresh.Load() {
		for i, fp := range k.settled {
			if fp != "" {
				k.e.Inputs[i].Stat = fp
			}
		}
		c.writeName(name, k.e)
	}
	return k.e.Result, true
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
	c.writeName(entryName(c.inputsSalt, key), &entry{Inputs: recs, Result: result})
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
	k := newCheck(&Cache{}, recs, time.Time{}) // nothing is settled: the zero time is older than any
	k.run(workers(len(recs)))
	return !k.bad.Load()
}

// A check compares an entry's inputs with the files, in chunks that any
// number of goroutines take in turn: the lookup's own, and the prefetch's
// that started before them (Prefetch).
type check struct {
	c      *Cache // whose signatures of inputs read again are kept
	e      *entry // the entry checked, when a lookup's
	inputs []record
	began  time.Time // before the first input was checked

	next         atomic.Int64 // the next chunk to take
	bad, refresh atomic.Bool
	settled      []string // the fingerprints now of inputs without one found unchanged and settled
	workers      sync.WaitGroup
}

// checkChunk is how many inputs a goroutine takes at a time.
const checkChunk = 512

func newCheck(c *Cache, inputs []record, began time.Time) *check {
	return &check{c: c, inputs: inputs, began: began, settled: make([]string, len(inputs))}
}

// run checks every input on jobs goroutines, the caller's among them.
func (k *check) run(jobs int) {
	parallel.For(jobs, jobs, func(int) { k.work() })
}

// work checks chunks until none is left or an input has changed.
func (k *check) work() {
	// A fingerprint is compared in a buffer of the worker's: most match,
	// and a string of each would be ten thousand allocations.
	buf := make([]byte, 0, 128)
	chunks := (len(k.inputs) + checkChunk - 1) / checkChunk
	for n := int(k.next.Add(1) - 1); n < chunks && !k.bad.Load(); n = int(k.next.Add(1) - 1) {
		for i := n * checkChunk; i < min(len(k.inputs), (n+1)*checkChunk) && !k.bad.Load(); i++ {
			in := k.inputs[i]
			var newest time.Time
			ok := statable(in.Op, in.Path)
			if ok {
				buf, newest, ok = appendPathPrint(buf[:0], in.Path)
			}
			if ok && in.Stat != "" && string(buf) == in.Stat {
				continue
			}
			if !k.c.valid(k.inputs[i : i+1]) {
				k.bad.Store(true)
				return
			}
			// Found unchanged without a fingerprint: one taken before
			// it was signed vouches for it from now on, once settled.
			if ok && newest.Before(k.began.Add(-racyWindow)) {
				k.settled[i] = string(buf)
				k.refresh.Store(true)
			}
		}
		runtime.Gosched() // as parallel.For does between pieces
	}
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
