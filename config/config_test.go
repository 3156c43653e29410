package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

var fakeRules = []*rules.Rule{
	{Name: "timeout-too-long", Summary: "timeoutSeconds leaves callers waiting", Severity: diag.Warning,
		Category: rules.Practice, Since: "0.1.0",
		Options: []rules.Option{
			{Name: "maxSeconds", Doc: "Longest acceptable timeout, in seconds.", Default: 10},
			{Name: "exempt", Doc: "Webhook names never reported.", Default: []string{}},
			{Name: "strict", Doc: "Also report the default.", Default: false},
			{Name: "unit", Doc: "Unit word.", Default: "s"},
		}},
	{Name: "missing-side-effects", Summary: "sideEffects is required", Severity: diag.Error,
		Category: rules.Server, Since: "0.1.0"},
}

func useFakeRules(t *testing.T) {
	t.Helper()
	oldAll, oldLookup := allRules, lookupRule
	allRules = func() []*rules.Rule { return fakeRules }
	lookupRule = func(name string) (*rules.Rule, bool) {
		for _, r := range fakeRules {
			if r.Name == name {
				return r, true
			}
		}
		return nil, false
	}
	t.Cleanup(func() { allRules, lookupRule = oldAll, oldLookup })
}

func TestParse(t *testing.T) {
	useFakeRules(t)
	c, err := Parse("cfg/.webhooklint.yaml", []byte(`
kubeVersion: 1.30
provider: gke
ignore: [vendor, "charts/*/templates/**"]
rules:
  timeout-too-long:
    severity: error
    options:
      maxSeconds: 5
      exempt: [a.example.com]
      strict: true
      unit: ms
  missing-side-effects: false
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.KubeVersion != (rules.KubeVersion{Major: 1, Minor: 30}) {
		t.Errorf("kubeVersion = %v", c.KubeVersion)
	}
	if c.Provider != rules.GKE {
		t.Errorf("provider = %q", c.Provider)
	}
	if c.Enabled("missing-side-effects") || !c.Enabled("timeout-too-long") || !c.Enabled("unmentioned") {
		t.Error("enabled wrong")
	}
	if got := c.Severities(); !reflect.DeepEqual(got, map[string]diag.Severity{"timeout-too-long": diag.Error}) {
		t.Errorf("severities = %v", got)
	}
	wantOpts := map[string]map[string]any{"timeout-too-long": {"maxSeconds": 5, "exempt": []string{"a.example.com"}, "strict": true, "unit": "ms"}}
	if got := c.Options(); !reflect.DeepEqual(got, wantOpts) {
		t.Errorf("options = %#v", got)
	}
	if c.Dir != "cfg" || !reflect.DeepEqual(c.Ignore, []string{"vendor", "charts/*/templates/**"}) {
		t.Errorf("dir %q ignore %q", c.Dir, c.Ignore)
	}
}

func TestParseErrors(t *testing.T) {
	useFakeRules(t)
	for _, tc := range []struct{ in, want string }{
		{"kubeversion: 1.30\n", `f.yaml:1:1: unknown key "kubeversion" (want kubeVersion, provider, ignore, inlineSuppressions, suppressions, charts, units or rules)`},
		{"kubeVersion: 2.1\n", `f.yaml:1:14: kubeVersion: "2.1": want 1.16 or newer, e.g. 1.37`},
		{"kubeVersion: [1]\n", `f.yaml:1:14: kubeVersion must be a string, not a list`},
		{"provider: gcp\n", `f.yaml:1:11: provider: unknown provider "gcp" (want generic, gke, eks, aks, openshift)`},
		{"provider: 3\n", `f.yaml:1:11: provider must be a string, not int 3`},
		{"rules:\n  timeout-to-long: {}\n", `f.yaml:2:3: unknown rule "timeout-to-long" (did you mean "timeout-too-long"?)`},
		{"rules:\n  timeout-too-long:\n    enable: false\n", `f.yaml:3:5: unknown key "enable" in rules.timeout-too-long (want enabled, severity or options)`},
		{"rules:\n  timeout-too-long:\n    severity: fatal\n", `f.yaml:3:15: severity: unknown severity "fatal" (want error, warning or info)`},
		{"rules:\n  timeout-too-long:\n    options:\n      maxSecond: 3\n", `f.yaml:4:7: rule timeout-too-long has no option "maxSecond" (did you mean "maxSeconds"?)`},
		{"rules:\n  timeout-too-long:\n    options:\n      maxSeconds: \"3\"\n", `f.yaml:4:19: timeout-too-long.maxSeconds must be an integer, not the string "3"`},
		{"rules:\n  timeout-too-long:\n    options:\n      exempt: a\n", `f.yaml:4:15: timeout-too-long.exempt must be a list, not the string "a"`},
		{"rules:\n  timeout-too-long:\n    enabled: yes\n", `f.yaml:3:14: enabled must be true or false, not the string "yes"`},
		{"rules:\n  timeout-too-long: {}\n  timeout-too-long: {}\n", `f.yaml:3:3: duplicate key "timeout-too-long" in rules`},
		{"ignore: /abs\n", `f.yaml:1:9: ignore must be a list, not the string "/abs"`},
		{"ignore: [/abs, ../up, 'a**b', '']\n", "f.yaml:1:10: ignore: \"/abs\": globs are relative to the configuration file's folder and stay below it\n" +
			"f.yaml:1:16: ignore: \"../up\": globs are relative to the configuration file's folder and stay below it\n" +
			"f.yaml:1:23: ignore: \"a**b\": ** must be a whole path segment\n" +
			"f.yaml:1:31: ignore: empty glob"},
		{"rules: [a]\n", `f.yaml:1:8: rules must be a mapping, not a list`},
		{"a: [\n", `f.yaml:1: not valid YAML: did not find expected node content`},
		{"rules: {}\n---\nrules: {}\n", `f.yaml:2:1: a configuration file holds one YAML document`},
		{"charts:\n- values: [v.yaml]\n", `f.yaml:2:3: a charts entry needs a path`},
		{"charts:\n- path: c\n  valuse: []\n", `f.yaml:3:3: unknown key "valuse" in a charts entry (want path, values, set, setString, releaseName or namespace)`},
		{"charts:\n- path: c\n  set: ['a.b']\n", `f.yaml:3:9: charts set: key "b" has no value`},
	} {
		_, err := Parse("f.yaml", []byte(tc.in))
		if err == nil {
			t.Errorf("%q: no error, want %s", tc.in, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%q:\n got  %s\n want %s", tc.in, err, tc.want)
		}
	}
}

func TestParseEmpty(t *testing.T) {
	useFakeRules(t)
	for _, in := range []string{"", "# only a comment\n", "---\n", "~\n"} {
		c, err := Parse("f.yaml", []byte(in))
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if len(c.Rules) != 0 || c.KubeVersion != (rules.KubeVersion{}) || len(c.Ignore) != 0 {
			t.Errorf("%q: not the default: %+v", in, c)
		}
	}
}

// The generated default file loads, changes nothing, and is valid
// against the generated schema.
func TestDefaultFileRoundTrip(t *testing.T) {
	useFakeRules(t)
	text := DefaultFile()
	c, err := Parse("f.yaml", []byte(text))
	if err != nil {
		t.Fatalf("default file does not load: %v\n%s", err, text)
	}
	if c.KubeVersion != rules.DefaultKubeVersion {
		t.Errorf("kubeVersion %v", c.KubeVersion)
	}
	for _, r := range fakeRules {
		rc := c.Rules[r.Name]
		if rc.Enabled == nil || !*rc.Enabled || rc.Severity == nil || *rc.Severity != r.Severity {
			t.Errorf("%s: %+v", r.Name, rc)
		}
		for _, o := range r.Options {
			if !reflect.DeepEqual(rc.Options[o.Name], o.Default) {
				t.Errorf("%s.%s = %#v, want %#v", r.Name, o.Name, rc.Options[o.Name], o.Default)
			}
		}
	}
	if !strings.Contains(text, "# Longest acceptable timeout, in seconds.\n      maxSeconds: 10\n") {
		t.Errorf("option not documented:\n%s", text)
	}
	if err := validateAgainstSchema(t, text); err != nil {
		t.Errorf("default file fails the schema: %v", err)
	}
}

// The schema and the parser agree on what is wrong.
func TestSchemaRejectsWhatParseRejects(t *testing.T) {
	useFakeRules(t)
	for _, in := range []string{
		"kubeversion: 1.30\n",
		"rules:\n  timeout-to-long: {}\n",
		"rules:\n  timeout-too-long:\n    enable: false\n",
		"rules:\n  timeout-too-long:\n    severity: fatal\n",
		"rules:\n  timeout-too-long:\n    options:\n      maxSecond: 3\n",
		"rules:\n  timeout-too-long:\n    options:\n      maxSeconds: \"3\"\n",
		"rules:\n  missing-side-effects:\n    options:\n      x: 1\n",
		"kubeVersion: \"2\"\n",
		"provider: gcp\n",
	} {
		if _, err := Parse("f.yaml", []byte(in)); err == nil {
			t.Errorf("%q: Parse accepted it", in)
		}
		if validateAgainstSchema(t, in) == nil {
			t.Errorf("%q: the schema accepted it", in)
		}
	}
}

func validateAgainstSchema(t *testing.T, yamlText string) error {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(yamlText), &v); err != nil {
		t.Fatal(err)
	}
	// Round-trip through JSON so the instance has JSON types.
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(JSONSchema())))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("config.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(inst)
}

// docs/config.schema.json must be what the registry generates today.
func TestPublishedSchemaIsCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", SchemaPath))
	if err != nil {
		t.Fatalf("%v (run go generate ./internal/ruledocs)", err)
	}
	if string(got) != string(JSONSchema()) {
		t.Errorf("%s is stale: run go generate ./internal/ruledocs", SchemaPath)
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "a", "b", "c"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "x", "y"), 0o755))
	must(os.WriteFile(filepath.Join(root, "a", FileName), nil, 0o644))
	must(os.WriteFile(filepath.Join(root, "x", "y", FileNameAlt), nil, 0o644))
	must(os.WriteFile(filepath.Join(root, "a", "b", "c", "w.yaml"), nil, 0o644))

	got, err := Find([]string{filepath.Join(root, "a", "b", "c", "w.yaml"), filepath.Join(root, "a", "b")})
	if err != nil || got != filepath.Join(root, "a", FileName) {
		t.Errorf("Find below a = %q, %v", got, err)
	}
	got, err = Find([]string{filepath.Join(root, "x", "y")})
	if err != nil || got != filepath.Join(root, "x", "y", FileNameAlt) {
		t.Errorf("Find x/y = %q, %v", got, err)
	}
	if _, err := Find([]string{filepath.Join(root, "a"), filepath.Join(root, "x", "y")}); err == nil ||
		!strings.Contains(err.Error(), "different configuration files") {
		t.Errorf("two configurations: %v", err)
	}
	must(os.WriteFile(filepath.Join(root, "a", FileNameAlt), nil, 0o644))
	if _, err := Find([]string{filepath.Join(root, "a", "b")}); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("both names: %v", err)
	}
}

func TestIgnored(t *testing.T) {
	c := &Config{Dir: "/repo", Ignore: []string{"vendor", "charts/*/templates/**", "**/*.tmpl.yaml", "one.yaml"}}
	for file, want := range map[string]bool{
		"/repo/vendor/x/w.yaml":               true,
		"/repo/vendored/w.yaml":               false,
		"/repo/charts/app/templates/w.yaml":   true,
		"/repo/charts/app/templates/a/b.yaml": true,
		"/repo/charts/app/values.yaml":        false,
		"/repo/deep/er/w.tmpl.yaml":           true,
		"/repo/w.tmpl.yaml":                   true,
		"/repo/one.yaml":                      true,
		"/repo/sub/one.yaml":                  false,
		"/elsewhere/vendor/w.yaml":            false,
		"-":                                   false,
	} {
		if got := c.Ignored(file); got != want {
			t.Errorf("Ignored(%s) = %v, want %v", file, got, want)
		}
	}
}

// With the real registry: the default file loads, matches the published
// schema, and every declared option has a configurable type.
func TestDefaultFileWithRealRules(t *testing.T) {
	if len(rules.All()) == 0 {
		t.Fatal("no rules registered")
	}
	text := DefaultFile()
	if _, err := Parse(".webhooklint.yaml", []byte(text)); err != nil {
		t.Fatalf("default file does not load: %v", err)
	}
	if err := validateAgainstSchema(t, text); err != nil {
		t.Errorf("default file fails the schema: %v", err)
	}
	for _, r := range rules.All() {
		for _, o := range r.Options {
			switch o.Default.(type) {
			case int, bool, string, []string:
			default:
				t.Errorf("%s option %s: default of type %T cannot be configured", r.Name, o.Name, o.Default)
			}
		}
	}
}

// charts: entries resolve their paths against the configuration's folder
// and keep their Helm settings.
func TestParseCharts(t *testing.T) {
	useFakeRules(t)
	c, err := Parse(filepath.Join("repo", FileName), []byte(`charts:
- path: deploy/chart
  values: [deploy/chart/values-prod.yaml]
  set: ["webhook.failurePolicy=Fail,replicas=2"]
  setString: ["image.tag=1.0"]
  releaseName: app
  namespace: app-system
- path: deploy/chart
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Chart{{
		Path: filepath.Join("repo", "deploy", "chart"), Values: []string{filepath.Join("repo", "deploy", "chart", "values-prod.yaml")},
		Set: []string{"webhook.failurePolicy=Fail,replicas=2"}, SetString: []string{"image.tag=1.0"},
		ReleaseName: "app", Namespace: "app-system",
	}, {Path: filepath.Join("repo", "deploy", "chart")}}
	if !reflect.DeepEqual(c.Charts, want) {
		t.Errorf("charts = %#v", c.Charts)
	}
}

// A syntax error is reported on the line the manifest loader would name
// for the same text: the parser's lines are 0-based, the scanner's not.
func TestSyntaxErrorLine(t *testing.T) {
	cases := []struct {
		text string
		line int
	}{
		{"a: 1\nb: [1, 2\nc: 3\n", 2},
		{"a:\n  - b\n  c: 1\n", 2},
		{"a: 1\n- b\n", 2},
		{"a: 1\nb: : :\n", 2},
		{"a: 1\n\tb: 2\n", 2},
		{"rules:\n  foo: [\n", 2},
	}
	for _, c := range cases {
		_, err := Parse("c.yaml", []byte(c.text))
		var e *Error
		if !errors.As(err, &e) || e.Line != c.line {
			t.Errorf("%q: got %v, want line %d", c.text, err, c.line)
		}
	}
}

func TestParseUnits(t *testing.T) {
	c, err := Parse("cfg/.webhooklint.yaml", []byte("units:\n  entries: [config/default]\n  folders:\n  - {path: deploy, recursive: true}\n  - {path: examples, split: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Units{
		Entries: []string{filepath.Join("cfg", "config", "default")},
		Folders: []FolderUnits{{Path: filepath.Join("cfg", "deploy"), Recursive: true}, {Path: filepath.Join("cfg", "examples"), Split: true}},
	}
	if !reflect.DeepEqual(c.Units, want) {
		t.Errorf("units = %#v", c.Units)
	}
	for _, bad := range []string{
		"units:\n  folders:\n  - {recursive: true}\n",
		"units:\n  folders:\n  - {path: x, recursive: true, split: true}\n",
		"units:\n  entry: [x]\n",
		"units:\n  folders:\n  - {path: x, deep: true}\n",
	} {
		if _, err := Parse("c.yaml", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A path the file names that does not exist is an error at the path, so a
// typo does not silently leave a unit or chart to the defaults; paths that
// exist, files and folders, are accepted.
func TestLoadChecksNamedPaths(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"config/default", "chart", "clusters"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{"chart/values-prod.yaml", "clusters/prod.yaml"} {
		if err := os.WriteFile(filepath.Join(root, file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(root, FileName)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("units:\n  entries: [config/default]\n  folders:\n  - {path: clusters}\n  gitops:\n    entries: [clusters/prod.yaml]\n" +
		"charts:\n- path: chart\n  values: [chart/values-prod.yaml]\n")
	if _, err := Load(file); err != nil {
		t.Fatalf("every path exists: %v", err)
	}
	write("units:\n  entries: [config/defaults]\n  folders:\n  - {path: cluster}\n  gitops:\n    entries: [clusters/prd.yaml]\n" +
		"charts:\n- path: charts\n  values: [chart/values-prd.yaml]\n")
	_, err := Load(file)
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Load = %v, want Errors", err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, fmt.Sprintf("%d:%d %s", e.Line, e.Column, e.Msg))
	}
	want := []string{
		`2:13 units entries entry "config/defaults" does not exist; fix the path or remove it`,
		`4:12 units folders path "cluster" does not exist; fix the path or remove it`,
		`6:15 units gitops entries entry "clusters/prd.yaml" does not exist; fix the path or remove it`,
		`8:9 charts path "charts" does not exist; fix the path or remove it`,
		`9:12 charts values entry "chart/values-prd.yaml" does not exist; fix the path or remove it`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
