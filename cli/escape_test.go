package cli

import (
	"strings"
	"testing"
)

// Manifests carrying terminal escape sequences (a title change, a screen
// clear, a bidi override): written with YAML escapes, they reach the
// messages as values; written raw, the YAML parser rejects them and the
// snippet shows the line.
const (
	escapedValues = "apiVersion: admissionregistration.k8s.io/v1\n" +
		"kind: ValidatingWebhookConfiguration\n" +
		"metadata:\n" +
		"  name: \"evil\\e]0;pwned\\a\"\n" +
		"webhooks:\n" +
		"- name: \"check.example.com\\e[2J\"\n" +
		"  sideEffects: \"\\e[2J\\e]0;pwned\\aNone\\u202e\"\n" +
		"  admissionReviewVersions: [v1]\n" +
		"  clientConfig: {url: \"https://x.example.com/\"}\n"
	rawEscapes = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"\x1b]0;pwned\x07\x1b[2Jb\u202e\"\n"
)

// Text and markdown output never pass control characters from the input
// to the terminal; they show them escaped, as git and ls do.
func TestControlCharactersEscaped(t *testing.T) {
	for _, tc := range []struct{ input, want string }{
		{escapedValues, `check.example.com\x1b[2J`},
		{rawEscapes, `a: "\x1b]0;pwned\x07\x1b[2Jb\u202e"`},
	} {
		for _, format := range []string{"text", "markdown"} {
			code, out, errOut := run(t, tc.input, "--color", "never", "--format", format, "--stdin-filename", "bad\x1b[2J.yaml", "-")
			if code != ExitFindings {
				t.Fatalf("%s: exit %d: %s", format, code, errOut)
			}
			for i, r := range out {
				if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == '\u202e' {
					t.Fatalf("%s: control character %U at %d of:\n%s", format, r, i, out)
				}
			}
			if !strings.Contains(out, `bad\x1b[2J.yaml`) {
				t.Errorf("%s output does not show the file name escaped:\n%s", format, out)
			}
			if format == "text" || tc.input == escapedValues {
				if !strings.Contains(out, tc.want) {
					t.Errorf("%s output does not show %q:\n%s", format, tc.want, out)
				}
			}
		}
	}
}

// The caret under an escaped character points at its escape, as wide.
func TestEscapedSnippetMarker(t *testing.T) {
	_, out, _ := run(t, rawEscapes, "--color", "never", "-")
	want := `<stdin>:6:7: error: invalid YAML: control character U+001B is not allowed [yaml-syntax]
 6 |   a: "\x1b]0;pwned\x07\x1b[2Jb\u202e"
   |       ^~~~
`
	if !strings.HasPrefix(out, want) {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
