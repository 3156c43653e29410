package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Static mode never opens a socket. kustomize and Helm are given no way to
// fetch (see source/kustomize and source/helm); this is the second wall:
// Go's default HTTP transport, which both libraries fall back on, refuses
// every request in this process. The cluster subcommand builds its own
// transports and is unaffected.
func offline() { http.DefaultTransport = refuseTransport{} }

type refuseTransport struct{}

func (refuseTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("webhooklint lints offline and does not fetch %s", r.URL.Redacted())
}

// ExitCannotGoOn is the status of a run that had to stop: its memory use
// reached the limit. It shares ExitInternal's number: either way there is
// no verdict on the input.
const ExitCannotGoOn = ExitInternal

var watchOnce sync.Once

// limitMemory sets a soft memory limit, so the collector works harder
// before the process grows past what the machine (or its cgroup, or its
// address-space limit) allows, and starts a watchdog that ends the run
// with one line and ExitCannotGoOn when the live heap still reaches it.
// Without it an input that needs too much memory ends in the Go runtime's
// fatal "out of memory" with a stack trace and status 2, which reads as a
// usage error.
func limitMemory(stderr io.Writer) {
	watchOnce.Do(func() {
		limit := memoryLimit()
		if limit <= 0 {
			return
		}
		if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
			debug.SetMemoryLimit(limit)
		}
		go watchMemory(limit, stderr, func() { os.Exit(ExitCannotGoOn) })
	})
}

// memoryLimit is GOMEMLIMIT when set, else three quarters of the
// smallest of physical memory, the cgroup limit and half the address
// space limit (Go reserves address space well beyond its heap).
func memoryLimit() int64 {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return debug.SetMemoryLimit(-1)
	}
	limit := int64(0)
	for _, l := range systemLimits() {
		if l > 0 && (limit == 0 || l < limit) {
			limit = l
		}
	}
	return limit / 4 * 3
}

var memSamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/gc/heap/live:bytes"},
}

// watchMemory polls the heap. When the heap's objects pass the limit, a
// collection tells live data from garbage; live data above nine tenths of
// the limit cannot be collected away, so the run stops.
func watchMemory(limit int64, stderr io.Writer, exit func()) {
	s := make([]metrics.Sample, len(memSamples))
	copy(s, memSamples)
	for range time.Tick(20 * time.Millisecond) {
		metrics.Read(s)
		if int64(s[0].Value.Uint64()) < limit {
			continue
		}
		runtime.GC()
		metrics.Read(s)
		if live := int64(s[1].Value.Uint64()); live > limit/10*9 {
			fmt.Fprintf(stderr, "webhooklint: cannot go on: the run needs more than its memory limit of %d MiB; lint fewer files at once, or raise the limit with GOMEMLIMIT\n", limit>>20)
			exit()
			return
		}
	}
}
