package manifest

import (
	"strings"
	"sync"
	"sync/atomic"
)

// stepNames numbers the path steps of the position indexes made since it
// was last replaced (".name", "[0]", "[app.kubernetes.io/name]"). A node
// then stores a number: an index holds no pointers, so the collector never
// scans it, and each node takes 44 bytes instead of 64. Steps repeat across
// documents (field names, list indexes, common label keys), so the table
// stays small next to the indexes that use it.
//
// Each index keeps the table it was made with, and a table that has
// numbered maxSteps steps is replaced for the indexes made after it: the
// editor server lints for days, and every key a user types (each prefix of
// it too) is a step; a table for the process would keep them all. An old
// table goes when the last index that numbers with it does.
var stepNames atomic.Pointer[stepTable]

// maxSteps is about 3 MB of table. The indexed objects of every tree in
// the corpora number under 200 distinct steps: only an editor's stream of
// new keys reaches it.
const maxSteps = 1 << 14

// currentSteps is the table new indexes number their steps with.
func currentSteps() *stepTable {
	for {
		t := stepNames.Load()
		if t != nil && t.size() < maxSteps {
			return t
		}
		stepNames.CompareAndSwap(t, &stepTable{})
	}
}

const stepChunk = 1 << 10

type stepTable struct {
	ids    sync.Map // string -> uint32
	mu     sync.Mutex
	n      uint32
	chunks atomic.Pointer[[]*[stepChunk]string] // grown under mu, read without it
}

// id returns the number of step, adding it.
func (t *stepTable) id(step string) uint32 {
	if v, ok := t.ids.Load(step); ok {
		return v.(uint32)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.ids.Load(step); ok {
		return v.(uint32)
	}
	id := t.n
	t.n++
	var chunks []*[stepChunk]string
	if p := t.chunks.Load(); p != nil {
		chunks = *p
	}
	if int(id/stepChunk) == len(chunks) {
		grown := append(chunks[:len(chunks):len(chunks)], new([stepChunk]string))
		t.chunks.Store(&grown)
		chunks = grown
	}
	// A step is usually cut from a longer path: keep only its own bytes.
	// The slot is written before the id is published in ids.
	chunks[id/stepChunk][id%stepChunk] = strings.Clone(step)
	t.ids.Store(chunks[id/stepChunk][id%stepChunk], id)
	return id
}

// size is how many steps t has numbered.
func (t *stepTable) size() uint32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// lookup returns the number of step if some index has it.
func (t *stepTable) lookup(step string) (uint32, bool) {
	v, ok := t.ids.Load(step)
	if !ok {
		return 0, false
	}
	return v.(uint32), true
}

// name is the step numbered id.
func (t *stepTable) name(id uint32) string {
	return (*t.chunks.Load())[id/stepChunk][id%stepChunk]
}
