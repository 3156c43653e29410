package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

// client drives a server in-process, as an editor would.
type client struct {
	t      testing.TB
	w      io.WriteCloser
	nextID int
	exited chan int

	mu    sync.Mutex
	cond  *sync.Cond
	resps map[string]wire
	diags map[string][]diagnostic
	// publishes counts publishDiagnostics per URI; logs are the
	// window/logMessage texts; nulls are responses without an id.
	publishes map[string]int
	versions  map[string]int
	logs      []string
	nulls     []wire
	closed    bool
	// refuse answers client/registerCapability with an error, as a client
	// that will not watch files for the server.
	refuse bool
	// registered says the client has answered the server's
	// client/registerCapability.
	registered bool
}

type wire struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func testConfig() Config {
	return Config{Version: "test", Setup: func(string) (*Setup, error) {
		return &Setup{Lint: lint.Options{Settings: rules.DefaultSettings()}}, nil
	}}
}

// startServer runs Serve on pipes; the client reads everything it sends.
func startServer(t testing.TB) *client {
	return startServerWith(t, testConfig())
}

// startServerWith runs a server with the command line's configuration cfg.
func startServerWith(t testing.TB, cfg Config) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, exited: make(chan int, 1), resps: map[string]wire{},
		diags: map[string][]diagnostic{}, publishes: map[string]int{}, versions: map[string]int{}}
	c.cond = sync.NewCond(&c.mu)
	go func() {
		c.exited <- Serve(inR, outW, cfg)
		_ = outW.Close()
	}()
	go c.read(bufio.NewReader(outR))
	t.Cleanup(func() { _ = inW.Close() })
	return c
}

func (c *client) read(r *bufio.Reader) {
	defer func() {
		c.mu.Lock()
		c.closed = true
		c.cond.Broadcast()
		c.mu.Unlock()
	}()
	for {
		body, err := readFrame(r, 1<<30)
		if err != nil {
			return
		}
		var m wire
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("server sent invalid JSON: %v: %s", err, body)
			return
		}
		c.mu.Lock()
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			var p publishDiagnosticsParams
			_ = json.Unmarshal(m.Params, &p)
			c.diags[p.URI] = p.Diagnostics
			c.publishes[p.URI]++
			if p.Version != nil {
				c.versions[p.URI] = *p.Version
			}
		case m.Method == "window/logMessage":
			var p logMessageParams
			_ = json.Unmarshal(m.Params, &p)
			c.logs = append(c.logs, p.Message)
		case m.Method != "" && len(m.ID) > 0: // a request to the client
			answer := map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil}
			if c.refuse && m.Method == "client/registerCapability" {
				answer = map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no file watching"}}
			}
			register := m.Method == "client/registerCapability"
			go func() { // the server may be gone by then: no error
				data, _ := json.Marshal(answer)
				_, _ = fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(data), data)
				if register {
					c.mu.Lock()
					c.registered = true
					c.cond.Broadcast()
					c.mu.Unlock()
				}
			}()
		case len(m.ID) == 0 || string(m.ID) == "null":
			c.nulls = append(c.nulls, m)
		default:
			c.resps[string(m.ID)] = m
		}
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

func (c *client) sendRaw(data []byte) {
	if _, err := c.w.Write(data); err != nil {
		c.t.Fatalf("write %.60q: %v (logs: %q)", data, err, c.logs)
	}
}

func (c *client) send(msg any) {
	data, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(data), data))
}

func (c *client) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and waits for its response.
func (c *client) call(method string, params any) wire {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	var resp wire
	c.wait(fmt.Sprintf("response to %s", method), func() bool {
		var ok bool
		resp, ok = c.resps[fmt.Sprint(id)]
		return ok
	})
	return resp
}

// wait waits (the lock held while cond is evaluated) until cond holds.
func (c *client) wait(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	timer := time.AfterFunc(time.Until(deadline), func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !cond() {
		if c.closed || time.Now().After(deadline) {
			c.t.Fatalf("no %s (logs: %q)", what, c.logs)
		}
		c.cond.Wait()
	}
}

// initialize starts a session on workspace folder root with a client that
// watches files for the server.
func (c *client) initialize(root string) {
	c.initializeWatching(root, true)
}

// initializeWatching starts a session; watching says whether the client
// can register file watchers (dynamically).
func (c *client) initializeWatching(root string, watching bool) {
	resp := c.call("initialize", map[string]any{
		"processId": nil, "rootUri": pathURI(root),
		"workspaceFolders": []map[string]any{{"uri": pathURI(root), "name": "test"}},
		"capabilities":     map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": watching}}},
	})
	if resp.Error != nil {
		c.t.Fatalf("initialize: %s", resp.Error.Message)
	}
	c.notify("initialized", map[string]any{})
}

// writeFiles writes files (by slash path under dir) and reports what it
// created, folders included, as a client's file watchers do.
func (c *client) writeFiles(dir string, files map[string]string) {
	c.t.Helper()
	var created []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		for f := filepath.Dir(p); f != dir; f = filepath.Dir(f) {
			if _, err := os.Stat(f); err != nil {
				created = append(created, f)
			}
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			c.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
			c.t.Fatal(err)
		}
		created = append(created, p)
	}
	c.diskChanged(fileCreated, created...)
}

// diskChanged reports paths created, changed or deleted on disk (typ), as
// a client's file watchers do.
func (c *client) diskChanged(typ int, paths ...string) {
	var changes []map[string]any
	for _, p := range paths {
		changes = append(changes, map[string]any{"uri": pathURI(p), "type": typ})
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
}

// waitDiagnostics waits until uri's latest diagnostics satisfy ok.
func (c *client) waitDiagnostics(uri string, what string, ok func([]diagnostic) bool) []diagnostic {
	c.t.Helper()
	var ds []diagnostic
	c.wait(what, func() bool {
		var published bool
		ds, published = c.diags[uri]
		return published && ok(ds)
	})
	return ds
}

func hasRule(ds []diagnostic, rule string) bool {
	for _, d := range ds {
		if d.Code == rule {
			return true
		}
	}
	return false
}
