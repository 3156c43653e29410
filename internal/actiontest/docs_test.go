package actiontest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// yamlBlocks returns the ```yaml blocks of a Markdown file.
func yamlBlocks(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```yaml\n(.*?)^```").FindAllStringSubmatch(string(b), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// The docs' workflows use only the inputs action.yml has, and the inputs
// table lists exactly those.
func TestDocsNameOnlyTheActionsInputs(t *testing.T) {
	root := repoRoot(t)
	a := loadAction(t, filepath.Join(root, "action.yml"))
	doc := filepath.Join(root, "docs", "github-action.md")
	used := 0
	for _, block := range yamlBlocks(t, doc) {
		var steps []map[string]any
		var wf struct {
			Jobs map[string]struct {
				Steps []map[string]any `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(block), &wf); err == nil && len(wf.Jobs) > 0 {
			for _, j := range wf.Jobs {
				steps = append(steps, j.Steps...)
			}
		} else if err := yaml.Unmarshal([]byte(dedent(block)), &steps); err != nil {
			t.Fatalf("a yaml block of %s is neither a workflow nor steps: %v\n%s", doc, err, block)
		}
		for _, s := range steps {
			uses, _ := s["uses"].(string)
			if !strings.HasPrefix(uses, "webhooklint/webhooklint@") {
				continue
			}
			used++
			with, _ := s["with"].(map[string]any)
			for k := range with {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("%s uses input %q, which action.yml does not have", doc, k)
				}
			}
		}
	}
	if used == 0 {
		t.Fatalf("%s has no step using the action", doc)
	}
	b, _ := os.ReadFile(doc)
	section := string(b)[strings.Index(string(b), "## Inputs"):]
	section = section[:strings.Index(section, "\n## ")]
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	var have []string
	for k := range a.Inputs {
		have = append(have, k)
	}
	slices.Sort(listed)
	slices.Sort(have)
	if !slices.Equal(listed, have) {
		t.Errorf("the inputs table of %s lists %v; action.yml has %v", doc, listed, have)
	}
}

func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n")
}

// The complete workflow of docs/github-action.md passes actionlint, as the
// repository's own workflows do. CI sets WEBHOOKLINT_REQUIRE_ACTIONLINT so
// the check cannot skip there.
func TestDocsWorkflowPassesActionlint(t *testing.T) {
	if _, err := exec.LookPath("actionlint"); err != nil {
		if os.Getenv("WEBHOOKLINT_REQUIRE_ACTIONLINT") != "" {
			t.Fatal("actionlint not found (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)")
		}
		t.Skip("actionlint not found")
	}
	doc := filepath.Join(repoRoot(t), "docs", "github-action.md")
	checked := 0
	for i, block := range yamlBlocks(t, doc) {
		if !strings.Contains(block, "\njobs:") {
			continue
		}
		dir := filepath.Join(t.TempDir(), ".github", "workflows")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "docs.yaml")
		if err := os.WriteFile(file, []byte(block), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("actionlint", "-no-color", file)
		cmd.Dir = filepath.Dir(filepath.Dir(dir))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("workflow %d of %s: actionlint: %v\n%s", i, doc, err, out)
		}
		checked++
	}
	if checked == 0 {
		t.Fatalf("%s has no workflow", doc)
	}
}
