package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

func TestGitHubGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := (GitHub{BaseDir: testBase}).Format(&buf, &Run{Diagnostics: testDiagnostics(testBase)}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "github/findings.txt", buf.Bytes())
}

func TestGitHubCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    diag.Diagnostic
		want string
	}{
		{
			name: "one line with end column",
			d: diag.Diagnostic{Span: diag.Span{File: testBase + "/a.yaml", Line: 4, Column: 3, EndLine: 4, EndColumn: 9},
				Severity: diag.Error, Rule: "r", Message: "m"},
			want: "::error file=a.yaml,line=4,col=3,endColumn=9,title=webhooklint%3A r::m [r]\n",
		},
		{
			name: "several lines: no end column",
			d: diag.Diagnostic{Span: diag.Span{File: testBase + "/a.yaml", Line: 4, Column: 3, EndLine: 6, EndColumn: 2},
				Severity: diag.Warning, Rule: "r", Message: "m"},
			want: "::warning file=a.yaml,line=4,endLine=6,col=3,title=webhooklint%3A r::m [r]\n",
		},
		{
			name: "info is a notice; escapes in properties and data",
			d: diag.Diagnostic{Span: diag.Span{File: testBase + "/dir,x/b:c%.yaml", Line: 1, Column: 1},
				Severity: diag.Info, Rule: "r", Message: "100% sure:\r\nyes, really"},
			want: "::notice file=dir%2Cx/b%3Ac%25.yaml,line=1,col=1,title=webhooklint%3A r::100%25 sure:%0D%0Ayes, really [r]\n",
		},
		{
			name: "no file: object and field name the place",
			d: diag.Diagnostic{Severity: diag.Error, Rule: "r", Message: "m", Path: "webhooks[0].name",
				Object: &diag.Object{Kind: "MutatingWebhookConfiguration", Name: "x"}, Webhook: "w.example.com"},
			want: "::error title=webhooklint%3A r::m (MutatingWebhookConfiguration \"x\", webhook \"w.example.com\", field webhooks[0].name) [r]\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := (GitHub{BaseDir: testBase}).Format(&buf, &Run{Diagnostics: []diag.Diagnostic{tc.d}}); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("got  %q\nwant %q", buf.String(), tc.want)
			}
		})
	}
}

// Data escaping must replace '%' first, or the escapes themselves would
// be escaped again.
func TestGitHubEscapeOrder(t *testing.T) {
	if got := escapeData("%0A\n"); got != "%250A%0A" {
		t.Errorf("escapeData = %q", got)
	}
	if got := escapeProperty("a:b,c%"); got != "a%3Ab%2Cc%25" {
		t.Errorf("escapeProperty = %q", got)
	}
	if strings.Contains(escapeData("a:b,c"), "%3A") {
		t.Error("data escaping must leave ':' and ',' alone")
	}
}
