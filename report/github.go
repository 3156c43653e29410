package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	Register("github", func(o Options) Formatter { return GitHub{BaseDir: o.BaseDir} })
}

// GitHub writes GitHub Actions workflow commands (::error, ::warning,
// ::notice), which the runner turns into annotations on the pull request.
type GitHub struct {
	// BaseDir makes file names relative to the repository root (the
	// runner's GITHUB_WORKSPACE): annotations on other paths are not shown
	// on the diff. Empty means the current directory.
	BaseDir string
}

// Format writes one command per diagnostic, in the canonical order.
func (g GitHub) Format(w io.Writer, run *Run) error {
	ds := run.Diagnostics
	base := g.BaseDir
	if base == "" {
		base = "."
	}
	sorted := sortedDiagnostics(ds)
	// One command at a time, not the whole report; the writer keeps the
	// first error for Flush.
	b := bufio.NewWriterSize(w, 64<<10)
	for _, d := range sorted {
		_, _ = b.WriteString("::")
		_, _ = b.WriteString(githubCommand(d.Severity))
		var props []string
		if d.File != "" && d.File != "-" {
			rel, _ := relativeTo(base, d.File)
			props = append(props, "file="+escapeProperty(rel))
			if d.Line > 0 {
				props = append(props, "line="+strconv.Itoa(d.Line))
				if d.EndLine > d.Line {
					props = append(props, "endLine="+strconv.Itoa(d.EndLine))
				}
				if d.Column > 0 {
					props = append(props, "col="+strconv.Itoa(d.Column))
					// The runner accepts end columns only on one-line
					// annotations; like SARIF's, they are exclusive.
					if (d.EndLine == 0 || d.EndLine == d.Line) && d.EndColumn > d.Column {
						props = append(props, "endColumn="+strconv.Itoa(d.EndColumn))
					}
				}
			}
		}
		props = append(props, "title="+escapeProperty("webhooklint: "+d.Rule))
		_, _ = b.WriteString(" ")
		_, _ = b.WriteString(strings.Join(props, ","))
		_, _ = b.WriteString("::")
		_, _ = b.WriteString(escapeData(githubMessage(d)))
		_, _ = b.WriteString("\n")
	}
	return b.Flush()
}

func githubCommand(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "error"
	case diag.Warning:
		return "warning"
	}
	return "notice"
}

// githubMessage adds what a reviewer needs when the annotation is read
// away from the file (the run summary): which object and webhook.
func githubMessage(d diag.Diagnostic) string {
	msg := diag.ShortMessage(d)
	var where []string
	if d.Object != nil && d.Object.Name != "" {
		where = append(where, d.Object.Kind+" "+strconv.Quote(d.Object.Name))
	}
	if d.Webhook != "" {
		where = append(where, "webhook "+strconv.Quote(d.Webhook))
	}
	if d.File == "" && d.Path != "" {
		where = append(where, "field "+d.Path)
	}
	if len(where) > 0 {
		msg += fmt.Sprintf(" (%s)", strings.Join(where, ", "))
	}
	return msg + unitsNote(d) + " [" + d.Rule + "]"
}

// escapeData escapes a command's message as @actions/core does.
func escapeData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	return strings.ReplaceAll(s, "\n", "%0A")
}

// escapeProperty escapes a command property value as @actions/core does:
// the data escapes plus the ':' and ',' that delimit properties.
func escapeProperty(s string) string {
	s = escapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}
