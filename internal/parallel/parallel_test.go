package parallel

import (
	"sync/atomic"
	"testing"
)

func TestForRunsEachIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, jobs int }{{0, 4}, {1, 4}, {7, 1}, {7, 0}, {100, 3}, {3, 100}} {
		counts := make([]int32, tc.n)
		var running, most atomic.Int32
		For(tc.n, tc.jobs, func(i int) {
			now := running.Add(1)
			for {
				m := most.Load()
				if now <= m || most.CompareAndSwap(m, now) {
					break
				}
			}
			atomic.AddInt32(&counts[i], 1)
			running.Add(-1)
		})
		for i, c := range counts {
			if c != 1 {
				t.Errorf("n=%d jobs=%d: index %d ran %d times", tc.n, tc.jobs, i, c)
			}
		}
		if limit := int32(max(tc.jobs, 1)); most.Load() > limit {
			t.Errorf("n=%d jobs=%d: %d ran at once", tc.n, tc.jobs, most.Load())
		}
	}
}
