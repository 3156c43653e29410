package ruledocs

import (
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

func TestMarkdownAndText(t *testing.T) {
	r := &rules.Rule{Name: "demo-rule", Summary: "demo summary", Severity: diag.Warning, Category: rules.Practice,
		Since: "0.1.0", Doc: rules.Doc{Why: "Because.", Bad: "a: ```\n", Good: "a: 1", Fix: "Fix it.", Sources: []string{"src"}},
		Options: []rules.Option{{Name: "limit", Doc: "The limit.", Default: 3}, {Name: "names", Doc: "Names.", Default: []string{"x"}}}}
	md := Markdown(r)
	for _, want := range []string{
		"# demo-rule\n\ndemo summary.\n",
		"| warning | practice | 0.1.0 |",
		"## Why\n\nBecause.\n",
		"## Bad\n\n````yaml\na: ```\n````\n", // a longer fence around an example holding a fence
		"## Good\n\n```yaml\na: 1\n```\n",
		"| `limit` | `3` | The limit. |",
		"| `names` | `[\"x\"]` | Names. |",
		"# webhooklint:ignore demo-rule -- <why this is fine here>",
		"## Sources\n\n- src\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	text := Text(r)
	if strings.Contains(text, "```yaml") || !strings.Contains(text, "Bad:\n    a: ```\n") || !strings.Contains(text, "limit (default 3): The limit.") {
		t.Errorf("text:\n%s", text)
	}
}
