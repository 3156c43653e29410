package doctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// example is one shell transcript of a Markdown file.
type example struct {
	file string // relative to the repository root
	line int    // of the command
	dir  string // relative to the repository root
	cmd  string
	want []string
}

var dirComment = regexp.MustCompile(`^<!--\s*doctest:\s*dir=(\S+)\s*-->$`)

// transcripts finds the examples of a Markdown file.
func transcripts(t *testing.T, root, rel string) []example {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []example
	dir := "."
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := dirComment.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			dir = m[1]
			continue
		}
		if !strings.HasPrefix(l, "```") {
			if strings.TrimSpace(l) != "" {
				dir = "."
			}
			continue
		}
		// A fenced block: a transcript when its first line is a command.
		start := i + 1
		end := start
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		i = end
		if start >= end || !strings.HasPrefix(lines[start], "$ ") {
			dir = "."
			continue
		}
		for j := start; j < end; j++ {
			if cmd, ok := strings.CutPrefix(lines[j], "$ "); ok {
				out = append(out, example{file: rel, line: j + 1, dir: dir, cmd: cmd})
				continue
			}
			out[len(out)-1].want = append(out[len(out)-1].want, lines[j])
		}
		dir = "."
	}
	return out
}

// pattern turns the output a doc shows into a regular expression.
func pattern(want []string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`\A`)
	for _, l := range want {
		if strings.TrimSpace(l) == "…" {
			b.WriteString(`(?:.*\n)*?`)
			continue
		}
		parts := strings.Split(l, "…")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		b.WriteString(strings.Join(parts, `.*?`) + `\n`)
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

func docs(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	m, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m {
		rel, _ := filepath.Rel(root, f)
		files = append(files, rel)
	}
	return files
}

func TestDocExamples(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// webhooklint is this test binary under that name (TestMain): a go
	// build here would compile the whole tree again while go test ./...
	// is still compiling it, on a cold cache longer than its timeout.
	bin := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "webhooklint")); err != nil {
		t.Fatal(err)
	}
	var all []example
	for _, f := range docs(t, root) {
		all = append(all, transcripts(t, root, f)...)
	}
	if len(all) < 3 {
		t.Fatalf("found %d examples in the docs; the parser lost them", len(all))
	}
	for _, ex := range all {
		t.Run(ex.file+":"+itoa(ex.line), func(t *testing.T) {
			// go run ./cmd/webhooklint is the webhooklint above.
			cmd := strings.ReplaceAll(ex.cmd, "go run ./cmd/webhooklint", "webhooklint")
			c := exec.Command("bash", "--noprofile", "--norc", "-c", cmd)
			c.Dir = filepath.Join(root, ex.dir)
			c.Env = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TERM=dumb", "NO_COLOR=1", "LC_ALL=C.UTF-8"}
			out, _ := c.CombinedOutput() // the status is not what the docs show
			got := string(out)
			if !pattern(ex.want).MatchString(got) {
				t.Errorf("%s:%d: $ %s\n--- the doc shows\n%s\n--- it prints\n%s", ex.file, ex.line, ex.cmd, strings.Join(ex.want, "\n"), got)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The transcript parser and the "…" patterns behave as doc.go says.
func TestPattern(t *testing.T) {
	for _, c := range []struct {
		want []string
		out  string
		ok   bool
	}{
		{[]string{"a", "…", "c"}, "a\nb\nb\nc\n", true},
		{[]string{"a", "…", "c"}, "a\nc\n", true},
		{[]string{"a…c"}, "abbc\n", true},
		{[]string{"a", "c"}, "a\nb\nc\n", false},
		{[]string{"a"}, "a\nextra\n", false},
		{[]string{"x (…) y"}, "x (1) y\n", true},
	} {
		if got := pattern(c.want).MatchString(c.out); got != c.ok {
			t.Errorf("%q against %q: %v", c.want, c.out, got)
		}
	}
}
