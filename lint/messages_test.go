package lint_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// maxMessage is the longest message a finding may have: one line naming the
// problem and the fix. The why, examples and sources belong in the rule's
// doc (--explain, SARIF help, docs/rules).
const maxMessage = 300

// TestMessagesAreOneReadableLine lints every fixture and, when it is beside
// the checkout, the real-world corpus, with every rule on, and holds each
// message to one line of at most maxMessage characters without CEL
// positions or regular expressions pasted from a validator.
func TestMessagesAreOneReadableLine(t *testing.T) {
	var files []string
	fixtures, _ := filepath.Glob(filepath.Join(fixturesDir, "*", "*.yaml"))
	files = append(files, fixtures...)
	corpus, _ := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "real", "*"))
	if len(corpus) == 0 {
		t.Log("shared corpus not present beside the checkout: checking fixtures only")
	}
	files = append(files, corpus...)
	settings := rules.DefaultSettings()
	settings.Now = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var lengths []int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res := lint.LintUnit(lint.Unit{Files: []*manifest.File{manifest.Parse(f, data)}}, lint.Options{Settings: settings})
		for _, d := range res.Diagnostics {
			lengths = append(lengths, utf8.RuneCountInString(d.Message))
			if problem := messageProblem(d.Message); problem != "" {
				t.Errorf("%s:%d: [%s] %s: %s", f, d.Line, d.Rule, problem, d.Message)
			}
		}
	}
	if len(lengths) == 0 {
		t.Fatal("no findings to check")
	}
	slices.Sort(lengths)
	t.Logf("%d messages: median %d, longest %d characters", len(lengths), lengths[len(lengths)/2], lengths[len(lengths)-1])
}

// messageProblem says what is wrong with a message, or "".
func messageProblem(msg string) string {
	switch {
	case strings.ContainsAny(msg, "\n\r"):
		return "more than one line"
	case utf8.RuneCountInString(msg) > maxMessage:
		return "longer than 300 characters"
	case strings.Contains(msg, "<input>:"):
		return "a CEL position"
	case strings.Contains(msg, "regex used for validation"):
		return "a regular expression"
	}
	return ""
}

func TestMessageProblem(t *testing.T) {
	for msg, want := range map[string]bool{
		"webhook \"a.example.com\" fails closed; set timeoutSeconds to 10 or less": false,
		"two\nlines":                              true,
		strings.Repeat("x", maxMessage+1):         true,
		strings.Repeat("é", maxMessage):           false,
		"condition \"c\" errors (at <input>:1:1)": true,
		"a DNS-1035 label must consist of… (regex used for validation is '[a-z]')": true,
	} {
		if got := messageProblem(msg) != ""; got != want {
			t.Errorf("messageProblem(%.40q) reports a problem: %v, want %v", msg, got, want)
		}
	}
}
