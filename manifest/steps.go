package manifest

import (
	"strings"
	"sync"
	"sync/atomic"
)

// stepNames numbers the path steps of every position index in the process
// (".name", "[0]", "[app.kubernetes.io/name]"). A node then stores a
// number: an index holds no pointers, so the collector never scans it,
// and each node takes 44 bytes instead of 64. Steps repeat across
// documents (field names, list indexes, common label keys), so the table
// stays small next to the indexes that use it.
var stepNames stepTable

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
