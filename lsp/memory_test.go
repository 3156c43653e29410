package lsp

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/jsonrpc2"
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
