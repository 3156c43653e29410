package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	Register("text", func(o Options) Formatter { return &textFormatter{opts: o} })
}

type textFormatter struct{ opts Options }

// ANSI styles; used only when Options.Color is set.
const (
	styleReset  = "\x1b[0m"
	styleBold   = "\x1b[1m"
	styleDim    = "\x1b[2m"
	styleRed    = "\x1b[1;31m"
	styleYellow = "\x1b[1;33m"
	styleCyan   = "\x1b[1;36m"
)

// Format prints one line per finding, as compilers do, so editors and
// terminals can jump to it, then the offending source line with the value
// underlined, and a summary at the end:
//
//	file: In webhook "x" of Kind "name":
//	file:line:col: severity: message [rule]
//	   12 |     timeoutSeconds: 30
//	      |                     ^~
//
//	1 error, 2 warnings in 1 file
func (t *textFormatter) Format(w io.Writer, run *Run) error {
	if run.Document != nil {
		return run.Document.WriteText(w)
	}
	tw := NewTextWriter(w, t.opts, run)
	for _, d := range run.Diagnostics {
		tw.Finding("", d, "")
	}
	tw.Summary(run)
	return tw.Flush()
}

// TextWriter prints findings one at a time in the text format, for
// commands that print as they go (cluster --watch): the same headers,
// lines, snippets, colors and summary as a whole run.
type TextWriter struct {
	opts Options
	w    *bufio.Writer
	run  *Run
	// Diagnostics come sorted by file: index each file's lines once.
	lines   *lineIndex
	linesOf string
	// The webhook and object a run of findings is about head them, once,
	// as compilers name the function: "file: In webhook … of …:".
	headFile, head string
	headed         bool
	files          map[string]bool
}

// NewTextWriter returns a TextWriter on w; run gives the sources of
// snippets, the excerpts of live objects and whether it is live.
func NewTextWriter(w io.Writer, opts Options, run *Run) *TextWriter {
	return &TextWriter{opts: opts, w: bufio.NewWriter(w), run: run, files: map[string]bool{}}
}

// Finding prints d, after mark ("+ " for a finding that appeared) and
// before note ("(fixed)"), under a header naming its subject
// when that differs from the previous finding's.
func (t *TextWriter) Finding(mark string, d diag.Diagnostic, note string) {
	t.files[d.File] = true
	about := ""
	switch s := subject(d); {
	case d.File != "" || t.run.Live && s != "":
		if s != "" && (!t.headed || s != t.head || d.File != t.headFile) {
			if d.File != "" {
				fmt.Fprintf(t.w, "%s: In %s:\n", t.style(styleBold, escapeControls(d.File)), escapeControls(s))
			} else {
				fmt.Fprintf(t.w, "In %s:\n", escapeControls(s))
			}
		}
		t.headFile, t.head, t.headed = d.File, s, true
	default:
		// No file and no header (a live object): the finding names its
		// object.
		about, t.headFile, t.head, t.headed = context(d), "", "", false
	}
	if note != "" {
		note = " " + note
	}
	// File names, messages and names come from the input: what would act
	// on the terminal is escaped.
	fmt.Fprintf(t.w, "%s%s: %s: %s%s %s%s\n", mark,
		t.style(styleBold, escapeControls(t.location(d))),
		t.style(severityStyle(d.Severity), d.Severity.String()),
		escapeControls(diag.ShortMessage(d)), escapeControls(about),
		t.style(styleDim, "["+d.Rule+"]"), escapeControls(note))
	if t.run.Source != nil && d.File != "" && d.Line > 0 {
		if src := t.run.Source(d.File); src != nil {
			if t.lines == nil || t.linesOf != d.File {
				t.lines, t.linesOf = newLineIndex(src), d.File
			}
			t.snippet(t.w, t.lines, d)
		}
	}
	if t.run.Excerpt != nil && mark != "- " {
		if e := t.run.Excerpt(d); e != "" {
			for _, line := range strings.Split(e, "\n") {
				fmt.Fprintln(t.w, "    "+escapeControls(line))
			}
		}
	}
	if len(d.Units) > 0 {
		fmt.Fprintf(t.w, "  %s %s\n", t.style(styleDim, "only in"), escapeControls(strings.Join(d.Units, "; ")))
	}
	for _, r := range d.Related {
		at := diag.Diagnostic{Span: r.Start()}
		fmt.Fprintf(t.w, "  %s %s: %s\n", t.style(styleDim, "see also"), escapeControls(location(at)), escapeControls(r.Message))
	}
}

// location is where a finding's line starts: file:line:col, or for a
// live object under its header, the field path.
func (t *TextWriter) location(d diag.Diagnostic) string {
	if t.run.Live && t.headed && d.File == "" && d.Path != "" {
		return d.Path
	}
	return location(d)
}

// Line prints a line of the command's own (a watch event, a note), dim;
// the next finding repeats its header.
func (t *TextWriter) Line(s string) {
	fmt.Fprintln(t.w, t.style(styleDim, escapeControls(s)))
	t.headed = false
}

// Summary ends the output with the counts of run's findings, or says
// what a clean run looked at.
func (t *TextWriter) Summary(run *Run) {
	switch {
	case len(run.Diagnostics) == 0:
		// A clean run says what it looked at, so that it does not read
		// like a run on the wrong folder.
		fmt.Fprintf(t.w, "%s\n", t.style(styleBold, cleanSummary(run)))
	case run.Live:
		fmt.Fprintf(t.w, "\n%s\n", t.style(styleBold, liveSummary(run)))
	default:
		files := map[string]bool{}
		for _, d := range run.Diagnostics {
			files[d.File] = true
		}
		fmt.Fprintf(t.w, "\n%s\n", t.style(styleBold, summary(run.Diagnostics, len(files), run.Unchecked)))
	}
	t.headed = false
}

// Flush writes what is buffered.
func (t *TextWriter) Flush() error { return t.w.Flush() }

func (t *TextWriter) style(s, text string) string {
	if !t.opts.Color || text == "" {
		return text
	}
	return s + text + styleReset
}

func severityStyle(s diag.Severity) string {
	switch s {
	case diag.Error:
		return styleRed
	case diag.Warning:
		return styleYellow
	}
	return styleCyan
}

// maxSnippetLine is the longest source line (in bytes) printed under a
// finding; a minified JSON file is one line no reader wants repeated.
const maxSnippetLine = 1000

// snippet prints the line a finding starts on and marks its span: a caret
// at the start column and tildes to the end column (or to the end of the
// line when the span continues on later lines).
func (t *TextWriter) snippet(w io.Writer, src *lineIndex, d diag.Diagnostic) {
	line, ok := src.line(d.Line)
	if !ok || len(line) > maxSnippetLine || !utf8.ValidString(line) {
		return
	}
	runes := []rune(line)
	start := d.Column
	if start < 1 {
		start = 1
	}
	if start > len(runes)+1 {
		return // the position does not fit this text; print nothing wrong
	}
	end := start + 1
	switch {
	case d.EndLine == d.Line && d.EndColumn > start:
		end = d.EndColumn
	case d.EndLine > d.Line:
		end = len(runes) + 1
	}
	end = min(max(end, start+1), len(runes)+2)
	// Copy tabs from the source so the marker lines up however the
	// terminal expands them; an escaped control character is as wide as
	// its escape.
	var pad strings.Builder
	for _, r := range runes[:start-1] {
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteString(strings.Repeat(" ", runeWidth(r)))
		}
	}
	width := end - start
	for _, r := range runes[start-1 : min(end-1, len(runes))] {
		width += runeWidth(r) - 1
	}
	marker := "^" + strings.Repeat("~", width-1)
	line = escapeControls(line)
	num := strconv.Itoa(d.Line)
	gutter := strings.Repeat(" ", len(num))
	fmt.Fprintf(w, " %s %s %s\n", t.style(styleDim, num), t.style(styleDim, "|"), line)
	fmt.Fprintf(w, " %s %s %s%s\n", gutter, t.style(styleDim, "|"), pad.String(), t.style(severityStyle(d.Severity), marker))
}

// summary counts findings, and the sources not read: "2 errors, 1
// warning, 1 info in 2 files; 3 sources not checked (offline)".
func summary(ds []diag.Diagnostic, files, unchecked int) string {
	c := diag.CountOf(ds)
	parts := []string{plural(c.Errors, "error"), plural(c.Warnings, "warning")}
	if c.Infos > 0 {
		parts = append(parts, plural(c.Infos, "info"))
	}
	s := strings.Join(parts, ", ") + " in " + plural(files, "file")
	if unchecked > 0 {
		// The notices saying so may be info: the line still says it.
		s += "; " + plural(unchecked, "source") + " not checked (offline)"
	}
	return s
}

// cleanSummary says what a run without findings linted: "no findings in
// 3 webhook configurations, 12 files", or that the files hold nothing
// webhooklint lints.
func cleanSummary(run *Run) string {
	switch {
	case run.Configs == 0 && run.Policies == 0 && run.Live:
		return "no webhook configuration or admission policy in the cluster"
	case run.Configs == 0 && run.Policies == 0:
		return "no webhook configuration or admission policy in " + plural(run.Files, "file")
	}
	return "no findings in " + strings.Join(read(run), ", ")
}

// liveSummary counts a live run's findings and says what it read: "1
// error, 2 warnings in 3 webhook configurations, 1 admission policy or
// binding".
func liveSummary(run *Run) string {
	c := diag.CountOf(run.Diagnostics)
	parts := []string{plural(c.Errors, "error"), plural(c.Warnings, "warning")}
	if c.Infos > 0 {
		parts = append(parts, plural(c.Infos, "info"))
	}
	return strings.Join(parts, ", ") + " in " + strings.Join(read(run), ", ")
}

// read names what a run linted: configurations and policies, and files
// unless the run is live.
func read(run *Run) []string {
	var parts []string
	if run.Configs > 0 || run.Live && run.Policies == 0 {
		parts = append(parts, plural(run.Configs, "webhook configuration"))
	}
	if run.Policies > 0 {
		parts = append(parts, pluralPolicies(run.Policies))
	}
	if !run.Live {
		parts = append(parts, plural(run.Files, "file"))
	}
	return parts
}

func pluralPolicies(n int) string {
	if n == 1 {
		return "1 admission policy or binding"
	}
	return strconv.Itoa(n) + " admission policies and bindings"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func location(d diag.Diagnostic) string {
	if d.File == "" {
		if d.Object != nil {
			return fmt.Sprintf("%s/%s", d.Object.Kind, d.Object.Name)
		}
		return "<input>"
	}
	if d.Line == 0 {
		return d.File
	}
	return fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Column)
}

// unitsNote names the units a finding is in when not all that read its
// file have it, for formats that show a finding on one line.
func unitsNote(d diag.Diagnostic) string {
	if len(d.Units) == 0 {
		return ""
	}
	return " (only in " + strings.Join(d.Units, "; ") + ")"
}

// context names the object and webhook so a finding reads on its own,
// and the field path when there is no file position to show it.
func context(d diag.Diagnostic) string {
	if d.Object == nil {
		return unitsNote(d)
	}
	s := ""
	switch {
	case len(d.Related) > 0:
		// Located at the backend; the webhook is the related location.
		s = " (" + d.Related[0].Message + ")"
	case d.Webhook != "":
		s = fmt.Sprintf(" (webhook %q in %s %q)", d.Webhook, d.Object.Kind, d.Object.Name)
	case d.Object.Name != "":
		s = fmt.Sprintf(" (%s %q)", d.Object.Kind, d.Object.Name)
	}
	if d.File == "" && d.Path != "" {
		s += " at " + d.Path
	}
	return s + unitsNote(d)
}
