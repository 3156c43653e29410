package manifest

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
)

// span is a diag.Span (without its file, which is the document's) as the
// index stores it: every webhook configuration
// keeps its index until the report, so each entry is kept small.
type span struct{ line, col, endLine, endCol int32 }

func toSpan(r diag.Span) span {
	return span{clamp32(r.Line), clamp32(r.Column), clamp32(r.EndLine), clamp32(r.EndColumn)}
}

func clamp32(n int) int32 { return int32(min(n, 1<<31-1)) }

func (s span) Span() diag.Span {
	return diag.Span{Line: int(s.line), Column: int(s.col), EndLine: int(s.endLine), EndColumn: int(s.endCol)}
}

// node is one step of a field path (a field name, "[3]" or "[key]") with
// where it is written. Children of a node are stored next to each other,
// sorted by step, so a lookup is one binary search per step.
type node struct {
	step       uint32 // number in the index's steps, with writtenBit
	key, value span
	children   int32 // index of the first child
	nChildren  int32
}

// writtenBit marks a node that was set; the others are ancestors nobody
// set, never looked up as exact.
const writtenBit = 1 << 31

func (n *node) written() bool  { return n.step&writtenBit != 0 }
func (n *node) stepID() uint32 { return n.step &^ writtenBit }

// Index maps API field paths (as the server prints them) to where they are
// written. It is built while the document is decoded, then frozen into a
// tree of path steps: no path string is kept per entry. Frozen, it is kept
// packed (about an eighth of the size) until its first lookup: a unit
// holds every document's index until its rules have run, and most are
// looked up once, right after.
type Index struct {
	nodes []node     // nodes[0] is the object itself (path ""); nil while packed
	steps *stepTable // what the nodes' step numbers stand for

	packed  []byte
	mu      sync.Mutex // a frozen index unpacks after packedLookups lookups
	lookups int

	// b is set while building, nil once frozen: a unit keeps every
	// frozen index until its rules have run.
	b *building
}

// building is what an index needs only while it is built: each node's
// children as a linked list, and for nodes with many children (a map of
// labels) a map from (parent, step) so that adding a field stays O(1).
type building struct {
	links []link
	wide  map[stepKey]int32
	// scratch is where nodes and links came from, reused after freeze.
	scratch *scratch
}

type link struct{ first, last, next, count int32 }

type stepKey struct {
	parent int32
	step   uint32
}

// wideAt is the number of children from which a node's children are also
// kept in building.wide; below it a scan of the list is cheaper than hashing.
const wideAt = 16

func newIndex() *Index { return newIndexFor(64) }

// newIndexFor makes an index with room for n nodes (more may be added).
func newIndexFor(n int) *Index {
	n = max(n, 1)
	sc := buildScratch.Get().(*scratch)
	ix := &Index{nodes: sc.nodes[:0], steps: currentSteps(), b: &building{links: sc.links[:0], scratch: sc}}
	if cap(ix.nodes) < n {
		ix.nodes, ix.b.links = make([]node, 0, n), make([]link, 0, n)
	}
	ix.nodes = append(ix.nodes, node{})
	ix.b.links = append(ix.b.links, link{first: -1, last: -1, next: -1})
	return ix
}

// scratch is what an index is built in: its nodes and their links, and
// the breadth-first copy and queue freeze lays them out with. All of it
// is garbage once the index is packed, about 10 KB a two-webhook
// configuration, made while the unit's other files load (everything
// allocated while the collector marks counts as live), so it is reused.
type scratch struct {
	nodes, out []node
	links      []link
	queue      []int32
}

var buildScratch = sync.Pool{New: func() any { return &scratch{} }}

// release gives the build's buffers back to the pool; a huge CRD's are
// not kept for the next small configuration.
func (ix *Index) release() {
	sc := ix.b.scratch
	if sc == nil {
		return
	}
	ix.b.scratch = nil
	if cap(ix.nodes) > maxScratchNodes {
		return
	}
	sc.nodes, sc.links = ix.nodes[:0], ix.b.links[:0]
	buildScratch.Put(sc)
}

// maxScratchNodes bounds the scratch kept for reuse (about 100 KB).
const maxScratchNodes = 1 << 11

// valueNodes counts the nodes under n the decoder indexes: every node but
// mapping keys, aliases counted once (a bound, not an exact count, is
// enough for sizing).
func valueNodes(n *yaml.Node, budget int) int {
	count := 1
	if n == nil || budget <= 0 {
		return count
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content) && count < budget; i += 2 {
			count += valueNodes(n.Content[i], budget-count)
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			if count >= budget {
				break
			}
			count += valueNodes(c, budget-count)
		}
	}
	return count
}

// at returns the node for path, creating it and its missing ancestors.
func (ix *Index) at(path string) int32 {
	if path == "" {
		return 0
	}
	pp := fieldpath.Parent(path)
	return ix.child0(ix.at(pp), path[len(pp):])
}

// child0 returns parent's child at step, creating it.
func (ix *Index) child0(parent int32, name string) int32 {
	step := ix.steps.id(name)
	if i, ok := ix.findChild(parent, step); ok {
		return i
	}
	i := int32(len(ix.nodes))
	ix.nodes = append(ix.nodes, node{step: step})
	ix.b.links = append(ix.b.links, link{first: -1, last: -1, next: -1})
	p := &ix.b.links[parent]
	if p.last < 0 {
		p.first = i
	} else {
		ix.b.links[p.last].next = i
	}
	p.last = i
	p.count++
	switch {
	case p.count == wideAt:
		if ix.b.wide == nil {
			ix.b.wide = map[stepKey]int32{}
		}
		for k := p.first; k >= 0; k = ix.b.links[k].next {
			ix.b.wide[stepKey{parent, ix.nodes[k].stepID()}] = k
		}
	case p.count > wideAt:
		ix.b.wide[stepKey{parent, step}] = i
	}
	return i
}

// findChild returns parent's child at step while building.
func (ix *Index) findChild(parent int32, step uint32) (int32, bool) {
	if ix.b.links[parent].count >= wideAt {
		i, ok := ix.b.wide[stepKey{parent, step}]
		return i, ok
	}
	for k := ix.b.links[parent].first; k >= 0; k = ix.b.links[k].next {
		if ix.nodes[k].stepID() == step {
			return k, true
		}
	}
	return 0, false
}

func (ix *Index) set(path string, key, value diag.Span) {
	ix.write(ix.at(path), key, value)
}

// setUnder is set for a path whose parent field (at parentPath) is node
// parent, as the decoder knows while it walks down; it returns the node.
func (ix *Index) setUnder(parent int32, parentPathOf, path string, key, value diag.Span) int32 {
	i := int32(0)
	if pp := fieldpath.Parent(path); pp == parentPathOf {
		i = ix.child0(parent, path[len(pp):])
	} else {
		// A map key holding '.' or '[' is cut where Lookup cuts it.
		i = ix.at(path)
	}
	ix.write(i, key, value)
	return i
}

func (ix *Index) write(i int32, key, value diag.Span) {
	if ix.b == nil {
		panic("manifest: index set after freeze")
	}
	n := &ix.nodes[i]
	n.key, n.value = toSpan(key), toSpan(value)
	n.step |= writtenBit
}

// freeze drops the build-time links and lays the tree out for lookups:
// breadth-first, children of a node contiguous and sorted by step.
func (ix *Index) freeze() {
	if ix == nil || ix.b == nil {
		return
	}
	var out []node
	var queue []int32 // old indexes, in the order of out
	if sc := ix.b.scratch; sc != nil {
		out, queue = sc.out[:0], sc.queue[:0]
	}
	out = append(slices.Grow(out, len(ix.nodes)), ix.nodes[0])
	queue = append(slices.Grow(queue, len(ix.nodes)), 0)
	for head := 0; head < len(queue); head++ {
		old := queue[head]
		first := len(queue)
		for k := ix.b.links[old].first; k >= 0; k = ix.b.links[k].next {
			queue = append(queue, k)
		}
		kids := queue[first:]
		slices.SortFunc(kids, func(a, b int32) int { return cmp.Compare(ix.name(ix.nodes[a]), ix.name(ix.nodes[b])) })
		out[head].children, out[head].nChildren = int32(len(out)), int32(len(kids))
		for _, k := range kids {
			out = append(out, ix.nodes[k])
		}
	}
	ix.packed = pack(out, ix.steps)
	if sc := ix.b.scratch; sc != nil && cap(out) <= maxScratchNodes {
		sc.out, sc.queue = out[:0], queue[:0]
	}
	ix.release()
	ix.nodes, ix.b = nil, nil
}

// pack writes frozen nodes as varints, after their number. Children follow
// breadth-first, so where a node's children start follows from the counts
// before it. Most of a node's numbers follow from where YAML puts things
// ("key: value" on one line, siblings in one column, a key as long as its
// name): a flags byte says which numbers are what the layout predicts
// (layout), and only the others are written, lines as differences. A
// two-webhook configuration's index is about 5 bytes a node, not 10.
func pack(nodes []node, steps *stepTable) []byte {
	buf := packScratch.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= 1<<20 { // a huge CRD's buffer is not kept for the next small one
			packScratch.Put(buf)
		}
	}()
	out := (*buf)[:0]
	out = binary.AppendUvarint(out, uint64(len(nodes)))
	var l layout
	for _, n := range nodes {
		out = binary.AppendUvarint(out, packStep(n.step))
		flags := l.flags(n, steps.name(n.stepID()))
		out = append(out, flags)
		if flags&leaf == 0 {
			out = binary.AppendUvarint(out, uint64(n.nChildren))
		}
		if flags&keyNone == 0 {
			out = binary.AppendVarint(out, int64(n.key.line)-int64(l.line))
			if flags&keyColSame == 0 {
				out = binary.AppendUvarint(out, uint64(uint32(n.key.col)))
			}
			if flags&keyEndByName == 0 {
				out = binary.AppendVarint(out, int64(n.key.endLine)-int64(n.key.line))
				out = binary.AppendUvarint(out, uint64(uint32(n.key.endCol)))
			}
		}
		if flags&valueNone == 0 {
			if flags&valueOnLine == 0 {
				out = binary.AppendVarint(out, int64(n.value.line)-int64(l.valueLineBase(n.key, flags)))
			}
			if flags&valueAtCol == 0 {
				out = binary.AppendUvarint(out, uint64(uint32(n.value.col)))
			}
			if flags&valueOneLine == 0 {
				out = binary.AppendVarint(out, int64(n.value.endLine)-int64(n.value.line))
			}
			out = binary.AppendUvarint(out, uint64(uint32(n.value.endCol)))
		}
		l.next(n, flags)
	}
	*buf = out
	// Copied at its length: every index of a unit is kept packed until its
	// findings are located, and a buffer sized for the worst case (16
	// bytes a node) kept 12% more than it used.
	return slices.Clone(out)
}

// The flags of a packed node: each set bit stands for numbers not written.
const (
	keyNone      = 1 << iota // no key (the object, a sequence item, an ancestor nobody set)
	keyColSame               // the key's column is the last key's (siblings of a block mapping)
	keyEndByName             // the key ends on its line, its step's name after its column
	valueNone                // no value (an ancestor nobody set)
	valueOnLine              // the value starts on its key's line; without a key, on the last line written
	valueAtCol               // the value starts two columns after its key ("key: value"); without a key, in the last value's column
	valueOneLine             // the value ends on the line it starts on
	leaf                     // no children
)

// layout is what pack and packedReader predict a node's numbers from: the
// nodes before it, in order.
type layout struct {
	line             int32 // the last line written
	keyCol, valueCol int32 // the last key's and the last value's columns
}

// flags returns which of n's numbers the layout predicts; name is n's step.
func (l *layout) flags(n node, name string) byte {
	var f byte
	if n.nChildren == 0 {
		f |= leaf
	}
	if n.key == (span{}) {
		f |= keyNone
	} else {
		if n.key.col == l.keyCol {
			f |= keyColSame
		}
		if n.key.endLine == n.key.line && int64(n.key.endCol) == keyEnd(n.key.col, name) {
			f |= keyEndByName
		}
	}
	if n.value == (span{}) {
		return f | valueNone
	}
	if n.value.line == l.valueLineBase(n.key, f) {
		f |= valueOnLine
	}
	if int64(n.value.col) == l.valueColFor(n.key, f) {
		f |= valueAtCol
	}
	if n.value.endLine == n.value.line {
		f |= valueOneLine
	}
	return f
}

// keyEnd is where a key written as its step's name ends: ".name" and
// "[key]" are written name and key.
func keyEnd(col int32, name string) int64 {
	n := len(name)
	if strings.HasPrefix(name, "[") {
		n -= 2
	} else if strings.HasPrefix(name, ".") {
		n--
	}
	return int64(col) + int64(n)
}

func (l *layout) valueLineBase(key span, flags byte) int32 {
	if flags&keyNone == 0 {
		return key.line
	}
	return l.line
}

func (l *layout) valueColFor(key span, flags byte) int64 {
	if flags&keyNone == 0 {
		return int64(key.endCol) + 2
	}
	return int64(l.valueCol)
}

// next records n, written or read, for the nodes after it.
func (l *layout) next(n node, flags byte) {
	if flags&keyNone == 0 {
		l.line, l.keyCol = n.key.line, n.key.col
	}
	if flags&valueNone == 0 {
		l.line, l.valueCol = n.value.line, n.value.col
	}
}

// packScratch holds the buffers pack writes into before copying.
var packScratch = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// packStep puts a step's written bit at the bottom: at the top, as a node
// keeps it, every written step took five bytes of varint instead of one or
// two (a quarter of a configuration's packed index).
func packStep(step uint32) uint64 {
	v := uint64(step&^writtenBit) << 1
	if step&writtenBit != 0 {
		v |= 1
	}
	return v
}

func unpackStep(v uint64) uint32 {
	step := uint32(v >> 1)
	if v&1 != 0 {
		step |= writtenBit
	}
	return step
}

// packedBytes returns the packed nodes, or nil once they are unpacked
// (an index with more lookups than packedLookups).
func (ix *Index) packedBytes() []byte {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.packed == nil {
		return nil
	}
	if ix.lookups++; ix.lookups > packedLookups {
		ix.nodes, ix.packed = ix.unpack(ix.packed), nil
		return nil
	}
	return ix.packed
}

// packedLookups is how many lookups read the packed nodes before they are
// unpacked. A lookup decodes the nodes up to the one it finds, as an
// unpack decodes them all, but allocates nothing: a configuration is
// looked up a few times, right after its rules ran, then dropped, and in a
// unit of thousands the unpacked nodes were a sixth of what its rules
// allocated (garbage the collector keeps while it marks). An object with
// many findings (a large CRD) is unpacked once instead of scanned for
// each.
const packedLookups = 8

// lookupPacked is Lookup on packed nodes: it decodes them in order (the
// layout of pack), keeping only where the path's next step's siblings
// start, and stops at the first step that is not there.
func (ix *Index) lookupPacked(b []byte, steps []string, atKey bool) (diag.Span, bool, bool) {
	r := packedReader{b: b, next: 1, steps: ix.steps}
	count := int32(r.uvarint())
	var best node
	found, depth := false, 0
	// The node at i is the wanted step's sibling when first <= i < first+n.
	first, n := int32(0), int32(1)
	d := -1 // the depth of the node wanted: -1 for the object itself
	for i := int32(0); i < count && len(r.b) > 0; i++ {
		nd := r.node()
		if i < first {
			continue
		}
		if i >= first+n {
			break // the step is not among the children
		}
		if d >= 0 && ix.name(nd) != steps[d] {
			continue
		}
		if nd.written() {
			best, found, depth = nd, true, d+1
		}
		if d++; d == len(steps) {
			break
		}
		first, n = nd.children, nd.nChildren
	}
	if !found {
		return diag.Span{}, false, false
	}
	return best.pick(atKey, depth == len(steps))
}

func (ix *Index) unpack(b []byte) []node {
	r := packedReader{b: b, next: 1, steps: ix.steps}
	// Sized from the start: every located finding unpacks an index, and
	// growing one by appends made twice its size of garbage.
	nodes := make([]node, 0, r.uvarint())
	for len(r.b) > 0 {
		nodes = append(nodes, r.node())
	}
	return nodes
}

// packedReader decodes packed nodes in order (the layout of pack).
type packedReader struct {
	b     []byte
	steps *stepTable
	l     layout
	next  int32 // where the next node's children start
}

func (r *packedReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	r.b = r.b[n:]
	return v
}

func (r *packedReader) varint() int64 {
	v, n := binary.Varint(r.b)
	r.b = r.b[n:]
	return v
}

func (r *packedReader) node() node {
	n := node{step: unpackStep(r.uvarint())}
	flags := r.b[0]
	r.b = r.b[1:]
	if flags&leaf == 0 {
		n.nChildren = int32(r.uvarint())
	}
	n.children, r.next = r.next, r.next+n.nChildren
	if flags&keyNone == 0 {
		k := &n.key
		k.line = int32(int64(r.l.line) + r.varint())
		k.col = r.l.keyCol
		if flags&keyColSame == 0 {
			k.col = int32(uint32(r.uvarint()))
		}
		if flags&keyEndByName == 0 {
			k.endLine = int32(int64(k.line) + r.varint())
			k.endCol = int32(uint32(r.uvarint()))
		} else {
			k.endLine, k.endCol = k.line, int32(keyEnd(k.col, r.steps.name(n.stepID())))
		}
	}
	if flags&valueNone == 0 {
		v := &n.value
		v.line = r.l.valueLineBase(n.key, flags)
		if flags&valueOnLine == 0 {
			v.line = int32(int64(v.line) + r.varint())
		}
		if flags&valueAtCol == 0 {
			v.col = int32(uint32(r.uvarint()))
		} else {
			v.col = int32(r.l.valueColFor(n.key, flags))
		}
		v.endLine = v.line
		if flags&valueOneLine == 0 {
			v.endLine = int32(int64(v.line) + r.varint())
		}
		v.endCol = int32(uint32(r.uvarint()))
	}
	r.l.next(n, flags)
	return n
}

// name is the step of node n.
func (ix *Index) name(n node) string { return ix.steps.name(n.stepID()) }

func (ix *Index) child(nodes []node, parent int32, step string) (int32, bool) {
	n := nodes[parent]
	kids := nodes[n.children : n.children+n.nChildren]
	i, found := slices.BinarySearchFunc(kids, step, func(k node, s string) int { return strings.Compare(ix.name(k), s) })
	return n.children + int32(i), found
}

// Lookup returns where path is written. A path that is not written (a
// missing field) resolves to its closest written ancestor; atKey prefers
// the mapping key over the value. ok is false only when nothing on the way
// up is indexed.
func (ix *Index) Lookup(path string, atKey bool) (r diag.Span, exact, ok bool) {
	if ix == nil {
		return diag.Span{}, false, false
	}
	if ix.b != nil {
		return ix.lookupBuilding(path, atKey)
	}
	// The steps of path, cut the way the index was built.
	steps := fieldpath.Elements(path)
	if packed := ix.packedBytes(); packed != nil {
		return ix.lookupPacked(packed, steps, atKey)
	}
	nodes := ix.nodes
	if len(nodes) == 0 {
		return diag.Span{}, false, false
	}
	best, depth := int32(-1), 0
	if nodes[0].written() {
		best = 0
	}
	cur := int32(0)
	for d, step := range steps {
		next, found := ix.child(nodes, cur, step)
		if !found {
			break
		}
		cur = next
		if nodes[cur].written() {
			best, depth = cur, d+1
		}
	}
	if best < 0 {
		return diag.Span{}, false, false
	}
	return nodes[best].pick(atKey, depth == len(steps))
}

// lookupBuilding is Lookup on an index still being built (the decoder
// positions its own errors before the index is frozen).
func (ix *Index) lookupBuilding(path string, atKey bool) (r diag.Span, exact, ok bool) {
	exact = true
	for p := path; ; p = fieldpath.Parent(p) {
		if i, found := ix.find(p); found && ix.nodes[i].written() {
			return ix.nodes[i].pick(atKey, exact)
		}
		if p == "" {
			return diag.Span{}, false, false
		}
		exact = false
	}
}

// find returns the node of path while building, if it exists.
func (ix *Index) find(path string) (int32, bool) {
	if path == "" {
		return 0, true
	}
	pp := fieldpath.Parent(path)
	parent, ok := ix.find(pp)
	if !ok {
		return 0, false
	}
	step, ok := ix.steps.lookup(path[len(pp):])
	if !ok {
		return 0, false
	}
	return ix.findChild(parent, step)
}

func (e node) pick(atKey, exact bool) (diag.Span, bool, bool) {
	switch {
	case atKey && exact && e.key.line != 0:
		return e.key.Span(), exact, true
	case !exact && e.key.line != 0:
		// A missing field belongs to its parent: point at the
		// parent's key, which is where a reader adds the field.
		return e.key.Span(), exact, true
	}
	return e.value.Span(), exact, true
}
