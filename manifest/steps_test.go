package manifest

import (
	"fmt"
	"sync"
	"testing"
)

// TestStepTableConcurrent interns overlapping steps from several
// goroutines, across chunk boundaries: each step gets one number, and the
// number gives the step back.
func TestStepTableConcurrent(t *testing.T) {
	var tab stepTable
	const n = 3*stepChunk + 7
	ids := make([][]uint32, 4)
	var wg sync.WaitGroup
	for g := range ids {
		ids[g] = make([]uint32, n)
		wg.Go(func() {
			for i := range n {
				k := (i*(g+1) + g) % n // each goroutine in its own order
				ids[g][k] = tab.id(fmt.Sprintf("[step-%d]", k))
				if got := tab.name(ids[g][k]); got != fmt.Sprintf("[step-%d]", k) {
					t.Errorf("name(id(%q)) = %q", fmt.Sprintf("[step-%d]", k), got)
				}
			}
		})
	}
	wg.Wait()
	seen := map[uint32]bool{}
	for k := range n {
		for g := range ids {
			if ids[g][k] != ids[0][k] {
				t.Fatalf("step %d has numbers %d and %d", k, ids[0][k], ids[g][k])
			}
		}
		if seen[ids[0][k]] {
			t.Fatalf("number %d given twice", ids[0][k])
		}
		seen[ids[0][k]] = true
		if id, ok := tab.lookup(fmt.Sprintf("[step-%d]", k)); !ok || id != ids[0][k] {
			t.Errorf("lookup(step %d) = %d, %v", k, id, ok)
		}
	}
	if _, ok := tab.lookup("[never-added]"); ok {
		t.Error("lookup found a step never added")
	}
}
