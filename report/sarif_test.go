package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/webhooklint/webhooklint/diag"
)

// The base directory is fixed so the golden log is the same on every
// machine; no file is read.
const testBase = "/work/project"

func sarifForTest(t *testing.T, ds []diag.Diagnostic, exit int) []byte {
	t.Helper()
	var buf bytes.Buffer
	s := SARIF{BaseDir: testBase, Rules: testRules}
	run := &Run{Diagnostics: ds, ToolVersion: "0.1.0-test", ExitCode: exit, Source: testSources.get}
	if err := s.Format(&buf, run); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSARIFGolden(t *testing.T) {
	checkGolden(t, "sarif/findings.sarif", sarifForTest(t, testDiagnostics(testBase), 1))
	checkGolden(t, "sarif/clean.sarif", sarifForTest(t, nil, 0))
}

// TestSARIFSchema validates logs against the vendored SARIF 2.1.0 schema
// (see testdata/sarif-schema-2.1.0.SOURCE.md), with format assertions on.
func TestSARIFSchema(t *testing.T) {
	schema := compileSARIFSchema(t)
	logs := map[string][]byte{
		"findings": sarifForTest(t, testDiagnostics(testBase), 1),
		"clean":    sarifForTest(t, nil, 0),
		// A run's count of sources not read, in the run's property bag.
		"unchecked": []byte(formatWith(t, "sarif", &Run{Diagnostics: testDiagnostics(testBase), Unchecked: 3})),
	}
	// hack/validate-sarif.sh passes the logs the real binary wrote.
	if files := os.Getenv("SARIF_VALIDATE_FILES"); files != "" {
		for _, f := range filepath.SplitList(files) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			logs[f] = b
		}
	}
	for name, log := range logs {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: not valid SARIF 2.1.0: %v", name, err)
		}
	}
}

// The schema must be able to fail: a log with a misspelled level and a
// region without startLine is rejected.
func TestSARIFSchemaRejectsInvalid(t *testing.T) {
	schema := compileSARIFSchema(t)
	bad := strings.Replace(string(sarifForTest(t, testDiagnostics(testBase), 1)), `"level": "warning"`, `"level": "warn"`, 1)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if schema.Validate(inst) == nil {
		t.Fatal("schema accepted level \"warn\"")
	}
}

func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSARIFContent(t *testing.T) {
	log := SARIF{BaseDir: testBase, Rules: testRules}.Log(&Run{Diagnostics: testDiagnostics(testBase), ExitCode: 1})
	run := log.Runs[0]
	if run.ColumnKind != "unicodeCodePoints" {
		t.Errorf("columnKind = %q", run.ColumnKind)
	}
	if got := run.OriginalURIBaseIDs["SRCROOT"].URI; got != "file:///work/project/" {
		t.Errorf("SRCROOT = %q", got)
	}
	// Rules publish metadata; an unregistered rule still gets a descriptor
	// so every ruleIndex points at its rule.
	byID := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		byID[r.ID] = i
	}
	tt := run.Tool.Driver.Rules[byID["timeout-too-long"]]
	if tt.HelpURI != "https://github.com/webhooklint/webhooklint/blob/main/docs/rules/timeout-too-long.md" ||
		!strings.Contains(tt.Help.Markdown, "## Why") || !strings.Contains(tt.Help.Text, "Why:") ||
		tt.DefaultConfiguration.Level != "warning" {
		t.Errorf("descriptor lacks metadata: %+v", tt)
	}
	if _, ok := byID["yaml-syntax"]; !ok {
		t.Error("no descriptor for unregistered rule yaml-syntax")
	}
	for i, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleIndex %d is %s, not %s", i, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID, r.RuleID)
		}
		for _, l := range r.Locations {
			if pl := l.PhysicalLocation; pl != nil && pl.Region != nil && pl.Region.StartLine < 1 {
				t.Errorf("result %d: region without startLine", i)
			}
		}
	}
	// Sorted by file name: the live object (no file) first, then
	// /elsewhere, then the files under the base.
	var order []string
	for _, r := range run.Results {
		order = append(order, r.Message.Text)
	}
	wantOrder := []string{"live object", "outside the base", "spans lines",
		"Unsupported value: \"Failé\": supported values: \"Fail\", \"Ignore\"\nsecond line",
		"timeoutSeconds 30 is above 10%, callers: wait", "file-level problem"}
	if strings.Join(order, "|") != strings.Join(wantOrder, "|") {
		t.Errorf("results order:\n%q\nwant\n%q", order, wantOrder)
	}
	if inv := run.Invocations[0]; !inv.ExecutionSuccessful || inv.ExitCode != 1 {
		t.Errorf("invocation = %+v", inv)
	}
	for _, r := range run.Results {
		if r.Message.Text == "spans lines" {
			pl := r.Locations[0].PhysicalLocation
			if pl.ArtifactLocation.URI != "deploy/multi%20line.yaml" || pl.ArtifactLocation.URIBaseID != "SRCROOT" {
				t.Errorf("artifact = %+v (want relative to SRCROOT, escaped)", pl.ArtifactLocation)
			}
			if r := pl.Region; r.StartLine != 3 || r.StartColumn != 5 || r.EndLine != 5 || r.EndColumn != 2 {
				t.Errorf("region = %+v", r)
			}
		}
		if r.Message.Text == "file-level problem" {
			if reg := r.Locations[0].PhysicalLocation.Region; *reg != (sarifRegion{StartLine: 1}) {
				t.Errorf("file-level finding without source: region %+v, want startLine 1 only", reg)
			}
		}
		if r.Message.Text == "outside the base" {
			al := r.Locations[0].PhysicalLocation.ArtifactLocation
			if al.URI != "file:///elsewhere/outside.yaml" || al.URIBaseID != "" {
				t.Errorf("file outside base: %+v", al)
			}
		}
		if r.Message.Text == "live object" {
			if r.Locations[0].PhysicalLocation != nil || r.Locations[0].LogicalLocations[0].FullyQualifiedName != "MutatingWebhookConfiguration/live/webhooks[2].failurePolicy" {
				t.Errorf("live object location: %+v", r.Locations[0])
			}
		}
	}
}

func TestSARIFWholeFileRegion(t *testing.T) {
	log := SARIF{BaseDir: testBase, Rules: testRules}.Log(&Run{Diagnostics: testDiagnostics(testBase), Source: testSources.get})
	for _, r := range log.Runs[0].Results {
		if r.Message.Text == "file-level problem" {
			// "kind: List\nitems: [ ü\n" spans lines 1-2, ending after "ü".
			want := sarifRegion{StartLine: 1, StartColumn: 1, EndLine: 2, EndColumn: 11}
			if reg := r.Locations[0].PhysicalLocation.Region; *reg != want {
				t.Errorf("whole-file region = %+v, want %+v", *reg, want)
			}
		}
	}
}

func TestSARIFNamesAndVersions(t *testing.T) {
	for in, want := range map[string]string{"timeout-too-long": "TimeoutTooLong", "schema": "", "yaml-syntax": "YamlSyntax"} {
		if got := friendlyName(in); got != want {
			t.Errorf("friendlyName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"v1.2.3": "1.2.3", "0.1.0": "0.1.0", "devel": "0.0.0-devel", "": ""} {
		if got := sarifVersion(in); got != want {
			t.Errorf("sarifVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSARIFExitCodes(t *testing.T) {
	for code, ok := range map[int]bool{0: true, 1: true, 2: false, 3: false} {
		inv := SARIF{Rules: testRules}.Log(&Run{ExitCode: code}).Runs[0].Invocations[0]
		if inv.ExecutionSuccessful != ok || inv.ExitCode != code {
			t.Errorf("exit %d: %+v", code, inv)
		}
	}
}

func TestSARIFIsJSONWithoutHTMLEscapes(t *testing.T) {
	out := sarifForTest(t, []diag.Diagnostic{{Span: diag.Span{File: testBase + "/a.yaml", Line: 1, Column: 1}, Severity: diag.Error,
		Rule: "invalid-failure-policy", Message: "a <b> & c"}}, 1)
	if !json.Valid(out) || !bytes.Contains(out, []byte(`"a <b> & c"`)) {
		t.Errorf("message escaped or invalid JSON:\n%s", out)
	}
}
