package lsp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// Between edits the server keeps units' results in memory and lints
// again only the units whose inputs changed, an open buffer's text
// included; closing a buffer is a change too (the disk's text is back).
func TestEditRelintsOnlyItsUnit(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{"a", "b", "c"} {
		p := filepath.Join(root, name, "webhook.yaml")
		files[name] = p
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(monoAppYAML(name, 5)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := newServer(testConfig())
	in, _ := io.Pipe()
	s.conn = jsonrpc2.NewConn(newStream(in, io.Discard, in))
	t.Cleanup(func() { _ = in.Close() })
	for name, p := range files {
		s.didOpen(didOpenParams{TextDocument: textDocumentItem{URI: pathURI(p), Version: 1, Text: monoAppYAML(name, 5)}})
	}
	defer func() {
		for _, p := range files {
			s.didClose(didCloseParams{TextDocument: textDocumentIdentifier{URI: pathURI(p)}})
		}
	}()
	run := func(what string, reused, linted int64) {
		t.Helper()
		s.lintOnce()
		if got := s.lastRun; got != [2]int64{reused, linted} {
			t.Errorf("%s: %d units from memory, %d linted; want %d, %d", what, got[0], got[1], reused, linted)
		}
	}
	run("first run", 0, 3)
	run("nothing changed", 3, 0)
	v := 2
	s.didChange(didChangeParams{TextDocument: textDocumentIdentifier{URI: pathURI(files["b"]), Version: &v},
		ContentChanges: []contentChange{{Text: monoAppYAML("b", 31)}}})
	run("b edited", 2, 1)
	run("nothing changed since", 3, 0)
	if len(s.findings[files["b"]]) == len(s.findings[files["a"]]) {
		t.Errorf("b's edit to an out-of-range timeout changed none of its findings")
	}
	s.didClose(didCloseParams{TextDocument: textDocumentIdentifier{URI: pathURI(files["b"])}})
	run("b closed", 2, 1)
	if len(s.findings[files["b"]]) != len(s.findings[files["a"]]) {
		t.Errorf("b closed: its findings are not the disk's")
	}
}

// soakEdits is how many edits TestMemoryFlatOverEdits makes
// (WEBHOOKLINT_SOAK_EDITS; 100,000 is an hour at about 30 a second), or 0.
func soakEdits(t *testing.T) int {
	n, _ := strconv.Atoi(os.Getenv("WEBHOOKLINT_SOAK_EDITS"))
	if n <= 0 {
		t.Skip("WEBHOOKLINT_SOAK_EDITS is not set: the soak takes minutes")
	}
	return n
}

// TestMemoryFlatOverEdits drives a server through many edits, each a text
// the server has not seen (a new annotation key and value, as typing
// makes, and a timeout that flips a finding), to one lone file and to a
// base that many kustomizations read. It samples the live heap after a
// collection every edits/40 edits and reports its slope. What the server
// keeps between edits (results, overlays, published diagnostics, path
// steps) is bounded, and a bounded cache that fills and starts again
// makes a sawtooth, not a slope: the highest sample of the last quarter
// must be within 16 KiB per 1,000 edits of the highest of the second.
func TestMemoryFlatOverEdits(t *testing.T) {
	edits := soakEdits(t)
	t.Run("lone file", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "app.yaml")
		if err := os.WriteFile(file, []byte(monoAppYAML("app-0", 5)), 0o644); err != nil {
			t.Fatal(err)
		}
		soak(t, dir, file, edits, 1)
	})
	t.Run("base of many units", func(t *testing.T) {
		dir := t.TempDir()
		files := map[string]string{
			"base/kustomization.yaml": "resources:\n- app.yaml\n",
			"base/app.yaml":           monoAppYAML("app-0", 5),
		}
		for i := range 20 {
			files[fmt.Sprintf("overlays/o%02d/kustomization.yaml", i)] = fmt.Sprintf("namespace: ns-%d\nresources:\n- ../../base\n", i)
		}
		testkit.WriteTree(t, dir, files)
		// Edits come in bursts of 20 between diagnostics, as a typist's
		// do when a lint of 20 units takes longer than a keystroke.
		soak(t, dir, filepath.Join(dir, "base", "app.yaml"), edits, 20)
	})
}

// soak opens file and makes edits to it, waiting for diagnostics after
// every burst edits.
func soak(t *testing.T, root, file string, edits, burst int) {
	c := startServer(t)
	c.initialize(root)
	uri := pathURI(file)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": 1, "text": monoAppYAML("app-0", 5)}})
	c.wait("first diagnostics", func() bool { return c.versions[uri] >= 1 })
	// Samples follow a burst's diagnostics: one taken while the server
	// still lints a burst counts its work in flight, and made every other
	// sample of a 30,000-edit soak twice the others.
	every := max(edits/40/burst, 1) * burst
	var xs, ys []float64
	cpu := cpuTime()
	start := time.Now()
	for i := 1; i <= edits; i++ {
		v := i + 1
		timeout := 5 + 26*(i/burst%2) // 5, then 31 (out of range), from burst to burst
		text := strings.Replace(monoAppYAML("app-0", timeout), "metadata:\n  name: app-0\n",
			fmt.Sprintf("metadata:\n  name: app-0\n  annotations:\n    edit-%d: \"%d\"\n", i, i), 1)
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"text": text}},
		})
		if i%burst == 0 || i == edits {
			c.wait("diagnostics of the edit", func() bool { return c.versions[uri] >= v })
		}
		if i%every == 0 {
			xs = append(xs, float64(i))
			ys = append(ys, float64(liveHeap()))
		}
	}
	t.Logf("%d edits (bursts of %d) in %v, %.2f ms of CPU an edit; live heap %.1f MB after the first sample, %.1f MB at the end",
		edits, burst, time.Since(start).Round(time.Second), float64((cpuTime()-cpu).Microseconds())/1000/float64(edits),
		ys[0]/(1<<20), ys[len(ys)-1]/(1<<20))
	q := len(xs) / 4
	t.Logf("live heap slope: %.1f KiB per 1,000 edits over the first half, %.1f KiB over the second; highest %.1f MB in the second quarter, %.1f MB in the last",
		slope(xs[:2*q], ys[:2*q])*1000/1024, slope(xs[2*q:], ys[2*q:])*1000/1024, slices.Max(ys[q:2*q])/(1<<20), slices.Max(ys[3*q:])/(1<<20))
	growth := (slices.Max(ys[3*q:]) - slices.Max(ys[q:2*q])) / (xs[3*q] - xs[q]) * 1000
	if growth > 16<<10 {
		t.Errorf("the live heap grows by %.1f KiB per 1,000 edits (samples: %.0f)", growth/1024, ys)
	}
}

// liveHeap is the heap's live bytes, right after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// slope is the least-squares slope of ys over xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	if d := n*sxx - sx*sx; d != 0 {
		return (n*sxy - sx*sy) / d
	}
	return 0
}
