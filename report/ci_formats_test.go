package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/webhooklint/webhooklint/diag"
)

// ciRun is the fixed run the CI format goldens are made from: the shared
// test diagnostics plus a linted file without findings.
func ciRun(ds []diag.Diagnostic) *Run {
	return &Run{
		Diagnostics: ds,
		FileNames:   []string{filepath.Join(testBase, "deploy", "webhook.yaml"), filepath.Join(testBase, "deploy", "clean.yaml")},
		Files:       2,
		ToolVersion: "0.1.0-test",
		ExitCode:    1,
	}
}

func formatCI(t *testing.T, f Formatter, run *Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Format(&buf, run); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCIFormatGoldens(t *testing.T) {
	for name, f := range map[string]Formatter{
		"junit/findings.xml":      JUnit{BaseDir: testBase},
		"checkstyle/findings.xml": Checkstyle{BaseDir: testBase},
		"gitlab/findings.json":    GitLab{BaseDir: testBase},
	} {
		checkGolden(t, name, formatCI(t, f, ciRun(testDiagnostics(testBase))))
	}
	clean := &Run{}
	for f, want := range map[Formatter]string{
		JUnit{BaseDir: testBase}:      xml.Header + `<testsuites name="webhooklint" tests="0" failures="0" errors="0"></testsuites>` + "\n",
		Checkstyle{BaseDir: testBase}: xml.Header + `<checkstyle version="4.3"></checkstyle>` + "\n",
		GitLab{BaseDir: testBase}:     "[]\n",
	} {
		if got := string(formatCI(t, f, clean)); got != want {
			t.Errorf("%T on nothing linted:\n%s\nwant\n%s", f, got, want)
		}
	}
}

// The formats are registered under the names --format and --output take.
func TestCIFormatsRegistered(t *testing.T) {
	for _, name := range []string{"junit", "gitlab", "checkstyle"} {
		if _, err := New(name, Options{}); err != nil {
			t.Error(err)
		}
	}
}

// xmllint validates against an XSD; CI installs it (hack/validate-reports.sh
// sets WEBHOOKLINT_REQUIRE_XMLLINT so the check cannot skip there).
func xmllintValidate(t *testing.T, xsd string, doc []byte) error {
	t.Helper()
	if _, err := exec.LookPath("xmllint"); err != nil {
		if os.Getenv("WEBHOOKLINT_REQUIRE_XMLLINT") != "" {
			t.Fatal("xmllint not found (Debian libxml2-utils)")
		}
		t.Skip("xmllint not found (Debian libxml2-utils)")
	}
	f := filepath.Join(t.TempDir(), "report.xml")
	if err := os.WriteFile(f, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join("testdata", xsd), f).CombinedOutput()
	if err != nil {
		return &xmllintError{string(out)}
	}
	return nil
}

type xmllintError struct{ out string }

func (e *xmllintError) Error() string { return e.out }

// reportFiles are extra reports to validate, written by the real binary
// (hack/validate-reports.sh): FORMAT=PATH entries separated by the path
// list separator.
func reportFiles(t *testing.T, format string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, entry := range filepath.SplitList(os.Getenv("REPORT_VALIDATE_FILES")) {
		f, path, ok := strings.Cut(entry, "=")
		if !ok || f != format {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[path] = b
	}
	return out
}

func TestXMLFormatsValidate(t *testing.T) {
	for _, tc := range []struct {
		format, xsd string
		f           Formatter
		broken      func(string) string
	}{
		{"junit", "junit-10.xsd", JUnit{BaseDir: testBase},
			func(s string) string { return strings.Replace(s, ` tests="`, ` testz="`, 1) }},
		{"checkstyle", "checkstyle.xsd", Checkstyle{BaseDir: testBase},
			func(s string) string { return strings.Replace(s, `severity="warning"`, `severity="warn"`, 1) }},
	} {
		t.Run(tc.format, func(t *testing.T) {
			docs := reportFiles(t, tc.format)
			docs["findings"] = formatCI(t, tc.f, ciRun(testDiagnostics(testBase)))
			docs["clean"] = formatCI(t, tc.f, &Run{})
			for name, doc := range docs {
				if err := xmllintValidate(t, tc.xsd, doc); err != nil {
					t.Errorf("%s: not valid against %s:\n%v", name, tc.xsd, err)
				}
			}
			// The check must be able to fail.
			if xmllintValidate(t, tc.xsd, []byte(tc.broken(string(docs["findings"])))) == nil {
				t.Errorf("%s accepted a broken %s report", tc.xsd, tc.format)
			}
		})
	}
}

func compileGitLabSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "gitlab-codequality.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("gitlab-codequality.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("gitlab-codequality.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGitLabSchemaAndFingerprints(t *testing.T) {
	schema := compileGitLabSchema(t)
	docs := reportFiles(t, "gitlab")
	docs["findings"] = formatCI(t, GitLab{BaseDir: testBase}, ciRun(testDiagnostics(testBase)))
	docs["clean"] = formatCI(t, GitLab{BaseDir: testBase}, &Run{})
	for name, doc := range docs {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: not a valid Code Quality report: %v", name, err)
		}
		var issues []gitlabIssue
		if err := json.Unmarshal(doc, &issues); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, is := range issues {
			if seen[is.Fingerprint] {
				t.Errorf("%s: fingerprint %s repeats: GitLab would drop an issue", name, is.Fingerprint)
			}
			seen[is.Fingerprint] = true
		}
	}
	bad := strings.Replace(string(docs["findings"]), `"severity": "minor"`, `"severity": "warning"`, 1)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if schema.Validate(inst) == nil {
		t.Error("the schema accepted severity \"warning\"")
	}
}

// A fingerprint survives lines moving; two findings that differ only in
// position get distinct ones.
func TestGitLabFingerprintStability(t *testing.T) {
	d := diag.Diagnostic{Span: diag.Span{File: testBase + "/a.yaml", Line: 3, Column: 5}, Severity: diag.Warning, Rule: "r", Message: "m", Path: "webhooks[0]", Object: testObject}
	moved := d
	moved.Line = 30
	fp := func(ds ...diag.Diagnostic) []string {
		var issues []gitlabIssue
		if err := json.Unmarshal(formatCI(t, GitLab{BaseDir: testBase}, &Run{Diagnostics: ds}), &issues); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, is := range issues {
			out = append(out, is.Fingerprint)
		}
		return out
	}
	if a, b := fp(d), fp(moved); a[0] != b[0] {
		t.Errorf("fingerprint changed with the line: %s, %s", a[0], b[0])
	}
	if both := fp(d, moved); len(both) != 2 || both[0] == both[1] {
		t.Errorf("same finding twice: fingerprints %v", both)
	}
}

// Messages may hold any text; the XML stays well-formed.
func TestXMLFormatsEscape(t *testing.T) {
	d := diag.Diagnostic{Span: diag.Span{File: testBase + "/a&b.yaml", Line: 1, Column: 1}, Severity: diag.Error, Rule: "r",
		Message: "<\"quoted\" & 'single'>\x01\ttab\nnew line ]]>"}
	for _, f := range []Formatter{JUnit{BaseDir: testBase}, Checkstyle{BaseDir: testBase}} {
		out := formatCI(t, f, &Run{Diagnostics: []diag.Diagnostic{d}})
		dec := xml.NewDecoder(bytes.NewReader(out))
		for {
			_, err := dec.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Errorf("%T: not well-formed: %v\n%s", f, err, out)
				}
				break
			}
		}
		if !bytes.Contains(out, []byte("a&amp;b.yaml")) {
			t.Errorf("%T: file name not escaped:\n%s", f, out)
		}
	}
}
