package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// A first argument that is no command and no path, but close to a
// command, is a typo, not a missing path; one that exists is a path.
func TestMistypedCommand(t *testing.T) {
	code, out, errOut := runCLI(t, "completon", "bash")
	if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, `webhooklint: completon: no such command or path (did you mean "completion"?)`) {
		t.Errorf("completon: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	testkit.WriteFile(t, filepath.Join(dir, "hlep", "w.yaml"), badWebhook)
	if code, out, _ := runCLI(t, "hlep"); code != ExitFindings || !strings.Contains(out, "hlep/w.yaml:") {
		t.Errorf("an existing folder hlep: exit %d\n%s", code, out)
	}
}

func TestUsageMessages(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "w.yaml")
	testkit.WriteFile(t, file, badWebhook)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--fail-on", "nevr", file}, ExitUsage,
			`webhooklint: --fail-on: unknown value "nevr" (want error, warning, info or never) (did you mean "never"?)` + "\n"},
		{[]string{"--formt", "json", file}, ExitUsage, "webhooklint: unknown flag: --formt (did you mean --format?)\n"},
		{[]string{"--explain", "timeout-to-long"}, ExitUsage, `webhooklint: unknown rule "timeout-to-long" (did you mean "timeout-too-long"?) (see --list-rules)` + "\n"},
		// A version newer than the newest known is linted, with a note.
		{[]string{"--kube-version", "1.99", "--fail-on", "never", file}, ExitOK,
			"webhooklint: note: Kubernetes 1.99 is newer than 1.37, the newest this webhooklint knows; its checks are those of 1.37 (a newer webhooklint may know more)\n"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != tc.code || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// completion without a shell prints its usage, but no empty flag list.
func TestCompletionWithoutShell(t *testing.T) {
	code, _, errOut := runCLI(t, "completion")
	if code != ExitUsage || !strings.Contains(errOut, "Usage: webhooklint completion bash|zsh|fish") || strings.Contains(errOut, "Flags:") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}
