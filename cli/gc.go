package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/webhooklint/webhooklint/internal/gcstart"
)

// GCPercent is the garbage collector target the command line starts with,
// set from package init on (see gcstart).
const GCPercent = gcstart.Percent

// gcHeadroom is how far the heap may grow past the live data between two
// collections. A fixed GOGC of 400 would let a large input's heap reach five
// times its live data; past gcHeadroom/4 of live data the target falls
// towards GOGC 100, so memory stays within twice what the run keeps.
const gcHeadroom = 32 << 20

var tuneOnce sync.Once

// tuneGC sets the collector's target for a run and keeps it adjusted to
// the live heap after every collection. A GOGC set by the user wins.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	tuneOnce.Do(func() {
		debug.SetGCPercent(GCPercent)
		armGCTuner()
	})
}

// gcSentinel is garbage as soon as it is made: its finalizer runs once
// after each collection and re-arms itself. (It holds a pointer so the
// tiny allocator does not merge it with other objects.)
type gcSentinel struct{ _ *int }

func armGCTuner() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		debug.SetGCPercent(gcPercentFor(liveHeap()))
		armGCTuner()
	})
}

// gcPercentFor gives the heap gcHeadroom to grow while live data is small,
// and never less than GOGC 100.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return GCPercent
	}
	return int(min(GCPercent, max(100, gcHeadroom*100/live)))
}

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

func liveHeap() uint64 {
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return liveSample[0].Value.Uint64()
}
