package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	Register("text", func(o Options) Formatter { return &textFormatter{opts: o} })
}

type textFormatter struct{ opts Options }

// Format prints one line per finding, as compilers do, so editors and
// terminals can jump to it:
//
//	file:line:col: severity: message (webhook "x" in Kind/name) [rule]
func (t *textFormatter) Format(w io.Writer, run *Run) error {
	bw := bufio.NewWriter(w)
	for _, d := range run.Diagnostics {
		fmt.Fprintf(bw, "%s: %s: %s%s [%s]\n", location(d), d.Severity, d.Message, context(d), d.Rule)
	}
	return bw.Flush()
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

// context names the object and webhook so a finding reads on its own,
// and the field path when there is no file position to show it.
func context(d diag.Diagnostic) string {
	if d.Object == nil {
		return ""
	}
	s := ""
	switch {
	case d.Webhook != "":
		s = fmt.Sprintf(" (webhook %q in %s %q)", d.Webhook, d.Object.Kind, d.Object.Name)
	case d.Object.Name != "":
		s = fmt.Sprintf(" (%s %q)", d.Object.Kind, d.Object.Name)
	}
	if d.File == "" && d.Path != "" {
		s += " at " + d.Path
	}
	return s
}
