package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadFlagValueIsOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"-disable=no-such-rule", "./..."},
		{"-kube-version", "2.0", "./..."},
		{"-min-severity=notice", "./..."},
		{"-test", "./..."},
	} {
		var stdout, stderr bytes.Buffer
		code, done := preflight(args, &stdout, &stderr)
		if !done || code != exitUsage {
			t.Errorf("%q: exit %d, done %t; want a usage error (%d)", args, code, done, exitUsage)
		}
		if lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "webhookvet: ") {
			t.Errorf("%q: stderr %q, want one line starting with the program name", args, stderr.String())
		}
	}
}

// A dependency go vet asks facts of is not where a bad flag is said: the
// packages being vetted say it, once each.
func TestBadFlagOnDependencyIsSilent(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "vet.cfg")
	vetx := filepath.Join(dir, "vet.out")
	data, _ := json.Marshal(map[string]any{"ID": "fmt", "VetxOnly": true, "VetxOutput": vetx})
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code, done := preflight([]string{"-disable=no-such-rule", cfg}, &stdout, &stderr)
	if !done || code != 0 || stderr.Len() != 0 {
		t.Errorf("exit %d, done %t, stderr %q; want a silent exit 0", code, done, stderr.String())
	}
	if _, err := os.Stat(vetx); err != nil {
		t.Errorf("no facts file left for go vet: %v", err)
	}

	data, _ = json.Marshal(map[string]any{"ID": "example.com/p", "VetxOutput": vetx})
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code, done := preflight([]string{"-disable=no-such-rule", cfg}, &stdout, &stderr); !done || code != exitUsage || !strings.Contains(stderr.String(), `unknown rule "no-such-rule"`) {
		t.Errorf("vetted package: exit %d, done %t, stderr %q; want the usage error", code, done, stderr.String())
	}
}

func TestGoodFlagsGoToTheDriver(t *testing.T) {
	for _, args := range [][]string{
		{"-disable=self-deadlock,timeout-too-long", "-kube-version=1.34", "./..."},
		{"-json", "-c=2", "unit.cfg"},
		{"-fix", "-diff", "./..."},
		{"-V=full"},
	} {
		var stdout, stderr bytes.Buffer
		if _, done := preflight(args, &stdout, &stderr); done {
			t.Errorf("%q: answered by preflight (stderr %q), want singlechecker to run", args, stderr.String())
		}
	}
}

func TestHelpNamesWebhookvet(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code, done := preflight([]string{"-help"}, &stdout, &stderr)
	if !done || code != 0 {
		t.Fatalf("exit %d, done %t", code, done)
	}
	help := stderr.String()
	if !strings.HasPrefix(help, "webhookvet: ") || !strings.Contains(help, "go vet -vettool=$(command -v webhookvet)") {
		t.Errorf("help does not name webhookvet:\n%s", help)
	}
	for _, want := range []string{"-kube-version", "-disable", "-json", "-fix", "-diff"} {
		if !strings.Contains(help, "  "+want) {
			t.Errorf("help does not list %s:\n%s", want, help)
		}
	}
	for _, unwanted := range []string{"-test", "-cpuprofile", "-debug", "-source", "-tags"} {
		if strings.Contains(help, "  "+unwanted) {
			t.Errorf("help lists %s, which does nothing here:\n%s", unwanted, help)
		}
	}
}

// go vet asks for the flags once and passes on only those listed.
func TestFlagsListForGoVet(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code, done := preflight([]string{"-flags"}, &stdout, &stderr); !done || code != 0 {
		t.Fatalf("exit %d, done %t, stderr %q", code, done, stderr.String())
	}
	var flags []struct {
		Name string
		Bool bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &flags); err != nil {
		t.Fatalf("%v in %s", err, stdout.String())
	}
	got := map[string]bool{}
	for _, f := range flags {
		got[f.Name] = f.Bool
	}
	for name, isBool := range map[string]bool{"kube-version": false, "disable": false, "min-severity": false, "json": true, "c": false, "diff": true, "V": true, "flags": true} {
		if b, ok := got[name]; !ok || b != isBool {
			t.Errorf("-flags: %s listed %t, bool %t; want listed, bool %t", name, ok, b, isBool)
		}
	}
	for _, name := range []string{"test", "fix"} {
		if _, ok := got[name]; ok {
			t.Errorf("-flags lists %s", name)
		}
	}
}
