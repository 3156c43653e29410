// Package lsp is `webhooklint server`: a language server (LSP 3.17 over
// stdio) that lints the buffers an editor has open, unsaved text included,
// with the same deployment units, configuration and findings as the
// command line, and offers code actions on them.
//
// The JSON-RPC layer is go.lsp.dev/jsonrpc2 with this package's framing
// (stream.go); the LSP messages are the few structs of protocol.go. Edits
// go into internal/overlay, which every reader of sources consults; one
// linter goroutine lints what changed, coalescing edits that arrive while
// it runs, and publishes the diagnostics of every file whose findings
// changed.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/source"
)

// Setup is how the command line would lint files under one configuration
// file: its lint and source options, and what it does to a result before
// reporting it (the configuration's suppressions).
type Setup struct {
	Lint    lint.Options
	Sources source.Options
	After   func(*lint.Result)
}

// Config is what the server needs from the command line.
type Config struct {
	// Setup returns the options for files under the configuration file
	// path ("" when none applies). An error is the configuration's own
	// (file:line:col: what is wrong), shown to the user.
	Setup func(configFile string) (*Setup, error)
	// Version is the server's version, for serverInfo.
	Version string
}

// Serve runs a server on in and out until the client sends exit or goes
// away, and returns the process's exit status: 0 after shutdown and exit,
// 1 otherwise, as LSP says.
func Serve(in io.Reader, out io.Writer, cfg Config) int {
	s := newServer(cfg)
	var closer io.Closer
	if c, ok := in.(io.Closer); ok {
		closer = c
	}
	conn := jsonrpc2.NewConn(newStream(in, out, closer))
	s.conn = conn
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.linter(ctx)
	conn.Go(ctx, s.handle)
	select {
	case <-s.exit:
	case <-conn.Done():
	}
	// Close waits for handlers, and a read blocked on a pipe may not end:
	// the process exits without waiting for either.
	go func() { _ = conn.Close() }()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return 0
	}
	return 1
}

type server struct {
	cfg      Config
	conn     jsonrpc2.Conn
	exit     chan struct{}
	exitOnce sync.Once
	// dirty wakes the linter; its buffer of one coalesces edits.
	dirty chan struct{}

	mu          sync.Mutex
	initialized bool
	shutdown    bool
	enc         string
	roots       []string
	docs        map[string]*document // by absolute path
	// published is what was last sent per file (absolute path), to send
	// only changes and to clear a file whose findings are gone.
	published map[string][]diagnostic
	// publishedVersion is the buffer version last published with them.
	publishedVersion map[string]int
	// findings are the last findings per file, with their fixes, for
	// code actions.
	findings map[string][]diag.Diagnostic
	setups   map[string]*setupResult
	// workspaces are the GitOps entries kept per configuration and
	// workspace folder (publish.go).
	workspaces map[string]*source.Workspace
	// generations counts the setups loaded: each keys its own results in
	// memory.
	generations uint64
	// memory keeps units' results and the discovery index between runs,
	// as the command line's cache folder does (internal/cache).
	memory *cache.Memory
	// lastRun is how many units the last run took from memory and how
	// many it linted.
	lastRun [2]int64
	// canWatch says the client registers file watchers dynamically;
	// watched is set once it has accepted the server's (watchFiles), and
	// keeps the discovery index between runs on the client's word.
	canWatch bool
	watched  *source.Watched
	// inflight cancels the requests being answered ($/cancelRequest).
	// jsonrpc2.CancelHandler is not used: it derives from the pooled
	// request context, which its cancel propagation reads after reuse.
	inflight map[jsonrpc2.ID]context.CancelFunc
}

// memoryBound bounds the results kept between runs. A monorepo of 2,000
// apps takes a few megabytes (its discovery index is most of it); past
// the bound the results used least recently are dropped, which costs
// only their linting again.
const memoryBound = 64 << 20

type document struct {
	uri     string
	version int
	text    string
}

type setupResult struct {
	setup      *Setup
	err        error
	generation uint64
}

func newServer(cfg Config) *server {
	return &server{
		cfg:              cfg,
		exit:             make(chan struct{}),
		dirty:            make(chan struct{}, 1),
		enc:              encUTF16,
		docs:             map[string]*document{},
		published:        map[string][]diagnostic{},
		publishedVersion: map[string]int{},
		findings:         map[string][]diag.Diagnostic{},
		setups:           map[string]*setupResult{},
		workspaces:       map[string]*source.Workspace{},
		memory:           cache.NewMemory(memoryBound),
		inflight:         map[jsonrpc2.ID]context.CancelFunc{},
	}
}

// handle dispatches one message. A notification's error would end the
// connection, so notifications log what goes wrong and return nil.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logf(messageError, "internal error in %s: %v\n%s", req.Method(), p, debug.Stack())
			result, err = nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprint(p))
			if !req.IsCall() {
				err = nil
			}
		}
	}()
	method := req.Method()
	params := []byte(req.Params())
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	if req.IsCall() {
		switch {
		case method == "initialize" && initialized:
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was sent twice")
		case method != "initialize" && !initialized:
			return nil, jsonrpc2.NewError(codeServerNotInitialized, "the server is not initialized")
		case shutdown:
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down")
		}
		switch method {
		case "initialize":
			return s.initialize(params)
		case "shutdown":
			s.mu.Lock()
			s.shutdown = true
			s.mu.Unlock()
			return json.RawMessage("null"), nil
		case "textDocument/codeAction":
			jsonrpc2.Async(ctx) // cancellable, and no edit waits for it
			cctx, done := s.track(ctx, req.ID())
			defer done()
			return s.codeAction(cctx, params)
		}
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not found: "+method)
	}
	if method == "exit" {
		s.exitOnce.Do(func() { close(s.exit) })
		return nil, nil
	}
	if !initialized || shutdown {
		return nil, nil // dropped, as LSP says
	}
	var perr error
	switch method {
	case "initialized":
		go s.watchFiles()
	case "$/cancelRequest":
		var p cancelParams
		if perr = json.Unmarshal(params, &p); perr == nil {
			s.cancel(p.ID)
		}
	case "textDocument/didOpen":
		var p didOpenParams
		if perr = json.Unmarshal(params, &p); perr == nil {
			s.didOpen(p)
		}
	case "textDocument/didChange":
		var p didChangeParams
		if perr = json.Unmarshal(params, &p); perr == nil {
			s.didChange(p)
		}
	case "textDocument/didSave":
		var p didSaveParams
		if perr = json.Unmarshal(params, &p); perr == nil {
			s.didSave(p)
		}
	case "textDocument/didClose":
		var p didCloseParams
		if perr = json.Unmarshal(params, &p); perr == nil {
			s.didClose(p)
		}
	case "workspace/didChangeWatchedFiles":
		var p didChangeWatchedFilesParams
		if perr = json.Unmarshal(params, &p); perr == nil {
			s.didChangeWatchedFiles(p)
		}
	}
	if perr != nil {
		s.logf(messageWarning, "%s: invalid params: %v", method, perr)
	}
	return nil, nil
}

func (s *server) initialize(params []byte) (any, error) {
	var p initializeParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "initialize: "+err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range p.WorkspaceFolders {
		if dir, ok := uriPath(f.URI); ok {
			s.roots = append(s.roots, dir)
		}
	}
	if dir, ok := uriPath(p.RootURI); ok && len(s.roots) == 0 {
		s.roots = append(s.roots, dir)
	}
	s.enc = chooseEncoding(p.Capabilities.General.PositionEncodings)
	s.canWatch = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
	s.initialized = true
	res := map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": s.enc,
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    2, // incremental
				"save":      map[string]any{"includeText": false},
			},
			"codeActionProvider": map[string]any{"codeActionKinds": []string{"quickfix"}},
			"workspace": map[string]any{
				"workspaceFolders": map[string]any{"supported": true},
			},
		},
		"serverInfo": map[string]any{"name": "webhooklint", "version": s.cfg.Version},
	}
	return marshal(res)
}

// watchFiles asks the client to report changes on disk (a git checkout,
// another tool), when it can: changes to configuration files, manifests
// and kustomization files, and every file or folder created or deleted,
// which is what the discovery index is made from (folder listings and
// kustomization files). Once the client has accepted, the index is kept
// between runs and read again only where a reported change touched it;
// until then, and with a client that cannot watch, every run checks it
// by stat.
func (s *server) watchFiles() {
	s.mu.Lock()
	canWatch, roots := s.canWatch, slices.Clone(s.roots)
	s.mu.Unlock()
	if !canWatch {
		s.logf(messageLog, "the client cannot register file watchers: changes on disk are seen when a buffer changes")
		return
	}
	watchers := []map[string]any{}
	for _, g := range []string{"**/.webhooklint.yaml", "**/.webhooklint.yml", "**/*.yaml", "**/*.yml", "**/*.json", "**/*.tpl", "**/Kustomization"} {
		watchers = append(watchers, map[string]any{"globPattern": g})
	}
	watchers = append(watchers, map[string]any{"globPattern": "**/*", "kind": watchCreate | watchDelete})
	params := map[string]any{"registrations": []map[string]any{{
		"id": "webhooklint-watch", "method": "workspace/didChangeWatchedFiles",
		"registerOptions": map[string]any{"watchers": watchers},
	}}}
	if _, err := s.conn.Call(context.Background(), "client/registerCapability", params, nil); err != nil {
		s.logf(messageLog, "the client watches no files for the server (%v): changes on disk are seen when a buffer changes", err)
		return
	}
	if len(roots) > 0 {
		s.mu.Lock()
		s.watched = source.NewWatched(roots)
		s.mu.Unlock()
	}
}

// track gives request id a context that $/cancelRequest cancels; done
// forgets it.
func (s *server) track(ctx context.Context, id jsonrpc2.ID) (context.Context, func()) {
	cctx, cancel := context.WithCancel(jsonrpc2.DetachContext(ctx))
	s.mu.Lock()
	s.inflight[id] = cancel
	s.mu.Unlock()
	return cctx, func() {
		s.mu.Lock()
		delete(s.inflight, id)
		s.mu.Unlock()
		cancel()
	}
}

func (s *server) cancel(raw json.RawMessage) {
	var id jsonrpc2.ID
	var n int64
	var str string
	switch {
	case json.Unmarshal(raw, &n) == nil:
		id = jsonrpc2.NewNumberID(n)
	case json.Unmarshal(raw, &str) == nil:
		id = jsonrpc2.NewStringID(str)
	default:
		return
	}
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (s *server) didOpen(p didOpenParams) {
	path, ok := uriPath(p.TextDocument.URI)
	if !ok {
		return
	}
	s.mu.Lock()
	s.docs[path] = &document{uri: p.TextDocument.URI, version: p.TextDocument.Version, text: p.TextDocument.Text}
	overlay.Set(path, []byte(p.TextDocument.Text))
	s.mu.Unlock()
	s.changed(path, false)
	s.touch()
}

func (s *server) didChange(p didChangeParams) {
	path, ok := uriPath(p.TextDocument.URI)
	if !ok {
		return
	}
	s.mu.Lock()
	d := s.docs[path]
	if d == nil {
		s.mu.Unlock()
		s.logf(messageWarning, "didChange for %s, which is not open", p.TextDocument.URI)
		return
	}
	text := d.text
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start, end := offset(text, c.Range.Start, s.enc), offset(text, c.Range.End, s.enc)
		if end < start {
			start, end = end, start
		}
		if len(text)-(end-start)+len(c.Text) > MaxMessage {
			s.mu.Unlock()
			s.logf(messageError, "%s: over %d bytes; the server keeps the text before this change", p.TextDocument.URI, MaxMessage)
			return
		}
		text = text[:start] + c.Text + text[end:]
	}
	d.text = text
	if p.TextDocument.Version != nil {
		d.version = *p.TextDocument.Version
	}
	overlay.Set(path, []byte(text))
	s.mu.Unlock()
	s.changed(path, false)
	s.touch()
}

func (s *server) didSave(p didSaveParams) {
	if path, ok := uriPath(p.TextDocument.URI); ok {
		s.changed(path, false)
		s.touch()
	}
}

func (s *server) didClose(p didCloseParams) {
	path, ok := uriPath(p.TextDocument.URI)
	if !ok {
		return
	}
	s.mu.Lock()
	delete(s.docs, path)
	overlay.Delete(path) // closing reverts to the disk
	s.mu.Unlock()
	s.changed(path, false)
	s.touch()
}

func (s *server) didChangeWatchedFiles(p didChangeWatchedFilesParams) {
	for _, c := range p.Changes {
		path, ok := uriPath(c.URI)
		if !ok {
			continue
		}
		if base := filepath.Base(path); base == ".webhooklint.yaml" || base == ".webhooklint.yml" {
			s.mu.Lock()
			clear(s.setups)     // a configuration may now apply, or none
			clear(s.workspaces) // and its ignore globs, or none
			s.mu.Unlock()
		}
		s.changed(path, c.Type == fileCreated || c.Type == fileDeleted)
	}
	s.touch()
}

// touch wakes the linter; edits that come while it runs make one more run.
func (s *server) touch() {
	select {
	case s.dirty <- struct{}{}:
	default:
	}
}

// logf sends a window/logMessage: stdout is the protocol's.
func (s *server) logf(typ int, format string, args ...any) {
	if s.conn == nil {
		return
	}
	_ = s.conn.Notify(context.Background(), "window/logMessage", logMessageParams{Type: typ, Message: fmt.Sprintf(format, args...)})
}

func marshal(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	return data, nil
}

// uriPath is the absolute path of a file: URI.
func uriPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	p := filepath.FromSlash(u.Path)
	// file:///C:/x on Windows.
	if len(p) >= 3 && p[0] == filepath.Separator && p[2] == ':' {
		p = p[1:]
	}
	return filepath.Clean(p), true
}

// pathURI is the file: URI of an absolute path.
func pathURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

var errCancelled = jsonrpc2.NewError(codeRequestCancelled, "request canceled")

func canceled(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errCancelled
	}
	return nil
}

func jsonrpc2InvalidParams(err error) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
}
