package manifest

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
)

// A frozen index is kept packed; unpacked, it is the same nodes, whatever
// the lines and columns (a minified file's columns, lines going back up
// between siblings, unset spans).
func TestIndexPacking(t *testing.T) {
	ix := newIndex()
	ix.set("", diag.Span{}, diag.Span{Line: 1, Column: 1, EndLine: 90000, EndColumn: 3})
	ix.set("spec", diag.Span{Line: 70000, Column: 1, EndLine: 70000, EndColumn: 5}, diag.Span{Line: 70001, Column: 3, EndLine: 89999, EndColumn: 1})
	ix.set("metadata.name", diag.Span{Line: 3, Column: 3, EndLine: 3, EndColumn: 7}, diag.Span{Line: 3, Column: 9, EndLine: 3, EndColumn: 1 << 30})
	ix.set("spec.items[0]", diag.Span{}, diag.Span{Line: 70002, Column: 2_000_000_000, EndLine: 70002, EndColumn: 2_000_000_010})
	ix.set("spec.a", diag.Span{Line: 2, Column: 1, EndLine: 2, EndColumn: 2}, diag.Span{})
	want := map[string]diag.Span{}
	for _, p := range []string{"", "spec", "metadata", "metadata.name", "spec.items[0]", "spec.items[0].x", "spec.a", "nothing"} {
		for _, atKey := range []bool{false, true} {
			r, _, _ := ix.Lookup(p, atKey)
			want[p+"|"+map[bool]string{false: "v", true: "k"}[atKey]] = r
		}
	}
	ix.freeze()
	if ix.packed == nil || ix.nodes != nil {
		t.Fatal("a frozen index is not packed")
	}
	for k, w := range want {
		p, atKey := k[:len(k)-2], k[len(k)-1] == 'k'
		if r, _, _ := ix.Lookup(p, atKey); !reflect.DeepEqual(r, w) {
			t.Errorf("Lookup(%q, %v) = %+v after packing, want %+v", p, atKey, r, w)
		}
	}
}

// A packed index keeps no room it does not use: every webhook
// configuration of a folder unit holds its index until its findings are
// located (16 bytes a node were allocated, about 8 used; hack/bench.sh's
// configuration below used 1,149 bytes of 1,312; then 821, and 441 since
// a node writes only what its layout does not predict).
func TestPackedIndexFits(t *testing.T) {
	var text strings.Builder
	text.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: hook-1\n  labels: {app.kubernetes.io/name: hooks-1}\nwebhooks:\n")
	for w := range 2 {
		fmt.Fprintf(&text, `- name: w%d.hook-1.example.com
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: ["v1"]
  timeoutSeconds: 5
  clientConfig:
    service: {name: hooks-1, namespace: hooks-1, path: /validate}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}
  matchConditions:
  - name: not-system
    expression: "!request.userInfo.username.startsWith('system:')"
  rules:
  - apiGroups: [""]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [pods, configmaps]
    scope: Namespaced
`, w)
	}
	f := Parse("hook.yaml", []byte(text.String()))
	if len(f.Docs) != 1 || f.Docs[0].Positions == nil || f.Docs[0].Positions.packed == nil {
		t.Fatalf("want one document with a packed index, got %+v", f.Docs)
	}
	// What pack allocates, not the capacity it reports (Clip hid the
	// rest); Go rounds an allocation up to its size class, at most an
	// eighth.
	ix := f.Docs[0].Positions
	nodes := ix.unpack(ix.packed)
	runtime.GC()
	pack(nodes, ix.steps) // a scratch buffer, if any, is made once, after the collection that would drop it
	// No collection while measuring: one would empty pack's scratch pool
	// and count its buffers made again (seen on a loaded machine: 951
	// bytes a run for 821).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 100
	var n int
	for range runs {
		n = len(pack(nodes, ix.steps))
	}
	runtime.ReadMemStats(&after)
	if per := int(after.TotalAlloc-before.TotalAlloc) / runs; per > n+n/8 {
		t.Errorf("packing an index of %d bytes allocates %d", n, per)
	}
}

// Packing loses nothing, whether or not a node's numbers are the ones
// its layout predicts: the indexes of the test files' objects as
// written, and again with one number of some nodes changed, which breaks
// each prediction in turn.
func TestPackRoundTrip(t *testing.T) {
	var files []string
	for _, dir := range []string{"../testdata", "../examples"} {
		err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if strings.HasSuffix(p, ".yaml") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range Parse(name, data).Docs {
			ix := d.Positions
			if ix == nil || ix.packed == nil {
				continue
			}
			nodes := ix.unpack(ix.packed)
			changed := slices.Clone(nodes)
			for i := range changed {
				if rng.IntN(3) == 0 {
					n := &changed[i]
					fields := []*int32{&n.key.line, &n.key.col, &n.key.endLine, &n.key.endCol,
						&n.value.line, &n.value.col, &n.value.endLine, &n.value.endCol}
					*fields[rng.IntN(len(fields))] += int32(rng.IntN(5)) - 2
				}
			}
			for _, want := range [][]node{nodes, changed} {
				if got := ix.unpack(pack(want, ix.steps)); !slices.Equal(got, want) {
					t.Fatalf("%s: %s %s: packed and unpacked, the nodes differ", name, d.Kind, d.Name)
				}
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d indexes", checked)
	}
}

// A lookup on the packed nodes answers what the unpacked nodes answer, for
// every path written, its missing children and missing siblings.
func TestLookupPacked(t *testing.T) {
	f := Parse("crd.yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: m
  labels: {a: b, "x.y/z": w}
webhooks:
- name: a.example.com
  clientConfig:
    service: {name: s, namespace: n}
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods, pods/exec]
- name: b.example.com
  sideEffects: None
`))
	if len(f.Docs) != 1 || f.Docs[0].Positions == nil {
		t.Fatalf("want one document with an index, got %+v", f.Docs)
	}
	packed := f.Docs[0].Positions.packed
	ix := f.Docs[0].Positions
	unpacked := &Index{nodes: ix.unpack(packed), steps: ix.steps}
	var paths []string
	var walk func(parent int32, path string)
	walk = func(parent int32, path string) {
		paths = append(paths, path, path+".missing", path+"[7]")
		n := unpacked.nodes[parent]
		for c := n.children; c < n.children+n.nChildren; c++ {
			step := unpacked.name(unpacked.nodes[c])
			p := step
			if path != "" && !strings.HasPrefix(step, "[") {
				p = path + "." + step
			} else if path != "" {
				p = path + step
			}
			walk(c, p)
		}
	}
	walk(0, "")
	if len(paths) < 60 {
		t.Fatalf("walked %d paths, want the whole document", len(paths))
	}
	for _, p := range paths {
		for _, atKey := range []bool{false, true} {
			wr, we, wok := unpacked.Lookup(p, atKey)
			r, e, ok := ix.lookupPacked(packed, fieldpath.Elements(p), atKey)
			if r != wr || e != we || ok != wok {
				t.Errorf("packed Lookup(%q, %v) = %+v %v %v, unpacked %+v %v %v", p, atKey, r, e, ok, wr, we, wok)
			}
		}
	}
}

// The first lookups of a packed index unpack nothing: in a unit of
// thousands of configurations, each is looked up a few times right after
// its rules ran, and the unpacked nodes (48 bytes each) were garbage the
// collector kept alive while it marked.
func TestPackedLookupsAllocateLittle(t *testing.T) {
	text := []byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: v\nwebhooks:\n" +
		strings.Repeat("- name: a.example.com\n  sideEffects: None\n  timeoutSeconds: 5\n  clientConfig:\n    service: {name: s, namespace: n, path: /p}\n", 10))
	ix := Parse("v.yaml", text).Docs[0].Positions
	unpacked := len(ix.unpack(ix.packed)) * int(unsafe.Sizeof(node{}))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const lookups = 8 // a configuration's findings, fixes and suppressions
	for i := range lookups {
		if _, exact, _ := ix.Lookup(fmt.Sprintf("webhooks[%d].timeoutSeconds", i), false); !exact {
			t.Fatalf("webhooks[%d].timeoutSeconds not found", i)
		}
	}
	runtime.ReadMemStats(&after)
	if got := int(after.TotalAlloc - before.TotalAlloc); got > unpacked/4 {
		t.Errorf("%d lookups allocated %d bytes; the unpacked index is %d", lookups, got, unpacked)
	}
	if ix.packed == nil {
		t.Errorf("the index was unpacked after %d lookups", lookups)
	}
}
