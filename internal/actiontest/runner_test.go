// Package actiontest runs the repository's composite GitHub Action
// (action.yml) the way the Actions runner does, on this machine: it
// substitutes the ${{ }} expressions the runner substitutes, sets the
// runner's environment (INPUT_*, GITHUB_ACTION_PATH, GITHUB_WORKSPACE,
// GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY, RUNNER_TEMP)
// and runs each step's script with its shell. Of the actions a composite
// step may use, only actions/cache is allowed; it is recorded and behaves
// as on a runner whose cache is empty (nothing restored).
package actiontest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// action is the metadata syntax of action.yml; unknown keys are errors,
// so a misspelled key (working_directory) fails the test instead of being
// ignored as the runner would.
type action struct {
	Name        string
	Description string
	Author      string
	Branding    struct{ Icon, Color string }
	Inputs      map[string]actionInput
	Outputs     map[string]struct{ Description, Value string }
	Runs        struct {
		Using string
		Steps []step
	}
}

type actionInput struct {
	Description string
	Default     string
	Required    bool
}

type step struct {
	Name             string
	ID               string
	If               string
	Shell            string
	Run              string
	Uses             string
	With             map[string]string
	Env              map[string]string
	WorkingDirectory string `yaml:"working-directory"`
}

// result is what a run of the action leaves behind.
type result struct {
	failed   bool   // a step exited non-zero
	stdout   string // all steps' output, as the job log shows it
	outputs  map[string]string
	summary  string
	stepsRun []string
	// cacheUses holds the substituted with: of each actions/cache step run.
	cacheUses []map[string]string
	env       map[string]string // GITHUB_ENV at the end
	elapsed   time.Duration     // until the lint step finished
}

// runner describes the machine the action runs on.
type runner struct {
	toolCache string // RUNNER_TOOL_CACHE, kept across runs like a runner's
}

// cacheAction is the one action the composite action may use.
const cacheAction = "actions/cache@v4"

// ifRE is the one step condition besides always() the action uses.
var ifRE = regexp.MustCompile(`^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+) == '([^']*)'$`)

// condition evaluates a step's if: as the runner would.
func condition(t *testing.T, s step, ctx map[string]string, failed bool) bool {
	t.Helper()
	switch s.If {
	case "":
		return !failed
	case "always()":
		return true
	}
	m := ifRE.FindStringSubmatch(s.If)
	if m == nil {
		t.Fatalf("step %q: unsupported if %q", s.Name, s.If)
	}
	return !failed && ctx["steps."+m[1]+".outputs."+m[2]] == m[3]
}

func loadAction(t *testing.T, path string) *action {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &a
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
var propertyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$`)

// substitute replaces ${{ context.property }} references. Anything else
// (operators, functions) fails the test: the action keeps its expressions
// simple enough to be checked here.
func substitute(t *testing.T, s string, ctx map[string]string) string {
	t.Helper()
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		expr := exprRE.FindStringSubmatch(m)[1]
		if !propertyRE.MatchString(expr) {
			t.Fatalf("unsupported expression %q", m)
		}
		v, ok := ctx[expr]
		if !ok && !strings.HasPrefix(expr, "steps.") {
			t.Fatalf("expression %q names nothing the runner provides here", m)
		}
		return v // a missing step output is the empty string, as in Actions
	})
}

// runAction executes a composite action with inputs in workspace, on a
// fresh runner whose release downloads come from a loopback server holding
// releaseArtefacts (so nothing leaves the machine).
func runAction(t *testing.T, actionDir, workspace string, inputs map[string]string) *result {
	t.Helper()
	if _, ok := inputs["download-url"]; !ok {
		withURL := map[string]string{"download-url": serveRelease(t, releaseArtefacts(t), nil).url}
		for k, v := range inputs {
			withURL[k] = v
		}
		inputs = withURL
	}
	return (&runner{toolCache: t.TempDir()}).run(t, actionDir, workspace, inputs)
}

// run executes the action on r.
func (r *runner) run(t *testing.T, actionDir, workspace string, inputs map[string]string) *result {
	t.Helper()
	start := time.Now()
	a := loadAction(t, filepath.Join(actionDir, "action.yml"))
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	if a.Name == "" || a.Description == "" {
		t.Fatal("action.yml needs a name and a description")
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			t.Fatalf("input %q has no description", name)
		}
	}
	for name, out := range a.Outputs {
		if out.Description == "" || out.Value == "" {
			t.Fatalf("output %q needs a description and a value", name)
		}
	}
	for name := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("action has no input %q", name)
		}
	}
	temp := t.TempDir()
	ctx := map[string]string{
		"github.action_path": actionDir,
		"github.action_ref":  "v0.0.0-test",
		"github.workspace":   workspace,
		"runner.temp":        temp,
		"runner.os":          "Linux",
		"runner.tool_cache":  r.toolCache,
	}
	env := map[string]string{
		"GITHUB_ACTIONS":      "true",
		"CI":                  "true",
		"GITHUB_ACTION_PATH":  actionDir,
		"GITHUB_ACTION_REF":   "v0.0.0-test",
		"GITHUB_WORKSPACE":    workspace,
		"RUNNER_TEMP":         temp,
		"RUNNER_TOOL_CACHE":   r.toolCache,
		"RUNNER_OS":           runnerOS(t),
		"RUNNER_ARCH":         runnerArch(t),
		"GITHUB_STEP_SUMMARY": filepath.Join(temp, "step_summary.md"),
		"GITHUB_ENV":          filepath.Join(temp, "env"),
		"GITHUB_PATH":         filepath.Join(temp, "path"),
	}
	for name, in := range a.Inputs {
		v, ok := inputs[name]
		if !ok {
			v = in.Default
		}
		if in.Required && v == "" {
			t.Fatalf("required input %q not given", name)
		}
		ctx["inputs."+name] = v
		// The runner exports inputs as INPUT_<NAME> for every action kind.
		env["INPUT_"+strings.ToUpper(strings.ReplaceAll(name, " ", "_"))] = v
	}
	for _, f := range []string{env["GITHUB_STEP_SUMMARY"], env["GITHUB_ENV"], env["GITHUB_PATH"]} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := &result{outputs: map[string]string{}}
	var log strings.Builder
	for i, s := range a.Runs.Steps {
		if s.Uses != "" && s.Uses != cacheAction {
			t.Fatalf("step %q uses %s: the action may use only %s", s.Name, s.Uses, cacheAction)
		}
		if strings.Contains(s.Run, "${{") {
			t.Fatalf("step %q expands an expression inside run:; pass it through env", s.Name)
		}
		if s.Shell == "" && s.Uses == "" {
			t.Fatalf("step %q has no shell (composite steps need one)", s.Name)
		}
		if !condition(t, s, ctx, res.failed) {
			continue
		}
		res.stepsRun = append(res.stepsRun, s.Name)
		if s.Uses != "" {
			with := map[string]string{}
			for k, v := range s.With {
				with[k] = substitute(t, v, ctx)
			}
			res.cacheUses = append(res.cacheUses, with)
			continue
		}
		outFile := filepath.Join(temp, fmt.Sprintf("output-%d", i))
		if err := os.WriteFile(outFile, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		stepEnv := map[string]string{}
		for k, v := range env {
			stepEnv[k] = v
		}
		for k, v := range readEnvFile(t, env["GITHUB_ENV"]) {
			stepEnv[k] = v
		}
		stepEnv["GITHUB_OUTPUT"] = outFile
		for k, v := range s.Env {
			stepEnv[k] = substitute(t, v, ctx)
		}
		dir := workspace
		if s.WorkingDirectory != "" {
			dir = substitute(t, s.WorkingDirectory, ctx)
		}
		script := filepath.Join(temp, fmt.Sprintf("step-%d.sh", i))
		if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		var cmd *exec.Cmd
		switch s.Shell {
		case "bash":
			// The runner's command line for shell: bash.
			cmd = exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		case "sh":
			cmd = exec.Command("sh", "-e", script)
		default:
			t.Fatalf("step %q: shell %q not supported by this test", s.Name, s.Shell)
		}
		cmd.Dir = dir
		cmd.Env = processEnv(stepEnv, readLines(t, env["GITHUB_PATH"]))
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&log, "%s", out)
		if err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("step %q: %v", s.Name, err)
			}
			res.failed = true
		}
		if s.ID != "" {
			for k, v := range readOutputFile(t, outFile) {
				ctx["steps."+s.ID+".outputs."+k] = v
			}
		}
		if s.ID == "lint" {
			res.elapsed = time.Since(start)
		}
	}
	res.env = readEnvFile(t, env["GITHUB_ENV"])
	for name, o := range a.Outputs {
		res.outputs[name] = substitute(t, o.Value, ctx)
	}
	res.stdout = log.String()
	b, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	res.summary = string(b)
	return res
}

// processEnv builds the environment of a step: the test process's own
// (PATH, HOME, Go settings), the runner's variables, and the folders
// earlier steps added to GITHUB_PATH in front of PATH.
func processEnv(vars map[string]string, extraPath []string) []string {
	out := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, overridden := vars[k]; !overridden && !strings.HasPrefix(k, "INPUT_") && !strings.HasPrefix(k, "GITHUB_") {
			out = append(out, kv)
		}
	}
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	if len(extraPath) > 0 {
		for i, kv := range out {
			if strings.HasPrefix(kv, "PATH=") {
				// Later additions come first, as with the runner.
				var p []string
				for j := len(extraPath) - 1; j >= 0; j-- {
					p = append(p, extraPath[j])
				}
				out[i] = "PATH=" + strings.Join(p, ":") + ":" + strings.TrimPrefix(kv, "PATH=")
			}
		}
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// readOutputFile parses the GITHUB_OUTPUT / GITHUB_ENV syntax: name=value
// lines and name<<DELIMITER blocks.
func readOutputFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			closed := false
			for sc.Scan() {
				if sc.Text() == delim {
					closed = true
					break
				}
				val = append(val, sc.Text())
			}
			if !closed {
				t.Fatalf("%s: %s<<%s is not closed", path, name, delim)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: malformed line %q", path, line)
		}
		out[name] = val
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readEnvFile(t *testing.T, path string) map[string]string { return readOutputFile(t, path) }

// runnerOS and runnerArch are RUNNER_OS and RUNNER_ARCH for this machine.
func runnerOS(t *testing.T) string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	t.Skipf("no Actions runner for %s", runtime.GOOS)
	return ""
}

func runnerArch(t *testing.T) string {
	switch runtime.GOARCH {
	case "amd64":
		return "X64"
	case "arm64":
		return "ARM64"
	}
	t.Skipf("no Actions runner for %s", runtime.GOARCH)
	return ""
}
