// Package linewidth holds the tests of every output mode (file, cluster,
// go vet) to one bound on the width of a text line (issue 38): what the
// tool writes is short, and what the input brings (a deep path, a long
// webhook name) is counted at a typical length. Only tests import it.
package linewidth

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	// Max is the widest a line may be.
	Max = 200
	// TypicalPath is how long a file name counts:
	// config/webhook/manifests.yaml is 29 characters,
	// charts/x/templates/webhook.yaml 31.
	TypicalPath = 40
	// TypicalName is how long a quoted name or value counts.
	TypicalName = 40
)

var (
	findingRE = regexp.MustCompile(`\[[a-z0-9-]+\](?: \([a-z ]+\))?$`)
	pathRE    = regexp.MustCompile(`[^\s:"(]+\.(?:ya?ml|json|tpl|go)\b`)
	// fieldRE is the field path that locates a finding of the cluster
	// mode, where the file mode has file:line:col, after the watch's mark.
	fieldRE   = regexp.MustCompile(`^([+-] )?([A-Za-z]+(?:\[\d+\])*(?:\.[A-Za-z]+(?:\[\d+\])*)*)(: (?:error|warning|info): )`)
	quotedRE  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	snippetRE = regexp.MustCompile(`^ +(?:\d+ )?\| `)
	// serverRE matches an error whose message is the API server's own
	// (a field.Error: path, type, detail), which webhooklint repeats as
	// the server words it.
	serverRE = regexp.MustCompile(`: error: \S+: (?:Invalid value|Unsupported value|Required value|Forbidden|Duplicate value|Not found|Too long|Too many|Internal error)\b`)
)

// Width is a line's width with paths and quoted names at their typical
// length.
func Width(line string) int {
	shorten := func(n int) func(string) string {
		return func(s string) string {
			if utf8.RuneCountInString(s) <= n {
				return s
			}
			return string([]rune(s)[:n])
		}
	}
	line = pathRE.ReplaceAllStringFunc(line, shorten(TypicalPath))
	// A field path counts as a file location does: a typical path with
	// its line and column.
	if m := fieldRE.FindStringSubmatchIndex(line); m != nil {
		line = line[:m[4]] + shorten(TypicalPath+len(":123:45"))(line[m[4]:m[5]]) + line[m[5]:]
	}
	line = quotedRE.ReplaceAllStringFunc(line, shorten(TypicalName))
	return utf8.RuneCountInString(line)
}

// Check reports each line of out wider than Max, and returns how many
// lines are findings (end with a [rule]), so that a test can tell it saw
// some. Source lines under a finding are the input's own and not judged,
// nor are the API server's own messages.
func Check(t testing.TB, what, out string) (findings int) {
	t.Helper()
	widest := 0
	for _, line := range strings.Split(out, "\n") {
		if snippetRE.MatchString(line) {
			continue
		}
		if findingRE.MatchString(line) {
			findings++
		}
		if serverRE.MatchString(line) {
			continue
		}
		w := Width(line)
		widest = max(widest, w)
		if w > Max {
			t.Errorf("%s: a line %d columns wide (%d as printed):\n%s", what, w, utf8.RuneCountInString(line), line)
		}
	}
	t.Logf("%s: %d finding lines, the widest line %d columns", what, findings, widest)
	return findings
}
