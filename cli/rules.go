package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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

// Explain renders a rule's documentation as Markdown, the same text the
// generated docs/rules/<rule>.md holds.
func Explain(r *rules.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s.\n\n", r.Name, r.Summary)
	fmt.Fprintf(&b, "- Default severity: %s\n- Category: %s\n- Since: %s\n", r.Severity, r.Category, r.Since)
	for _, o := range r.Options {
		fmt.Fprintf(&b, "- Option `%s` (default `%v`): %s\n", o.Name, o.Default, o.Doc)
	}
	section := func(title, body, lang string) {
		if strings.TrimSpace(body) == "" {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		if lang != "" {
			fmt.Fprintf(&b, "```%s\n%s\n```\n", lang, strings.TrimRight(body, "\n"))
			return
		}
		fmt.Fprintf(&b, "%s\n", strings.TrimRight(body, "\n"))
	}
	section("Why", r.Doc.Why, "")
	section("Bad", r.Doc.Bad, "yaml")
	section("Good", r.Doc.Good, "yaml")
	section("Fix", r.Doc.Fix, "")
	if len(r.Doc.Sources) > 0 {
		b.WriteString("\n## Sources\n\n")
		for _, s := range r.Doc.Sources {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	return b.String()
}
