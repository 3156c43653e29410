package manifest

import (
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
)

// A flow collection's span ends at its closing bracket, wherever the text
// puts it: on a line of its own in pretty JSON, after blanks and comments.
func TestExtentEndsAtClosingBracket(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       diag.Span
	}{
		{"one line", `{"a": [1, 2]}`, diag.Span{Line: 1, Column: 7, EndLine: 1, EndColumn: 13}},
		{"pretty JSON", "{\"a\": [\n  1,\n  2\n]}", diag.Span{Line: 1, Column: 7, EndLine: 4, EndColumn: 2}},
		{"nested", "{\"a\": [\n  {\"b\": [\n    2\n  ]\n  }\n]}", diag.Span{Line: 1, Column: 7, EndLine: 6, EndColumn: 2}},
		{"comment before the bracket", "{\"a\": [\n  1 # one\n  ]}", diag.Span{Line: 1, Column: 7, EndLine: 3, EndColumn: 4}},
		{"blank before the bracket", `{"a": [1, 2 ]}`, diag.Span{Line: 1, Column: 7, EndLine: 1, EndColumn: 14}},
		{"block sequence", "a:\n- 1\n- 2\n", diag.Span{Line: 2, Column: 1, EndLine: 3, EndColumn: 4}},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(c.text), &doc); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		value := doc.Content[0].Content[1]
		if got := newSource([]byte(c.text), 0).extent(value); got != c.want {
			t.Errorf("%s: extent = %+v, want %+v", c.name, got, c.want)
		}
	}
}
