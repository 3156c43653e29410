package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/cluster"
	"github.com/webhooklint/webhooklint/internal/cliflag"
)

// The subcommands cmd/webhooklint registers, registered for these tests.
func init() {
	RegisterSubcommand("cluster", cluster.Command, cluster.Commands()...)
	RegisterSubcommand("simulate", Simulate, SimulateCommand())
}

func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// Flags may come before, between or after the paths, for every command,
// with the same result; -- ends them.
func TestFlagsAnywhere(t *testing.T) {
	const ex = "../examples/webhooks.yaml"
	const sim = "../simulate/testdata/reinvoke.yaml"
	groups := [][][]string{
		{
			{"--format", "counts", "--fail-on", "error", ex},
			{ex, "--format", "counts", "--fail-on", "error"},
			{"--format", "counts", ex, "--fail-on", "error"},
			{"--format=counts", ex, "--fail-on=error"},
			{"-format", "counts", ex, "-fail-on=error"}, // the Go flag package's spelling, as before
		},
		{
			{"simulate", "--operation", "CREATE", "--resource", "pods", "--namespace", "default", sim},
			{"simulate", sim, "--operation", "CREATE", "--resource", "pods", "--namespace", "default"},
			{"simulate", "--operation=CREATE", sim, "--resource=pods", "--namespace=default"},
			{"simulate", "--operation", "CREATE", "--resource", "pods", "--namespace", "default", "--", sim},
		},
	}
	for _, g := range groups {
		var want string
		var wantCode int
		for i, args := range g {
			code, out, errOut := runIn(t, "", args...)
			if code == ExitUsage || code == ExitInternal {
				t.Fatalf("%q: exit %d: %s", args, code, errOut)
			}
			if i == 0 {
				want, wantCode = out, code
				continue
			}
			if out != want || code != wantCode {
				t.Errorf("%q: exit %d, output\n%s\nwant exit %d and the output of %q:\n%s", args, code, out, wantCode, g[0], want)
			}
		}
	}
}

// After --, a path that looks like a flag is a path.
func TestDoubleDashEndsFlags(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "--format"), []byte(typo), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, errOut := runIn(t, "", "--color", "never", "--", "--format")
	if code != ExitFindings || !strings.Contains(out, "--format:7:3: error:") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Without --, it is the flag, missing its value.
	code, _, errOut = runIn(t, "", "--format")
	if code != ExitUsage || !strings.Contains(errOut, "flag needs an argument: --format") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// Flag values that start with a dash are values, not flags.
func TestFlagValueLikeAFlag(t *testing.T) {
	code, out, _ := run(t, typo, "--stdin-filename", "-x.yaml", "--color", "never", "-")
	if code != ExitFindings || !strings.Contains(out, "\n-x.yaml:6:3: error:") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

// Every command prints its help to stdout, exit 0, with every flag spelled
// --name as the README writes them; help COMMAND is the same text.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range Commands() {
		path := strings.Fields(c.Path)
		var first string
		for i, args := range [][]string{
			append(append([]string{}, path...), "--help"),
			append(append([]string{}, path...), "-h"),
			append([]string{"help"}, path...),
		} {
			code, out, errOut := runIn(t, "", args...)
			if code != ExitOK || errOut != "" || !strings.HasPrefix(out, "Usage: webhooklint") {
				t.Errorf("%q: exit %d, stderr %q, stdout starts %q", args, code, errOut, firstLine(out))
				continue
			}
			if i == 0 {
				first = out
				for _, f := range cliflag.Flags(c.Flags) {
					if !strings.Contains(out, "--"+f.Name) {
						t.Errorf("%q does not show --%s", args, f.Name)
					}
				}
			} else if out != first {
				t.Errorf("%q differs from %q --help", args, c.Path)
			}
		}
	}
	if code, _, errOut := runIn(t, "", "help", "no-such-command"); code != ExitUsage || !strings.Contains(errOut, `unknown command "no-such-command"`) {
		t.Errorf("help no-such-command: exit %d, stderr %q", code, errOut)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Usage errors of every command: exit 2, the error and where help is, on
// stderr only.
func TestUsageErrorsEveryCommand(t *testing.T) {
	for _, args := range [][]string{
		{"--no-such-flag"},
		{"examples/", "--no-such-flag"},
		{"--format"},
		{"--jobs", "many"},
		{"simulate", "--no-such-flag"},
		{"simulate", "../examples", "--operation"},
		{"cluster", "--no-such-flag"},
		{"cluster", "--timeout", "soon"},
		{"cluster", "some/path"},
		{"cluster", "simulate", "--no-such-flag"},
		{"cluster", "simulate", "--operation", "CREATE", "--resource", "pods", "--namespace", "x", "some/path"},
		{"completion"},
		{"completion", "tcsh"},
		{"completion", "bash", "zsh"},
	} {
		code, out, errOut := runIn(t, "", args...)
		if code != ExitUsage || out != "" || errOut == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and only stderr", args, code, out, errOut)
		}
	}
}

// cliflag.Parse reads one-dash long flags as before, keeps - as stdin and
// stops at --.
func TestNormalize(t *testing.T) {
	fs := cliflag.New("t")
	format := fs.String("format", "", "")
	watch := fs.Bool("watch", false, "")
	if err := cliflag.Parse(fs, []string{"a", "-format", "-", "-watch", "-", "--", "--watch"}); err != nil {
		t.Fatal(err)
	}
	if *format != "-" || !*watch || strings.Join(fs.Args(), " ") != "a - --watch" {
		t.Errorf("format %q, watch %v, args %q", *format, *watch, fs.Args())
	}
	if err := cliflag.Parse(cliflag.New("t"), []string{"-x"}); err == nil {
		t.Error("-x: no error")
	}
}

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, out, errOut := runIn(t, "", "completion", shell)
	if code != ExitOK || errOut != "" || out == "" {
		t.Fatalf("completion %s: exit %d, stderr %q", shell, code, errOut)
	}
	path := filepath.Join(t.TempDir(), "webhooklint."+shell)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The bash script completes subcommands, flags and their values as a
// shell would call it.
func TestCompletionBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := completionScript(t, "bash")
	cases := []struct{ line, want string }{
		{"webhooklint --form", "--format"},
		{"webhooklint --format ", "checkstyle counts github gitlab json junit markdown sarif text"},
		{"webhooklint --format = js", "json"},
		{"webhooklint examples/ --fail-on ", "error warning info never"},
		{"webhooklint --provider o", "openshift"},
		{"webhooklint --explain self-d", "self-deadlock"},
		{"webhooklint sim", "simulate"},
		{"webhooklint cluster ", "simulate"},
		{"webhooklint cluster --watch-list ", "auto always never"},
		{"webhooklint cluster simulate --oper", "--operation"},
		{"webhooklint cluster simulate --operation C", "CREATE CONNECT"},
		{"webhooklint simulate --format ", "checkstyle counts github gitlab json junit markdown sarif text"},
		{"webhooklint completion ", "bash zsh fish"},
		{"webhooklint help c", "cluster completion"},
		{"webhooklint --kube-version ", ""},
	}
	var b strings.Builder
	b.WriteString("source " + script + "\n")
	for _, c := range cases {
		words := strings.Split(c.line, " ")
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		b.WriteString("COMP_WORDS=(" + strings.Join(quoted, " ") + "); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _webhooklint; echo \"${COMPREPLY[*]}\"\n")
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", b.String())
	cmd.Dir = t.TempDir() // no files to offer
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(cases) {
		t.Fatalf("%d lines for %d cases:\n%s", len(got), len(cases), out)
	}
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%q completes to %q, want %q", c.line, got[i], c.want)
		}
	}
}

// fish offers the same, through its own complete -C.
func TestCompletionFish(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("no fish")
	}
	script := completionScript(t, "fish")
	cases := []struct{ line, want string }{
		{"webhooklint --format ", "checkstyle counts github gitlab json junit markdown sarif text"},
		{"webhooklint ", "cluster completion help simulate"},
		{"webhooklint cluster --watch-l", "--watch-list"},
		{"webhooklint cluster simulate --operation ", "CONNECT CREATE DELETE UPDATE"},
		{"webhooklint completion ", "bash fish zsh"},
	}
	for _, c := range cases {
		cmd := exec.Command("fish", "--no-config", "-c", "source "+script+"; complete -C'"+c.line+"'")
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v: %s", c.line, err, out)
		}
		var words []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			w, _, _ := strings.Cut(line, "\t")
			words = append(words, w)
		}
		if got := strings.Join(words, " "); got != c.want {
			t.Errorf("%q completes to %q, want %q", c.line, got, c.want)
		}
	}
}

// The zsh script is valid zsh and names every command's flags.
func TestCompletionZsh(t *testing.T) {
	script := completionScript(t, "zsh")
	data, _ := os.ReadFile(script)
	for _, c := range Commands() {
		c.Flags.VisitAll(func(f *pflag.Flag) {
			if !strings.Contains(string(data), "--"+f.Name) {
				t.Errorf("zsh script misses --%s of %q", f.Name, c.Path)
			}
		})
	}
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("no zsh")
	}
	if out, err := exec.Command("zsh", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v: %s", err, out)
	}
	// An interactive zsh (through zpty) lists what TAB offers.
	cases := []struct{ line, want string }{
		{"webhooklint --format ", "checkstyle counts github gitlab json junit markdown sarif text"},
		{"webhooklint cluster simulate --operation ", "CONNECT CREATE DELETE UPDATE"},
		{"webhooklint completion ", "bash fish zsh"},
	}
	for _, c := range cases {
		// Read until every word is listed, for at most 60 s: compinit and
		// the listing take seconds on a busy machine.
		var all []string
		for _, w := range strings.Fields(c.want) {
			all = append(all, `$out == *`+w+`*`)
		}
		driver := `zmodload zsh/zpty
zpty z 'TERM=dumb zsh -f -i'
zpty -w z 'PS1="PROMPT>"; autoload -U compinit; compinit -u -D; source ` + script + `; zstyle ":completion:*" menu no; LISTMAX=1000'
zpty -w -n z $'` + c.line + `\t'
out=""
for i in {1..300}; do
  while zpty -r -t z line; do out+=$line; done
  [[ ` + strings.Join(all, " && ") + ` ]] && break
  sleep 0.2
done
print -r -- "$out"
zpty -d z
`
		cmd := exec.Command("zsh", "-f", "-c", driver)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v: %s", c.line, err, out)
		}
		// What follows the typed line is the listing.
		listing := string(out)
		if i := strings.Index(listing, strings.TrimSpace(c.line)); i >= 0 {
			listing = listing[i:]
		}
		for _, w := range strings.Fields(c.want) {
			if !regexp.MustCompile(`(?m)(^|\s)` + regexp.QuoteMeta(w) + `(\s|$)`).MatchString(listing) {
				t.Errorf("%q: zsh does not offer %s:\n%s", c.line, w, listing)
			}
		}
	}
}

// Every --flag the README and docs/ name is a flag of a webhooklint command,
// or of another tool they show (pre-commit, git, sha256sum, docker, bash,
// gh, cosign, VS Code's code…).
func TestDocsNameOnlyFlagsThatExist(t *testing.T) {
	have := map[string]bool{}
	for _, c := range Commands() {
		c.Flags.VisitAll(func(f *pflag.Flag) { have[f.Name] = true })
	}
	others := map[string]bool{"all-files": true, "bare": true, "branch": true, "check": true, "fix": true,
		"ignore-missing": true, "noprofile": true, "norc": true, "rm": true, "schema": true,
		"repo": true, "bundle": true, "certificate-oidc-issuer": true, "certificate-identity-regexp": true, // gh, cosign
		"install-extension": true} // code
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("docs: %v", err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	flagRE := regexp.MustCompile("(?:^|[\\s`(\\[|])--([a-z][a-z0-9-]+)")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range flagRE.FindAllStringSubmatch(string(b), -1) {
			if !have[m[1]] && !others[m[1]] {
				t.Errorf("%s names --%s, which no webhooklint command has", f, m[1])
			}
		}
	}
}

// cluster and cluster simulate take their flags in any order too: each
// order parses (and gets as far as looking for a cluster, which this test
// does not give them).
func TestClusterFlagOrders(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, args := range [][]string{
		{"cluster", "--format", "json", "--fail-on", "error", "--timeout", "5s", "--no-live"},
		{"cluster", "--no-live", "--timeout=5s", "--fail-on=error", "--format=json"},
		{"cluster", "-format", "json", "--watch", "--watch-list", "never"},
		{"cluster", "simulate", "--operation", "CREATE", "--resource", "pods", "--namespace", "x", "--timeout", "5s"},
		{"cluster", "simulate", "--namespace=x", "--timeout=5s", "--resource=pods", "--operation=CREATE", "--format", "json"},
	} {
		code, out, errOut := runIn(t, "", args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, ": no cluster to connect to: looked for a kubeconfig in $KUBECONFIG") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want the flags parsed and no cluster found", args, code, out, errOut)
		}
	}
}
