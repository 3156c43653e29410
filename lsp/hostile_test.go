package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProtocolErrors(t *testing.T) {
	c := startServer(t)
	// A request before initialize, a body that is not JSON, one that is
	// not JSON-RPC, a batch: each gets an error, and the server goes on.
	c.send(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "textDocument/codeAction", "params": map[string]any{}})
	c.sendRaw([]byte("Content-Length: 9\r\n\r\n{\"jsonrpc"))
	c.sendRaw([]byte("Content-Length: 2\r\n\r\n[]"))
	c.sendRaw([]byte("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 4\r\n\r\nnull"))
	c.wait("three errors without id", func() bool { return len(c.nulls) >= 3 })
	c.wait("not-initialized error", func() bool {
		r, ok := c.resps["99"]
		return ok && r.Error != nil && r.Error.Code == codeServerNotInitialized
	})
	dir := t.TempDir()
	c.initialize(dir)
	if r := c.call("workspace/unknownThing", map[string]any{}); r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("unknown method: %+v, want MethodNotFound", r)
	}
	c.notify("$/unknownNotification", map[string]any{})
	c.notify("textDocument/didChange", "not an object")
	// A buffer that is not YAML gets the syntax finding, not a crash.
	file := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(file, []byte("apiVersion: v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.diskChanged(fileCreated, file)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": pathURI(file), "languageId": "yaml", "version": 1, "text": "\x00\xff: [unclosed\n\t- {"}})
	c.waitDiagnostics(pathURI(file), "syntax finding", func(ds []diagnostic) bool { return len(ds) > 0 })
	// The client goes away without shutdown: the server ends, status 1.
	_ = c.w.Close()
	select {
	case code := <-c.exited:
		if code != 1 {
			t.Errorf("exit status %d without shutdown, want 1", code)
		}
	case <-time.After(time.Minute):
		t.Fatal("server still running after its client went away")
	}
}

// A thousand edits, as fast as they can be sent, end in diagnostics for
// the last text.
func TestEditStorm(t *testing.T) {
	c, uri, text := openExample(t)
	line := strings.Count(string(text[:bytes.Index(text, []byte("  timeoutSeconds: 30"))]), "\n")
	for i := range 1000 {
		v := "30"
		if i%2 == 0 {
			v = "5 "
		}
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []map[string]any{{"range": lspRange{Start: position{line, 18}, End: position{line, 20}}, "text": v}},
		})
	}
	// The last edit (i = 999) leaves 30: too long, and a run after it
	// shows so.
	c.waitDiagnostics(uri, "timeout finding after the storm", func(ds []diagnostic) bool { return hasRule(ds, "timeout-too-long") })
	if r := c.call("shutdown", nil); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
}

func TestReadFrame(t *testing.T) {
	for _, tc := range []struct {
		in, body string
		err      error
	}{
		{"Content-Length: 2\r\n\r\n{}", "{}", nil},
		{"content-length:2\n\n{}", "{}", nil},
		{"Content-Type: x\r\nContent-Length: 2\r\n\r\n{}", "{}", nil},
		{"", "", io.EOF},
		{"Content-Length: 5\r\n\r\n{}", "", io.ErrUnexpectedEOF},
		{"Content-Length: 2\r\n", "", io.ErrUnexpectedEOF},
		{"Content-Length: -1\r\n\r\n", "", errHeader},
		{"Content-Length: x\r\n\r\n", "", errHeader},
		{"\r\n{}", "", errHeader},
		{"garbage\r\n\r\n", "", errHeader},
		{strings.Repeat("X-A: b\r\n", 20) + "Content-Length: 2\r\n\r\n{}", "", errHeader},
		{"Content-Length: 99999999999999999999\r\n\r\n", "", errHeader},
		{"Content-Length: 100\r\n\r\n" + strings.Repeat(" ", 100), "", errTooLarge},
		{"Content-Length: 100\r\n\r\n" + strings.Repeat(" ", 10), "", io.ErrUnexpectedEOF},
	} {
		body, err := readFrame(bufio.NewReader(strings.NewReader(tc.in)), 64)
		if string(body) != tc.body || !errors.Is(err, tc.err) {
			t.Errorf("readFrame(%q) = %q, %v; want %q, %v", tc.in, body, err, tc.body, tc.err)
		}
	}
}

// A frame over the limit is skipped: the next one is read where it starts.
func TestReadFrameSkipsOversized(t *testing.T) {
	in := "Content-Length: 100\r\n\r\n" + strings.Repeat("x", 100) + "Content-Length: 2\r\n\r\n{}"
	r := bufio.NewReader(strings.NewReader(in))
	if _, err := readFrame(r, 64); !errors.Is(err, errTooLarge) {
		t.Fatalf("first frame: %v, want errTooLarge", err)
	}
	if body, err := readFrame(r, 64); string(body) != "{}" || err != nil {
		t.Fatalf("second frame: %q, %v", body, err)
	}
}

// FuzzReadFrame: any input ends in a body of at most max bytes or an
// error, never a panic, and a body is exactly what was declared.
func FuzzReadFrame(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 0\r\n\r\n",
		"Content-Length: 3\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n[1]",
		"Content-Length: 1000000\r\n\r\n",
		"Content-Length:\r\n\r\n",
		"\r\n\r\n",
		"Content-Length: 2\n\n{}Content-Length: 2\r\n\r\n[]",
		`Content-Length: 44` + "\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(in), 64)
		for range 8 {
			body, err := readFrame(r, 256)
			if len(body) > 256 {
				t.Fatalf("body of %d bytes over the limit", len(body))
			}
			if err != nil && !errors.Is(err, errTooLarge) {
				return
			}
			if err == nil {
				var v any
				_ = json.Unmarshal(body, &v) // what the server does next
			}
		}
	})
}

// stream answers what it cannot decode and reads on.
func TestStreamRejects(t *testing.T) {
	var out bytes.Buffer
	in := "Content-Length: 3\r\n\r\n{x}" + "Content-Length: 100\r\n\r\n" + strings.Repeat("y", 100) +
		`Content-Length: 40` + "\r\n\r\n" + `{"jsonrpc":"2.0","method":"initialized"}`
	s := newStream(strings.NewReader(in), &out, nil)
	s.max = 64
	msg, _, err := s.Read(t.Context())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if got := fmt.Sprintf("%T", msg); !strings.Contains(got, "Notification") && !strings.Contains(got, "Request") {
		t.Errorf("Read returned %s, want the notification", got)
	}
	for _, code := range []string{`"code":-32700`, `"code":-32600`} {
		if !strings.Contains(out.String(), code) {
			t.Errorf("no error response with %s in %q", code, out.String())
		}
	}
}
