// Package parallel runs independent pieces of work on a fixed set of
// goroutines. The pieces are numbered, and each writes its own slot of a
// result slice, so results keep their order however the work is scheduled.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For runs fn(0), ..., fn(n-1) on up to jobs goroutines, and on the
// caller's goroutine when jobs is 1 or less. The goroutines live as long as
// the call: each takes the next index when it is done with one, so a
// worker's grown stack serves every piece it runs.
func For(n, jobs int, fn func(i int)) {
	jobs = min(jobs, n)
	if jobs <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	// Indices are claimed from a counter, not handed over a channel: a
	// hand-over wakes a parked worker for every piece, which costs more
	// than a small piece (listing one folder) itself.
	var wg sync.WaitGroup
	var next atomic.Int64
	for range jobs {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
				// Workers that never park keep other goroutines waiting
				// for a preemption: among them the finalizer that lowers
				// the collector's target after each collection
				// (cli.tuneGC), so a monorepo's heap goal reached 95 MB
				// where 50 was due.
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
}
