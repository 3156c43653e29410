package actiontest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// fakeDocker stands in for `docker run` in the CI workflow's image job: it
// runs webhooklint (this test binary under that name) as the image does,
// with the ENTRYPOINT webhooklint in the WORKDIR /src, where a -v HOST:/src
// mount puts HOST. Anything else it refuses, so a job that needs more
// fails here instead of passing by accident.
const fakeDocker = `#!/usr/bin/env bash
set -euo pipefail
[ "${1:-}" = run ] || { echo "fake docker: only run is supported, not ${1:-nothing}" >&2; exit 125; }
shift
work=$(mktemp -d)
while [ $# -gt 0 ]; do
  case $1 in
    --rm) shift ;;
    -v)
      host=${2%%:*} rest=${2#*:}
      [ "${rest%%:*}" = /src ] || { echo "fake docker: only mounts on /src are supported: $2" >&2; exit 125; }
      work=$host
      shift 2 ;;
    -*) echo "fake docker: unsupported flag $1" >&2; exit 125 ;;
    *) break ;;
  esac
done
[ "${1:-}" = "$FAKE_DOCKER_IMAGE" ] || { echo "fake docker: no image ${1:-}" >&2; exit 125; }
shift
cd "$work"
exec webhooklint "$@"
`

// The image job of .github/workflows/ci.yml runs only on GitHub, with a
// container engine; a path it names that moved made it exit 2 unseen. Its
// scripts run here with the binary in place of the image.
func TestCIImageJobRunsOnTheBinary(t *testing.T) {
	skipWithoutTools(t)
	root := repoRoot(t)
	dockerfile, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	// What fakeDocker assumes of the image.
	for _, want := range []string{"\nWORKDIR /src\n", "\nENTRYPOINT [\"webhooklint\"]\n"} {
		if !strings.Contains(string(dockerfile), want) {
			t.Fatalf("Dockerfile lacks %q, which fakeDocker copies; change both", strings.TrimSpace(want))
		}
	}
	b, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name, Uses, Run string
				With            map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("ci.yml: %v", err)
	}
	job, ok := wf.Jobs["image"]
	if !ok {
		t.Fatal("ci.yml has no image job")
	}
	env := map[string]string{}
	var scripts []string
	for _, s := range job.Steps {
		if strings.HasPrefix(s.Uses, "docker/build-push-action@") {
			env["FAKE_DOCKER_IMAGE"] = s.With["tags"]
			if v, ok := strings.CutPrefix(s.With["build-args"], "VERSION="); ok {
				env[selfVersionEnv] = v
			}
		}
		if s.Run != "" {
			scripts = append(scripts, s.Run)
		}
	}
	if env["FAKE_DOCKER_IMAGE"] == "" || len(scripts) == 0 {
		t.Fatalf("the image job builds no tagged image or runs nothing: %+v", job)
	}
	bin := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "webhooklint")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(fakeDocker), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, script := range scripts {
		// The runner's default shell on Linux: bash -e {0}.
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("image job, script %d: %v\n%s\n--- output:\n%s", i+1, err, script, out)
		}
	}
}
