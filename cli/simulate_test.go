package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/report"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

func TestSimulateCommand(t *testing.T) {
	fixtures := "../simulate/testdata/"
	for _, tc := range []struct {
		args     []string
		code     int
		stdout   string // substring
		stderr   string // substring
		noStdout bool
	}{
		{args: []string{"--operation=CREATE", "--resource=pods", "--namespace=default", fixtures + "reinvoke.yaml"}, code: 1,
			stdout: "Worst-case latency: 16s"},
		// Every webhook in connect.yaml fails closed, but none sees a cluster-scoped node.
		{args: []string{"--operation=CREATE", "--resource=nodes", fixtures + "connect.yaml"}, code: 0,
			stdout: "no webhook is called"},
		{args: []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "--format=json", fixtures + "reinvoke.yaml"}, code: 1,
			stdout: `"schemaVersion": 1`},
		// A unit of admission policies alone is simulated too: here one denies.
		{args: []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "--object=" + fixtures + "pod.yaml", fixtures + "policy-errors.yaml"}, code: 1,
			stdout: "Outcome: the API server rejects the request at ValidatingAdmissionPolicy condition-error with binding condition-error."},
		{args: []string{"--operation=CREATE", "--resource=pods"}, code: 2, stderr: "pods are namespaced: give --namespace", noStdout: true},
		{args: []string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--format=yaml"}, code: 2, stderr: `--format: unknown format "yaml"`, noStdout: true},
		{args: []string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--kube-version=one"}, code: 2, noStdout: true},
		{args: []string{"--operation=CREATE", "--resource=pods", "--namespace=x", fixtures + "nothing-here.yaml"}, code: 2, stderr: "nothing-here.yaml", noStdout: true},
		{args: []string{"--no-such-flag"}, code: 2, stderr: "unknown flag: --no-such-flag", noStdout: true},
	} {
		var stdout, stderr bytes.Buffer
		code := Simulate(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) ||
			(tc.noStdout && stdout.Len() > 0) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}

// Every report format works for simulate: text and json print the chain,
// the others report what can reject the request (here three fail-closed
// webhooks), well formed in their own syntax.
func TestSimulateEveryFormat(t *testing.T) {
	args := []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "../simulate/testdata/reinvoke.yaml"}
	for _, format := range report.Names() {
		var stdout, stderr bytes.Buffer
		code := Simulate(append([]string{"--format=" + format}, args...), strings.NewReader(""), &stdout, &stderr)
		out := stdout.String()
		if code != 1 || stderr.Len() > 0 {
			t.Errorf("--format %s: exit %d, stderr %q; want exit 1 and no stderr", format, code, stderr.String())
			continue
		}
		want := []string{"m1", "first.example.com", "second.example.com", "third.example.com"}
		switch format {
		case "text":
			want = append(want, "Worst-case latency: 16s")
		case "json":
			want = append(want, `"schemaVersion": 1`)
		case "counts":
			want = []string{"errors=0\nwarnings=3\n"}
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("--format %s: output lacks %q:\n%s", format, w, out)
			}
		}
		switch format {
		case "json", "sarif", "gitlab":
			var v any
			if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
				t.Errorf("--format %s: not JSON: %v", format, err)
			}
		case "junit", "checkstyle":
			for d := xml.NewDecoder(&stdout); ; {
				if _, err := d.Token(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Errorf("--format %s: not XML: %v", format, err)
					break
				}
			}
		}
	}
}

// simulate reads units as linting does: a kustomization folder gives the
// chain of what it builds, the same as its build output on stdin.
func TestSimulateKustomization(t *testing.T) {
	dir := filepath.Join("..", "testdata", "sources", "kubebuilder", "config", "default")
	b, err := kustomize.RunAs(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var built strings.Builder
	for _, o := range b.Objects {
		built.WriteString("---\n")
		built.Write(o.YAML)
	}
	args := []string{"--operation=CREATE", "--resource=jobs.batch", "--namespace=default"}
	var fromDir, fromStdin, stderr bytes.Buffer
	c1 := Simulate(append(args, dir), strings.NewReader(""), &fromDir, &stderr)
	c2 := Simulate(append(args, "-"), strings.NewReader(built.String()), &fromStdin, &stderr)
	if c1 != c2 || fromDir.String() != fromStdin.String() || !strings.Contains(fromDir.String(), "mjob.kb.io") {
		t.Errorf("folder (exit %d):\n%s\nbuild on stdin (exit %d):\n%s\nstderr: %s", c1, fromDir.String(), c2, fromStdin.String(), stderr.String())
	}
}

// A patch file no kustomization uses is its own unit, with metadata and no
// webhooks: it gets a note, not an empty chain that reads as "nothing
// intercepts this request".
func TestSimulateSkipsAnUnusedPatch(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "sources", "kubebuilder"))); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "config", "default", "unused_patch.yaml"),
		"apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: mutating-webhook-configuration\n  annotations:\n    example.com/x: y\n")
	var stdout, stderr bytes.Buffer
	Simulate([]string{"--operation=CREATE", "--resource=jobs.batch", "--namespace=default", filepath.Join(dir, "config", "default")}, strings.NewReader(""), &stdout, &stderr)
	if strings.Contains(stdout.String(), "unused_patch.yaml") || strings.Count(stdout.String(), "Request: ") != 1 || !strings.Contains(stdout.String(), "mjob.kb.io") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "unused_patch.yaml: no webhook and no admission policy, nothing to simulate (skipped)") {
		t.Errorf("stderr: %s", stderr.String())
	}
}
