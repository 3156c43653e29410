package rules

import (
	"strings"
	"testing"
)

// runRule runs the named rule over one configuration and returns
// "path: message" lines.
func runRuleFindings(t *testing.T, name string, c *Config, in *Inventory, s *Settings) []string {
	t.Helper()
	var got []string
	NewPass(MustLookup(name), c, in, s, func(f Finding) {
		got = append(got, f.Severity.String()+" "+f.Path+": "+f.Message)
	}).Run()
	return got
}

func settingsForMinor(t *testing.T, minor int) *Settings {
	t.Helper()
	s := DefaultSettings()
	s.KubeVersion = KubeVersion{1, minor}
	return s
}

func expectFindings(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("finding %d:\n got  %s\n want substring %s", i, got[i], want[i])
		}
	}
}
