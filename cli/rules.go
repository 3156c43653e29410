package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/webhooklint/webhooklint/internal/ruledocs"
	"github.com/webhooklint/webhooklint/rules"
)

func listRules(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tCATEGORY\tSUMMARY")
	for _, r := range rules.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, r.Severity, r.Category, r.Summary)
	}
	tw.Flush()
}

// Explain renders a rule's documentation as Markdown: the text of the
// generated docs/rules/<rule>.md, from the same function.
func Explain(r *rules.Rule) string { return ruledocs.Markdown(r) }
