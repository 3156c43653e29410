package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The layout files whose diagnostics the Neovim test compares with the
// command line's: a kustomize patch, a base read by an overlay, a Helm
// template, a patch with errors.
var nvimFiles = []string{
	"3scale-ops__marin3r/config/test/webhook_patch.yaml",
	"3scale-ops__marin3r/config/webhook/custom/webhook.yaml",
	"fluid-cloudnative__fluid/charts/fluid/fluid/templates/webhook/webhookconfiguration.yaml",
	"fluid-cloudnative__fluid/config/default/webhookcainjection_patch.yaml",
}

// TestNeovim drives webhooklint server from a headless Neovim (Debian's
// neovim package; skipped without nvim): each layout file shows the
// command line's findings (rule, range, severity), an edit in one file
// updates another's, and a code action's edit removes its finding. The
// log (go test -v) is what the editor user sees.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim not installed (apt-get install neovim)")
	}
	layouts, _ := filepath.Abs("../../shared/corpus/layouts")
	if _, err := os.Stat(layouts); err != nil {
		t.Skip("../shared/corpus/layouts absent")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "webhooklint")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/webhooklint").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir, backend, webhook := splitExample(t)
	var files []string
	for _, f := range nvimFiles {
		files = append(files, filepath.Join(layouts, f))
	}
	outFile := filepath.Join(t.TempDir(), "out.jsonl")
	script, _ := filepath.Abs("testdata/nvim_e2e.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WL_BIN="+bin, "WL_ROOT="+layouts, "WL_FILES="+strings.Join(files, "\n"),
		"WL_BACKEND="+backend, "WL_WEBHOOK="+webhook, "WL_OUT="+outFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, out)
	}
	f, err := os.Open(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	type shown struct {
		Rule     string `json:"rule"`
		Line     int    `json:"line"`
		Col      int    `json:"col"`
		EndLine  int    `json:"end_line"`
		EndCol   int    `json:"end_col"`
		Severity int    `json:"severity"`
		Message  string `json:"message"`
	}
	var rec struct {
		Say         string  `json:"say"`
		Error       string  `json:"error"`
		File        string  `json:"file"`
		Text        string  `json:"text"`
		Diagnostics []shown `json:"diagnostics"`
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	compared := 0
	for sc.Scan() {
		rec.Say, rec.Error, rec.File, rec.Text, rec.Diagnostics = "", "", "", "", nil
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		switch {
		case rec.Error != "":
			t.Fatalf("in Neovim: %s", rec.Error)
		case rec.Say != "":
			t.Logf("nvim: %s", rec.Say)
			continue
		}
		name := strings.TrimPrefix(rec.File, layouts+"/")
		t.Logf("nvim: %s: %d diagnostics", name, len(rec.Diagnostics))
		var got []string
		for _, d := range rec.Diagnostics {
			t.Logf("  %d:%d %s [%s] %s", d.Line+1, d.Col+1, map[int]string{1: "error", 2: "warning", 3: "info"}[d.Severity], d.Rule, d.Message)
			got = append(got, fmt.Sprintf("%s %d:%d-%d:%d %d", d.Rule, d.Line, d.Col, d.EndLine, d.EndCol, d.Severity))
		}
		if rec.Text != "" {
			t.Logf("  text:\n%s", rec.Text)
		}
		if !slices.Contains(files, rec.File) {
			continue
		}
		// Neovim counts columns in bytes; these files are ASCII, where
		// that is LSP's UTF-16 count.
		slices.Sort(got)
		if want := commandLine(t, rec.File); !slices.Equal(got, want) {
			t.Errorf("%s in Neovim:\n got %q\nwant %q (webhooklint %s)", name, got, want, name)
		}
		compared++
	}
	if compared != len(files) {
		t.Errorf("Neovim reported %d of the %d files", compared, len(files))
	}
}
