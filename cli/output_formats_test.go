package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// The CI formats work as --format and as --output FORMAT=PATH from the
// same run, and list the clean file too.
func TestCIFormatsThroughOutput(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "bad.yaml"), badWebhook)
	testkit.WriteFile(t, filepath.Join(dir, "clean.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n")
	junit, gitlab, checkstyle := filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.json"), filepath.Join(dir, "cs.xml")
	code, out, errOut := runCLI(t, "--format", "junit", "--output", "gitlab="+gitlab, "--output", "junit="+junit,
		"--output", "checkstyle="+checkstyle, filepath.Join(dir, "bad.yaml"), filepath.Join(dir, "clean.yaml"))
	if code != ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	written, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if string(written) != out {
		t.Errorf("--output junit differs from --format junit")
	}
	var suites struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Failures int    `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(written, &suites); err != nil {
		t.Fatal(err)
	}
	if len(suites.Suites) != 2 || !strings.HasSuffix(suites.Suites[0].Name, "bad.yaml") || suites.Suites[0].Failures < 1 ||
		!strings.HasSuffix(suites.Suites[1].Name, "clean.yaml") || suites.Suites[1].Failures != 0 {
		t.Errorf("suites %+v, want bad.yaml failing and clean.yaml passing", suites.Suites)
	}
	var issues []struct {
		CheckName string `json:"check_name"`
	}
	b, err := os.ReadFile(gitlab)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &issues); err != nil || len(issues) == 0 || issues[0].CheckName != "schema" {
		t.Errorf("gitlab report: %v %s", err, b)
	}
	if b, err := os.ReadFile(checkstyle); err != nil || !strings.Contains(string(b), `source="webhooklint.schema"`) {
		t.Errorf("checkstyle report: %v %s", err, b)
	}
}
