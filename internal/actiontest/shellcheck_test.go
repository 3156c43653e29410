package actiontest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestActionScriptsPassShellcheck runs shellcheck over every run: script of
// action.yml with the shell the step names (actionlint checks the
// workflows' scripts, not an action's). CI sets
// WEBHOOKLINT_REQUIRE_SHELLCHECK so the check cannot skip there.
func TestActionScriptsPassShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if os.Getenv("WEBHOOKLINT_REQUIRE_SHELLCHECK") != "" {
			t.Fatal("shellcheck not found (Debian shellcheck)")
		}
		t.Skip("shellcheck not found (Debian shellcheck)")
	}
	a := loadAction(t, filepath.Join(repoRoot(t), "action.yml"))
	checked := 0
	for i, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		script := filepath.Join(t.TempDir(), "step.sh")
		if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("shellcheck", "--shell="+s.Shell, "--severity=style", script).CombinedOutput()
		if err != nil {
			t.Errorf("step %d %q:\n%s", i, s.Name, out)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no run: steps in action.yml")
	}
}
