package cache

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"
)

// A run that names one file of a monorepo spends most of its time on two
// things that do not depend on each other: the initialization of the
// binary's packages (Kubernetes' schemes, Helm's JSON Schema drafts, CEL:
// about 15 ms on one CPU before main runs) and the check of the discovery
// index (a stat of each of ten thousand folders and kustomization files).
// Prefetch starts the check from a package init, while the other
// packages initialize, so that the two share the CPUs.
//
// The check is the lookup's own, started earlier: it reads the same
// entry and compares the same inputs, each no earlier than the process
// started, so what it finds is what a lookup at that moment would find.
// A lookup of another entry, or in another folder, ignores it.

// pending is the prefetched check, until a lookup takes it.
var pending atomic.Pointer[prefetch]

type prefetch struct {
	dir    string        // the disk folder
	key    []byte        // the entry's key
	loaded chan struct{} // closed once name and k are set
	name   string        // the entry's name ("" when the build has no ID)
	k      *check        // nil when there was no entry to check
}

// Prefetch starts checking, on a goroutine of its own, the entry that
// LookupInputs(key) would check in the cache folder dir (as Location
// gives it).
func Prefetch(dir string, key []byte) {
	p := &prefetch{dir: filepath.Join(dir, format), key: key, loaded: make(chan struct{})}
	pending.Store(p)
	go p.run()
}

func (p *prefetch) run() {
	began := time.Now()
	// A binary without Go's build ID is named by the hash of its file,
	// which only Open computes: nothing is checked for it.
	id := toolID()
	ok := false
	if id != "" {
		p.name = entryName(inputsSalt(id), p.key)
		// A failure is not reported here: the lookup reads the entry
		// again when there is nothing to take, and warns as it would.
		var e *entry
		if e, ok = readEntry(&disk{dir: p.dir}, p.name, func(error) {}); ok {
			p.k = newCheck(&Cache{}, e.Inputs, began)
			p.k.e = e
			p.k.workers.Add(1)
		}
	}
	close(p.loaded)
	if ok {
		defer p.k.workers.Done()
		// One goroutine: the packages still initializing hold the other
		// CPU, and the lookup joins in when it comes.
		p.k.work()
	}
}

// prefetched returns the check of the entry name, finished, when one was
// started for it in this cache's folder: the lookup's goroutines take what
// is left of it.
func (c *Cache) prefetched(name string) *check {
	d, ok := c.store.(*disk)
	p := pending.Load()
	if !ok || p == nil || p.dir != d.dir {
		return nil
	}
	<-p.loaded
	if p.name != name || !pending.CompareAndSwap(p, nil) || p.k == nil {
		return nil
	}
	p.k.run(max(1, workers(len(p.k.inputs))-1))
	p.k.workers.Wait()
	return p.k
}

// inputsSalt names the entries of LookupInputs for a build of the tool.
func inputsSalt(id string) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "webhooklint cache %s\x00%s\x00inputs listed by the caller\x00", format, id)
	return h.Sum(nil)
}

// IndexKey is the key of the discovery index of the scope at root (the
// walk of its kustomizations, package source), which a run may prefetch
// before it has read its flags.
func IndexKey(root string) []byte {
	return []byte("discovery index\x00" + root)
}
