package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/config"
	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/internal/ruledocs"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source"
)

// linter lints whenever something changed, one run at a time: edits that
// arrive during a run are seen by the next, so a thousand edits a second
// cost a run after the last of them, not a thousand runs.
func (s *server) linter(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.dirty:
		}
		s.lintOnce()
	}
}

// lintOnce lints the open files and those that had findings, as the
// command line would lint them named one by one (each file's units,
// whatever they read), and publishes what changed: an edit in a base
// updates the findings another file of its units shows.
func (s *server) lintOnce() {
	defer func() {
		if p := recover(); p != nil {
			s.logf(messageError, "internal error while linting: %v\n%s", p, debug.Stack())
		}
	}()
	s.mu.Lock()
	files := map[string]bool{}
	// The run lints each buffer as it is now or later, never earlier: its
	// diagnostics carry the version it started from.
	versions := map[string]int{}
	for p, d := range s.docs {
		files[p] = true
		versions[p] = d.version
	}
	for p := range s.published {
		files[p] = true
	}
	s.mu.Unlock()

	// Files under one configuration and workspace folder are linted
	// together, as one command.
	type group struct{ cfg, root string }
	groups := map[group][]string{}
	for _, f := range slices.Sorted(maps.Keys(files)) {
		if !lintable(f) {
			continue
		}
		cfg, err := config.Find([]string{f})
		if err != nil {
			s.logf(messageWarning, "%s: %v", f, err)
			continue
		}
		g := group{cfg, s.rootOf(f)}
		groups[g] = append(groups[g], f)
	}
	found := map[string][]diag.Diagnostic{}
	for _, g := range slices.SortedFunc(maps.Keys(groups), func(a, b group) int {
		return strings.Compare(a.cfg+"\x00"+a.root, b.cfg+"\x00"+b.root)
	}) {
		r, err := s.setupOf(g.cfg)
		if err != nil {
			s.logf(messageError, "%v", err)
			continue
		}
		setup := r.setup
		so := setup.Sources
		so.WholeUnits = true
		if g.root != "" && !so.NoGitOps {
			so.Workspace = s.workspace(g.cfg, g.root, setup)
		}
		// Units whose every input is as it was, open buffers included,
		// and scopes whose folders are, are taken from the last runs.
		so.Cache = cache.OpenMemory(s.memory, []byte(fmt.Sprintf("%s\x00%d", g.cfg, r.generation)))
		s.mu.Lock()
		so.Watched = s.watched
		s.mu.Unlock()
		res, err := source.Lint(groups[g], nil, "", setup.Lint, so)
		so.Cache.Close()
		reused, linted := so.Cache.Stats()
		s.mu.Lock()
		s.lastRun = [2]int64{reused, linted}
		s.mu.Unlock()
		if err != nil {
			s.logf(messageError, "%v", err)
			continue
		}
		if setup.After != nil {
			setup.After(res)
		}
		for _, e := range res.Internal {
			s.logf(messageError, "%v\n%s", e, e.Stack)
		}
		for _, d := range res.Diagnostics {
			if d.File == "" {
				continue
			}
			abs, err := filepath.Abs(d.File)
			if err != nil {
				continue
			}
			found[abs] = append(found[abs], d)
		}
	}
	for f := range files {
		if _, ok := found[f]; !ok {
			found[f] = nil
		}
	}
	s.publish(found, versions)
}

// lintable says whether the command line would read f when named: a
// manifest that exists on disk (an unsaved new file has no units yet).
func lintable(f string) bool {
	if !slices.Contains(manifest.Extensions, strings.ToLower(filepath.Ext(f))) {
		return false
	}
	fi, err := os.Stat(f)
	return err == nil && fi.Mode().IsRegular()
}

// rootOf is the innermost workspace folder that holds file, or "".
func (s *server) rootOf(file string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := ""
	for _, r := range s.roots {
		if rel, err := filepath.Rel(r, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// workspace is the GitOps entries kept for a workspace folder linted
// under configuration cfg: the files of the folder that the folder's
// entries apply are linted with them, as `webhooklint FOLDER` lints them.
// It is made on first use (walking the folder) and kept until the
// configuration changes; edits tell it what changed (changed).
func (s *server) workspace(cfg, root string, setup *Setup) *source.Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := cfg + "\x00" + root
	w := s.workspaces[key]
	if w == nil {
		w = source.NewWorkspace(root, setup.Lint.Skip)
		s.workspaces[key] = w
	}
	return w
}

// changed tells the kept workspaces that file changed; created says a
// file appeared or went away on disk.
func (s *server) changed(file string, created bool) {
	s.mu.Lock()
	ws := slices.Collect(maps.Values(s.workspaces))
	watched := s.watched
	s.mu.Unlock()
	if watched != nil {
		watched.Changed(file)
	}
	for _, w := range ws {
		w.Changed(file)
		if created {
			w.Forget()
		}
	}
}

// setupOf is the setup of files under cfg, with its generation: a
// configuration loaded again is another, whose units' results are not
// those kept for the one before.
func (s *server) setupOf(cfg string) (*setupResult, error) {
	s.mu.Lock()
	r := s.setups[cfg]
	s.mu.Unlock()
	if r == nil {
		r = &setupResult{}
		r.setup, r.err = s.cfg.Setup(cfg)
		s.mu.Lock()
		s.generations++
		r.generation = s.generations
		s.setups[cfg] = r
		s.mu.Unlock()
	}
	return r, r.err
}

// publish sends the diagnostics of every file whose findings changed, or
// whose buffer's version did: a client waiting for the diagnostics of a
// version gets them even when the edit changed no finding. versions are
// the buffers' versions when the run began.
func (s *server) publish(found map[string][]diag.Diagnostic, versions map[string]int) {
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	texts := map[string]lines{}
	textOf := func(file string) lines {
		if ls, ok := texts[file]; ok {
			return ls
		}
		data, err := overlay.ReadFile(file)
		var ls lines
		if err == nil {
			ls = splitLines(string(data))
		}
		texts[file] = ls
		return ls
	}
	for _, file := range slices.Sorted(maps.Keys(found)) {
		ds := make([]diagnostic, 0, len(found[file]))
		for _, d := range found[file] {
			ds = append(ds, toLSP(d, textOf, enc))
		}
		s.mu.Lock()
		if len(found[file]) > 0 {
			s.findings[file] = found[file]
		} else {
			delete(s.findings, file)
		}
		old, had := s.published[file]
		var version *int
		if v, open := versions[file]; open && s.docs[file] != nil {
			version = &v
		}
		lastVersion, versioned := s.publishedVersion[file]
		same := had && reflect.DeepEqual(old, ds) && (version == nil || versioned && lastVersion == *version)
		if len(ds) == 0 {
			delete(s.published, file)
		} else {
			s.published[file] = ds
		}
		if version != nil && (len(ds) > 0 || had) {
			s.publishedVersion[file] = *version
		} else {
			delete(s.publishedVersion, file)
		}
		s.mu.Unlock()
		if same || (!had && len(ds) == 0 && version == nil) {
			continue
		}
		params := publishDiagnosticsParams{URI: pathURI(file), Version: version, Diagnostics: ds}
		if data, err := json.Marshal(params); err == nil {
			_ = s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", json.RawMessage(data))
		}
	}
}

// toLSP converts a finding: the rule is the code and links to its doc;
// the unit (when only some have it) and the origin go into the message.
func toLSP(d diag.Diagnostic, textOf func(string) lines, enc string) diagnostic {
	abs, _ := filepath.Abs(d.File)
	out := diagnostic{
		Range:    textOf(abs).span(d.Line, d.Column, d.EndLine, d.EndColumn, enc),
		Severity: severity(d.Severity),
		Code:     d.Rule,
		Source:   "webhooklint",
		Message:  d.Message,
		Data:     &diagnosticData{Rule: d.Rule, Line: d.Line, Column: d.Column},
	}
	if d.Rule != "" {
		out.CodeDescription = &codeDescription{Href: ruledocs.HelpURI(d.Rule)}
	}
	if len(d.Units) > 0 {
		out.Message += fmt.Sprintf(" (in %s)", strings.Join(d.Units, ", "))
	}
	for _, r := range d.Related {
		if r.File == "" {
			continue
		}
		rabs, err := filepath.Abs(r.File)
		if err != nil {
			continue
		}
		out.RelatedInformation = append(out.RelatedInformation, relatedInfo{
			Location: location{URI: pathURI(rabs), Range: textOf(rabs).span(r.Line, r.Column, r.EndLine, r.EndColumn, enc)},
			Message:  r.Message,
		})
	}
	return out
}

// severity maps webhooklint's levels onto LSP's: what the API server
// rejects is an error, a practice warning a warning, the rest information.
func severity(s diag.Severity) int {
	switch s {
	case diag.Error:
		return severityError
	case diag.Warning:
		return severityWarning
	}
	return severityInformation
}

// codeAction offers, for each webhooklint finding in the range, to
// suppress it on its line with the project's comment, whose reason the
// user fills in.
func (s *server) codeAction(ctx context.Context, params []byte) (any, error) {
	var p codeActionParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2InvalidParams(err)
	}
	path, ok := uriPath(p.TextDocument.URI)
	if !ok {
		return marshal([]codeAction{})
	}
	if len(p.Context.Only) > 0 && !slices.ContainsFunc(p.Context.Only, func(k string) bool { return k == "quickfix" || strings.HasPrefix("quickfix", k) }) {
		return marshal([]codeAction{})
	}
	s.mu.Lock()
	var text string
	if d := s.docs[path]; d != nil {
		text = d.text
	}
	findings, enc := s.findings[path], s.enc
	s.mu.Unlock()
	if text == "" {
		data, err := overlay.ReadFile(path)
		if err != nil {
			return marshal([]codeAction{})
		}
		text = string(data)
	}
	actions := []codeAction{}
	seen := map[string]bool{}
	for _, d := range p.Context.Diagnostics {
		// Clients return data untouched, but not every one returns it (or
		// the source): the code and the range's line stand in.
		if d.Source != "" && d.Source != "webhooklint" {
			continue
		}
		if d.Data == nil {
			d.Data = &diagnosticData{Rule: d.Code, Line: d.Range.Start.Line + 1, Column: -1}
		}
		if d.Data.Rule == "" || d.Data.Line <= 0 {
			continue
		}
		if err := canceled(ctx); err != nil {
			return nil, err
		}
		for _, f := range findings {
			if f.Rule != d.Data.Rule || f.Line != d.Data.Line || (d.Data.Column >= 0 && f.Column != d.Data.Column) || !strings.HasPrefix(d.Message, f.Message) {
				continue
			}
			for _, fix := range f.Fixes {
				if a, ok := fixAction(fix, d, enc); ok {
					actions = append(actions, a)
				}
			}
		}
		key := fmt.Sprint(d.Data.Rule, d.Data.Line)
		if seen[key] {
			continue
		}
		seen[key] = true
		edit, ok := suppressEdit(text, d.Data.Line, d.Data.Rule)
		if !ok {
			continue
		}
		actions = append(actions, codeAction{
			Title:       fmt.Sprintf("Suppress %s on this line (webhooklint:ignore)", d.Data.Rule),
			Kind:        "quickfix",
			Diagnostics: []diagnostic{d},
			Edit:        &workspaceEdit{Changes: map[string][]textEdit{p.TextDocument.URI: {edit}}},
		})
	}
	return marshal(actions)
}

// fixAction is a finding's fix as a quickfix, preferred when safe. The
// edits are converted in the text the server lints (the buffer, else the
// disk), where the fix's lines and columns were computed.
func fixAction(fix diag.Fix, d diagnostic, enc string) (codeAction, bool) {
	edit := &workspaceEdit{Changes: map[string][]textEdit{}}
	texts := map[string]lines{}
	for _, e := range fix.Edits {
		abs, err := filepath.Abs(e.File)
		if err != nil {
			return codeAction{}, false
		}
		ls, ok := texts[abs]
		if !ok {
			data, err := overlay.ReadFile(abs)
			if err != nil {
				return codeAction{}, false
			}
			ls = splitLines(string(data))
			texts[abs] = ls
		}
		uri := pathURI(abs)
		edit.Changes[uri] = append(edit.Changes[uri], textEdit{
			Range:   lspRange{Start: ls.pos(e.Line, e.Column, enc), End: ls.pos(e.EndLine, e.EndColumn, enc)},
			NewText: e.NewText,
		})
	}
	if len(edit.Changes) == 0 {
		return codeAction{}, false
	}
	title := fix.Message
	if fix.Applicability != diag.Safe {
		title += " (unsafe: changes behavior)"
	}
	return codeAction{Title: title, Kind: "quickfix", Diagnostics: []diagnostic{d}, IsPreferred: fix.Applicability == diag.Safe, Edit: edit}, true
}

// ReasonPlaceholder is the reason a suppression written by a code action
// carries until the user writes one.
const ReasonPlaceholder = "TODO: say why this is safe"

// suppressEdit inserts `# webhooklint:ignore RULE -- reason` above line
// (1-based), indented as that line: a comment above a key or a list item
// suppresses the rule on it and everything under it.
func suppressEdit(text string, line int, rule string) (textEdit, bool) {
	ls := splitLines(text)
	if line > len(ls) {
		return textEdit{}, false
	}
	l := ls[line-1]
	indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
	comment := fmt.Sprintf("%s# webhooklint:ignore %s -- %s\n", indent, rule, ReasonPlaceholder)
	at := position{Line: line - 1, Character: 0}
	return textEdit{Range: lspRange{Start: at, End: at}, NewText: comment}, true
}
