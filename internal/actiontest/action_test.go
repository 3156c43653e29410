package actiontest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// workspace makes a checkout-like folder with the given files copied from
// the repository (source path -> path in the workspace).
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for src, dst := range files {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(ws, dst)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func skipWithoutTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
}

func TestActionOnBadManifests(t *testing.T) {
	skipWithoutTools(t)
	ws := workspace(t, map[string]string{
		"testdata/integrations/bad/webhooks.yaml": "deploy/webhooks.yaml",
		"testdata/integrations/bad/legacy.yaml":   "deploy/legacy.yaml",
	})
	res := runAction(t, repoRoot(t), ws, map[string]string{"paths": "deploy"})

	if !res.failed {
		t.Errorf("the step passed on findings at the default fail-on (warning)\n%s", res.stdout)
	}
	// Annotations: workflow commands with positions relative to the workspace.
	for _, want := range []string{
		"::error file=deploy/webhooks.yaml,line=23,col=5,endColumn=18,title=webhooklint%3A schema::unknown field \"webhooks[0].timeoutSecond\"",
		"::error file=deploy/legacy.yaml,line=1,col=13,endColumn=49,title=webhooklint%3A unserved-api-version::",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("log lacks annotation %q\n%s", want, res.stdout)
		}
	}
	// More rules may find more in these manifests; the counts must agree
	// with the annotations printed.
	counts := checkCounts(t, res)
	if counts["errors"] < 2 || counts["warnings"] < 1 {
		t.Errorf("counts %v: want at least the schema and unserved-api-version errors and a warning", counts)
	}
	for k, v := range map[string]string{"exit-code": "1", "sarif-file": "webhooklint.sarif"} {
		if res.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, res.outputs[k], v)
		}
	}
	// SARIF: in the workspace, locations relative to it.
	b, err := os.ReadFile(filepath.Join(ws, "webhooklint.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Version string }
			}
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Results            []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region struct{ StartLine, StartColumn int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
			Invocations []struct{ ExitCode int } `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("SARIF: %v", err)
	}
	run := log.Runs[0]
	if v := run.Tool.Driver.Version; v != "0.0.0-test" {
		t.Errorf("SARIF tool version %q: the build step did not stamp the action's ref", v)
	}
	if len(run.Results) != counts["errors"]+counts["warnings"]+counts["infos"] || run.Invocations[0].ExitCode != 1 ||
		run.OriginalURIBaseIDs["SRCROOT"].URI != "file://"+ws+"/" {
		t.Errorf("SARIF run: %+v", run)
	}
	for _, r := range run.Results {
		al := r.Locations[0].PhysicalLocation.ArtifactLocation
		if !strings.HasPrefix(al.URI, "deploy/") || al.URIBaseID != "SRCROOT" {
			t.Errorf("SARIF location %+v not relative to the workspace", al)
		}
	}
	// The job summary.
	for _, want := range []string{
		fmt.Sprintf("### webhooklint: %s, %s in 2 files\n", plural(counts["errors"], "error"), plural(counts["warnings"], "warning")),
		"| 🔴 error | `deploy/webhooks.yaml:23:5` | [schema](",
	} {
		if !strings.Contains(res.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.summary)
		}
	}
}

func TestActionOnGoodManifestsWithAllInputs(t *testing.T) {
	skipWithoutTools(t)
	ws := workspace(t, map[string]string{
		"testdata/integrations/good/webhooks.yaml": "k8s/a b/webhooks.yaml",
		"testdata/integrations/bad/legacy.yaml":    "k8s/legacy.yaml",
	})
	// The configuration turns the legacy error into info; fail-on error.
	if err := os.WriteFile(filepath.Join(ws, "lint.yaml"), []byte("rules:\n  unserved-api-version:\n    severity: info\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runAction(t, repoRoot(t), ws, map[string]string{
		"paths":        "k8s/*.yaml\n'k8s/a b'",
		"config":       "lint.yaml",
		"kube-version": "1.30",
		"fail-on":      "error",
		"sarif-file":   "out/results.sarif",
	})
	// 'k8s/a b' is split on its space: paths are white-space separated,
	// and webhooklint says which path does not exist.
	if !res.failed || res.outputs["exit-code"] != "2" || !strings.Contains(res.stdout, "'k8s/a") {
		t.Errorf("a path with a space: exit %q\n%s", res.outputs["exit-code"], res.stdout)
	}

	res = runAction(t, repoRoot(t), ws, map[string]string{
		"paths":        "k8s/*.yaml\nk8s/a*",
		"config":       "lint.yaml",
		"kube-version": "1.30",
		"fail-on":      "error",
		"sarif-file":   "results.sarif",
	})
	if res.failed {
		t.Fatalf("the step failed:\n%s", res.stdout)
	}
	counts := checkCounts(t, res)
	if counts["errors"] != 0 || counts["infos"] < 1 || res.outputs["exit-code"] != "0" || res.outputs["sarif-file"] != "results.sarif" {
		t.Errorf("outputs %v", res.outputs)
	}
	// The configuration made the removed API an info: a notice.
	if !strings.Contains(res.stdout, "::notice file=k8s/legacy.yaml,line=1,col=13") {
		t.Errorf("no notice annotation:\n%s", res.stdout)
	}
	if _, err := os.Stat(filepath.Join(ws, "results.sarif")); err != nil {
		t.Error(err)
	}
}

// checkCounts checks the count outputs against the annotations in the log
// and returns them.
func checkCounts(t *testing.T, res *result) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for out, command := range map[string]string{"errors": "::error ", "warnings": "::warning ", "infos": "::notice "} {
		n, err := strconv.Atoi(res.outputs[out])
		if err != nil {
			t.Fatalf("output %s = %q", out, res.outputs[out])
		}
		if annotations := strings.Count(res.stdout, "\n"+command) + boolInt(strings.HasPrefix(res.stdout, command)); annotations != n {
			t.Errorf("output %s = %d, but the log has %d %q annotations", out, n, annotations, command)
		}
		counts[out] = n
	}
	return counts
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func TestActionWithoutSARIFAndWithBadConfig(t *testing.T) {
	skipWithoutTools(t)
	ws := workspace(t, map[string]string{"testdata/integrations/good/webhooks.yaml": "webhooks.yaml"})
	res := runAction(t, repoRoot(t), ws, map[string]string{"sarif-file": ""})
	if res.failed || res.outputs["sarif-file"] != "" || res.outputs["errors"] != "0" {
		t.Errorf("clean run without SARIF: failed=%v outputs=%v\n%s", res.failed, res.outputs, res.stdout)
	}
	if _, err := os.Stat(filepath.Join(ws, "webhooklint.sarif")); err == nil {
		t.Error("a SARIF file was written although sarif-file is empty")
	}
	if !strings.Contains(res.summary, "### webhooklint: no findings in 1 file") {
		t.Errorf("summary: %q", res.summary)
	}

	if err := os.WriteFile(filepath.Join(ws, ".webhooklint.yaml"), []byte("rulez: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = runAction(t, repoRoot(t), ws, nil)
	if !res.failed || res.outputs["exit-code"] != "2" || res.outputs["errors"] != "" || res.outputs["sarif-file"] != "" {
		t.Errorf("configuration error: failed=%v outputs=%v", res.failed, res.outputs)
	}
	if !strings.Contains(res.stdout, `.webhooklint.yaml:1:1: unknown key "rulez"`) {
		t.Errorf("no positioned configuration error:\n%s", res.stdout)
	}
}

// args pass more flags (here a chart's values file and --set), and
// working-directory is where paths, config and those flags' files are
// relative to; annotations and SARIF stay relative to the repository root.
func TestActionArgsAndWorkingDirectory(t *testing.T) {
	skipWithoutTools(t)
	files := map[string]string{}
	for _, f := range []string{"Chart.yaml", "values.yaml", "values-broken.yaml", "templates/webhook.yaml", "templates/deployment.yaml",
		"templates/_helpers.tpl", "templates/service.yaml"} {
		files["testdata/sources/helm/webhook-chart/"+f] = "deploy/chart/" + f
	}
	ws := workspace(t, files)
	res := runAction(t, repoRoot(t), ws, map[string]string{
		"working-directory": "deploy",
		"paths":             "chart",
		"args":              "--values chart/values-broken.yaml\n--set webhook.failurePolicy=Fail --placeholders error",
		"sarif-file":        "out/webhooklint.sarif",
	})
	if !res.failed || res.outputs["exit-code"] != "1" {
		t.Fatalf("exit %q, want 1 on the broken values:\n%s", res.outputs["exit-code"], res.stdout)
	}
	for _, want := range []string{
		// --values: the string timeout; --placeholders error: the placeholder is an error.
		"::error file=deploy/chart/templates/webhook.yaml,line=16,col=19,",
		"::error file=deploy/chart/templates/webhook.yaml,line=23,col=15,",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("log lacks %q:\n%s", want, res.stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(ws, "out", "webhooklint.sarif"))
	if err != nil {
		t.Fatalf("SARIF not written relative to the workspace: %v", err)
	}
	if !strings.Contains(string(b), `"uri": "deploy/chart/templates/webhook.yaml"`) || !strings.Contains(string(b), `"uri": "file://`+ws+`/"`) {
		t.Errorf("SARIF locations not relative to the workspace:\n%.2000s", b)
	}
	if res.outputs["sarif-file"] != "out/webhooklint.sarif" {
		t.Errorf("sarif-file output %q", res.outputs["sarif-file"])
	}
	// A working directory that is not there: a usage error, said once.
	res = runAction(t, repoRoot(t), ws, map[string]string{"working-directory": "nowhere"})
	if !res.failed || res.outputs["exit-code"] != "2" || !strings.Contains(res.stdout, "::error title=webhooklint::working-directory nowhere: no such folder in the workspace") {
		t.Errorf("missing working-directory: exit %q\n%s", res.outputs["exit-code"], res.stdout)
	}
}
