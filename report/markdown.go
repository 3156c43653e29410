package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/ruledocs"
)

func init() {
	Register("markdown", func(Options) Formatter { return FormatterFunc(formatMarkdown) })
	Register("counts", func(Options) Formatter { return FormatterFunc(formatCounts) })
}

// markdownMaxBytes keeps a summary below the 1 MiB GitHub accepts for a
// step summary (a larger one is dropped whole), with room for other steps'
// summaries: every finding is listed up to that size. GitHub shows only
// 10 error and 10 warning annotations of a step, so the summary (with the
// SARIF log) is where the others are seen.
const markdownMaxBytes = 900 << 10

// formatMarkdown writes a report for a GitHub step summary or a pull
// request comment: a headline with the counts and a table of findings.
func formatMarkdown(w io.Writer, run *Run) error {
	var b strings.Builder
	ds := run.Diagnostics
	if len(ds) == 0 {
		fmt.Fprintf(&b, "### webhooklint: no findings in %s\n", plural(run.Files, "file"))
		_, err := io.WriteString(w, b.String())
		return err
	}
	files := map[string]bool{}
	for _, d := range ds {
		files[d.File] = true
	}
	fmt.Fprintf(&b, "### webhooklint: %s\n\n", summary(ds, len(files), run.Unchecked))
	b.WriteString("| Severity | Location | Rule | Message |\n|---|---|---|---|\n")
	for i, d := range ds {
		row := fmt.Sprintf("| %s | %s | [%s](%s) | %s |\n",
			markdownSeverity(d.Severity), code(location(d)), d.Rule, ruledocs.HelpURI(d.Rule),
			cell(fullMessage(d)))
		if b.Len()+len(row) > markdownMaxBytes {
			fmt.Fprintf(&b, "\n…and %d more, beyond the size GitHub shows in a summary; the SARIF log and `--format json` have every finding.\n", len(ds)-i)
			break
		}
		b.WriteString(row)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func markdownSeverity(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "🔴 error"
	case diag.Warning:
		return "🟡 warning"
	}
	return "🔵 info"
}

// cell makes text safe inside a table cell: no line breaks, no column
// separators, no HTML.
func cell(s string) string {
	s = strings.NewReplacer("\r\n", "<br>", "\n", "<br>", "|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
	return escapeControls(s)
}

// code wraps text in a code span that its own backticks cannot end.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + strings.ReplaceAll(escapeControls(s), "|", `\|`) + fence
}

// formatCounts writes key=value lines, the syntax of GitHub's
// GITHUB_OUTPUT file and easy to read in any shell script.
func formatCounts(w io.Writer, run *Run) error {
	c := diag.CountOf(run.Diagnostics)
	_, err := fmt.Fprintf(w, "errors=%d\nwarnings=%d\ninfos=%d\nfiles=%d\nunchecked=%d\n",
		c.Errors, c.Warnings, c.Infos, run.Files, run.Unchecked)
	return err
}
