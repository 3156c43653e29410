package rules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Test support for the practice rules: decode YAML manifests without the
// manifest loader (rules must not depend on it), run one rule, and check
// the fixtures' `# want` comments document by document. Line numbers are
// the fixture harness's job (lint/fixtures_test.go); this only makes sure
// every wanted message is produced and nothing else is.

// decodeTestConfigs decodes every webhook configuration in a YAML stream;
// other documents are skipped.
func decodeTestConfigs(t testing.TB, src string) []*Config {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(src)))
	var out []*Config
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading YAML: %v", err)
		}
		if c := decodeTestConfig(t, doc); c != nil {
			out = append(out, c)
		}
	}
}

func decodeTestConfig(t testing.TB, doc []byte) *Config {
	t.Helper()
	js, err := utilyaml.ToJSON(doc)
	if err != nil {
		t.Fatalf("YAML: %v", err)
	}
	if len(bytes.TrimSpace(js)) == 0 || string(bytes.TrimSpace(js)) == "null" {
		return nil
	}
	var head struct{ APIVersion, Kind string }
	if err := json.Unmarshal(js, &head); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if !IsWebhookKind(head.APIVersion, head.Kind) {
		return nil
	}
	if head.Kind == Validating {
		var o admissionv1.ValidatingWebhookConfiguration
		if err := json.Unmarshal(js, &o); err != nil {
			t.Fatalf("decoding %s: %v", head.Kind, err)
		}
		return FromValidating(head.APIVersion, &o)
	}
	var o admissionv1.MutatingWebhookConfiguration
	if err := json.Unmarshal(js, &o); err != nil {
		t.Fatalf("decoding %s: %v", head.Kind, err)
	}
	return FromMutating(head.APIVersion, &o)
}

// runRuleOnConfigs runs the named rule over each configuration, with all of
// them as the input inventory, and returns the findings in order.
func runRuleOnConfigs(t testing.TB, name string, cs []*Config, s *Settings) [][]Finding {
	t.Helper()
	r := MustLookup(name)
	in := &Inventory{Configs: cs}
	out := make([][]Finding, len(cs))
	for i, c := range cs {
		NewPass(r, c, in, s, func(f Finding) { out[i] = append(out[i], f) }).Run()
	}
	return out
}

// runRuleOn is runRuleOnConfigs over a YAML stream, flattened.
func runRuleOn(t testing.TB, name, src string, s *Settings) []Finding {
	t.Helper()
	var all []Finding
	for _, fs := range runRuleOnConfigs(t, name, decodeTestConfigs(t, src), s) {
		all = append(all, fs...)
	}
	return all
}

// fixedNow is the clock of every practice-rule test.
var fixedNow = time.Date(2026, time.June, 1, 12, 0, 0, 0, time.UTC)

// testSettings are default settings with a fixed clock.
func testSettings() *Settings {
	s := DefaultSettings()
	s.Now = fixedNow
	return s
}

var (
	wantComment = regexp.MustCompile(`#\s*want\s+(.*)$`)
	fixtureHead = regexp.MustCompile(`^#\s*fixture:\s*(\{.*\})\s*$`)
)

// parseWants returns the regexps of one line's `# want "re"...` comment.
func parseWants(t testing.TB, line string) []*regexp.Regexp {
	m := wantComment.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	var out []*regexp.Regexp
	rest := strings.TrimSpace(m[1])
	for rest != "" {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			t.Fatalf("bad want comment %q: %v", line, err)
		}
		s, _ := strconv.Unquote(q)
		out = append(out, regexp.MustCompile(s))
		rest = strings.TrimSpace(rest[len(q):])
	}
	return out
}

// fixtureSettings reads the optional first-line header.
func fixtureSettings(t testing.TB, src string) *Settings {
	s := testSettings()
	first, _, _ := strings.Cut(src, "\n")
	m := fixtureHead.FindStringSubmatch(first)
	if m == nil {
		return s
	}
	var h struct {
		KubeVersion string                    `json:"kubeVersion"`
		Options     map[string]map[string]any `json:"options"`
	}
	if err := json.Unmarshal([]byte(m[1]), &h); err != nil {
		t.Fatalf("fixture header: %v", err)
	}
	if h.KubeVersion != "" {
		var v KubeVersion
		if _, err := fmtSscanVersion(h.KubeVersion, &v); err != nil {
			t.Fatalf("fixture kubeVersion %q: %v", h.KubeVersion, err)
		}
		s.KubeVersion = v
	}
	s.Options = h.Options
	return s
}

func fmtSscanVersion(s string, v *KubeVersion) (int, error) {
	maj, min, ok := strings.Cut(s, ".")
	if !ok {
		return 0, errors.New("want MAJOR.MINOR")
	}
	var err error
	if v.Major, err = strconv.Atoi(maj); err != nil {
		return 0, err
	}
	if v.Minor, err = strconv.Atoi(min); err != nil {
		return 0, err
	}
	return 2, nil
}

// checkRuleFixtures runs rule over testdata/rules/<rule>/*.yaml and checks
// that, document by document, every finding is wanted and every want is
// found. It also insists on both a finding and a silent document, so a
// fixture directory cannot pass by accident.
func checkRuleFixtures(t *testing.T, rule string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "rules", rule, "*.yaml"))
	if len(files) == 0 {
		t.Fatalf("no fixtures for %s", rule)
	}
	var sawFinding, sawSilent bool
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		s := fixtureSettings(t, src)
		docs := splitDocs(src)
		var cs []*Config
		var docWants [][]*regexp.Regexp
		for _, d := range docs {
			c := decodeTestConfig(t, []byte(d))
			if c == nil {
				continue
			}
			cs = append(cs, c)
			var wants []*regexp.Regexp
			for _, line := range strings.Split(d, "\n") {
				wants = append(wants, parseWants(t, line)...)
			}
			docWants = append(docWants, wants)
		}
		results := runRuleOnConfigs(t, rule, cs, s)
		for i, fs := range results {
			if len(fs) == 0 {
				sawSilent = true
			} else {
				sawFinding = true
			}
			wants := docWants[i]
			used := make([]bool, len(wants))
			for _, f := range fs {
				text := f.Message + " [" + f.Rule + "]"
				ok := false
				for j, w := range wants {
					if !used[j] && w.MatchString(text) {
						used[j], ok = true, true
						break
					}
				}
				if !ok {
					t.Errorf("%s: %s: unexpected finding at %s: %s", file, cs[i].Meta.Name, f.Path, text)
				}
			}
			for j, w := range wants {
				if !used[j] {
					t.Errorf("%s: %s: no finding matched want %q", file, cs[i].Meta.Name, w)
				}
			}
		}
	}
	if !sawFinding || !sawSilent {
		t.Errorf("%s fixtures need both a flagged and a silent configuration (flagged %v, silent %v)", rule, sawFinding, sawSilent)
	}
}

// splitDocs splits a YAML stream on document separators, keeping text.
func splitDocs(src string) []string {
	var docs []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(src, "\n") {
		if strings.TrimRight(line, "\r\n") == "---" {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return append(docs, cur.String())
}

func regexpMatch(re, s string) (bool, error) { return regexp.MatchString(re, s) }
