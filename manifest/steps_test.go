package manifest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
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

// TestStepTableReplacedWhenFull: once the table has maxSteps steps, new
// indexes number with a new one, and an index made before still finds
// its paths through its own.
func TestStepTableReplacedWhenFull(t *testing.T) {
	old := newIndex()
	old.set(".metadata.annotations[typed-key]", diag.Span{Line: 3, Column: 5}, diag.Span{Line: 3, Column: 16})
	old.freeze()
	for i := 0; old.steps.size() < maxSteps; i++ {
		old.steps.id(fmt.Sprintf("[typed-%d]", i))
	}
	fresh := newIndex()
	if fresh.steps == old.steps {
		t.Fatalf("a new index numbers with the full table (%d steps)", old.steps.size())
	}
	if _, ok := fresh.steps.lookup("[typed-key]"); ok {
		t.Error("the new table has the old one's steps")
	}
	fresh.set(".metadata.name", diag.Span{Line: 4, Column: 3}, diag.Span{Line: 4, Column: 9})
	fresh.freeze()
	if r, exact, ok := old.Lookup(".metadata.annotations[typed-key]", true); !ok || !exact || r.Line != 3 || r.Column != 5 {
		t.Errorf("the old index after the replacement: %+v, exact %v, ok %v", r, exact, ok)
	}
	if r, exact, ok := fresh.Lookup(".metadata.name", false); !ok || !exact || r.Line != 4 || r.Column != 9 {
		t.Errorf("the new index: %+v, exact %v, ok %v", r, exact, ok)
	}
}
