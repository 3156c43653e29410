package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileInputsUnderMemoryCap runs the built binary on generated
// hostile inputs under an address-space cap of 3 GiB (each took 6 GB, hung
// or exhausted memory before): each ends with its finding and the exit
// status it should, never with the runtime's out-of-memory crash. It
// asserts outcomes, not times.
func TestHostileInputsUnderMemoryCap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit not installed")
	}
	bin := filepath.Join(t.TempDir(), "webhooklint")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/webhooklint").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	const ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"
	chart := func(tpl string) map[string]string {
		return map[string]string{
			"Chart.yaml":         "apiVersion: v2\nname: hostile\nversion: 0.1.0\n",
			"values.yaml":        "list: [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z]\n",
			"templates/bad.yaml": "kind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  x: |\n    " + tpl + "\n",
			"templates/ok.yaml":  "kind: ConfigMap\nmetadata:\n  name: ok\n",
		}
	}
	cases := []struct {
		name   string
		files  map[string]string
		pipe   string // a named pipe to create
		code   int
		stdout string // expected in the output
		stderr string // expected as the one line of stderr
	}{
		{name: "alias bomb in a kustomize patch", files: map[string]string{
			"kustomization.yaml": "resources: [local.yaml]\npatches: [{path: bomb.yaml}]\n", "local.yaml": ns, "bomb.yaml": aliasBomb(9),
		}, code: 1, stdout: "bomb.yaml:11:12: error: aliases expand"},
		{name: "alias bomb in a kustomize resource", files: map[string]string{
			"kustomization.yaml": "resources: [bomb.yaml]\n", "bomb.yaml": aliasBomb(9),
		}, code: 1, stdout: "aliases expand this file"},
		{name: "helm until 100000000", files: chart("{{ range until 100000000 }}x{{ end }}"),
			code: 1, stdout: "templates/bad.yaml:6:"},
		{name: "helm nested loops", files: chart("{{ range until 100000 }}{{ range until 100000 }}{{ range until 100000 }}xxxxxxxx{{ end }}{{ end }}{{ end }}"),
			code: 1, stdout: "templates/bad.yaml:6:"},
		{name: "named pipe among the files", files: map[string]string{"ok.yaml": ns}, pipe: "pipe.yaml",
			code: 1, stdout: "pipe.yaml:1:1: error: "},
		{name: "helm loop that calls no function", files: chart(strings.Repeat("{{ range $.Values.list }}", 6) + "xxxxxxxxxxxxxxxx" + strings.Repeat("{{ end }}", 6)),
			code: 3, stderr: "webhooklint: cannot go on: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.pipe != "" {
				if err := syscall.Mkfifo(filepath.Join(dir, c.pipe), 0o644); err != nil {
					t.Skipf("no named pipes: %v", err)
				}
			}
			cmd := exec.Command(prlimit, "--as=3221225472", bin, "--color", "never", dir)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code || !strings.Contains(stdout.String(), c.stdout) {
				t.Fatalf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%.2000s", code, c.code, c.stdout, stdout.String(), stderr.String())
			}
			if c.stderr != "" && (!strings.HasPrefix(stderr.String(), c.stderr) || strings.Count(stderr.String(), "\n") != 1) {
				t.Errorf("stderr is not one line starting %q:\n%.2000s", c.stderr, stderr.String())
			}
		})
	}
}

// aliasBomb is a kilobyte of YAML whose aliases expand to 10^levels nodes.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "  a%d: &a%d [%s*a%d]\n", i, i, strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), i-1)
	}
	return b.String()
}
