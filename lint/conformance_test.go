package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// The conformance test compares webhooklint, document by document, with
// what the real kube-apiserver answered to a dry-run create of the same
// document (testdata/conformance/verdicts, recorded by
// hack/record-conformance.sh with fieldValidation=Strict).
//
// What is compared, by the server's answer:
//
//   - 201 (accepted): no Error from a Server-category or loader rule, and
//     our W1/W2 warnings (excluded-resources, object-name) are exactly the
//     server's warnings.
//   - 422 (validation failed): the field paths of our Errors from
//     Server-category and loader rules are exactly the set of the server's
//     causes[].field, except that for A45/A46 (a missing service name or
//     namespace) the server names the other field and we name the right one.
//   - 400 (the body did not decode; validation never ran). The server gives
//     no causes, only a message, and we map it to what our loader (rule
//     schema) reports:
//     "strict decoding error: unknown field "P", ..." -> a schema Error at
//     each path P (exactly this set of unknown-field paths);
//     "yaml: unmarshal errors: line N: key "K" already set in map" -> a
//     schema Error on line N of the document as sent (exactly this set of
//     lines); "json: cannot unmarshal X into Go struct field T.a.b of type Y"
//     -> a schema Error whose path without list indices starts with a.b (the
//     server stops at the first such error, so ours may be more);
//     "illegal base64 data" -> a schema Error on a clientConfig.caBundle.
//     Validation rules are not compared on these documents: the server never
//     ran its validation.
//   - NoKindMatch (v1beta1, never served for these kinds since 1.22): the
//     unserved-api-version error (kubectl apply fails); the content is linted with v1beta1
//     defaults and is not compared.
//
// Documents where webhooklint is known to differ from the server are listed
// in knownDivergences with the reason; the test checks that they still
// differ, so fixing one means deleting its entry.

const corpusDir = "../testdata/conformance"

var knownDivergences = map[string]string{}

// verdict is one line the oracle's verdict tool printed. The real-world
// corpus recordings also name the file, List item and object.
type verdict struct {
	File       string   `json:"file"`
	Doc        int      `json:"doc"`
	Item       *int     `json:"item"`
	Name       string   `json:"name"`
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Accepted   bool     `json:"accepted"`
	Code       int      `json:"code"`
	Reason     string   `json:"reason"`
	Stage      string   `json:"stage"`
	Message    string   `json:"message"`
	Warnings   []string `json:"warnings"`
	Causes     []struct {
		Field   string `json:"field"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"causes"`
}

func TestConformanceWithAPIServer(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s", corpusDir)
	}
	total, divergent := 0, 0
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		verdicts := testkit.ReadJSONLines[verdict](t, filepath.Join(corpusDir, "verdicts", name+".jsonl"))
		starts := documentStarts(data)
		if len(starts) != len(verdicts) {
			t.Fatalf("%s: %d documents but %d verdicts; re-record with hack/record-conformance.sh", name, len(starts), len(verdicts))
		}
		f := manifest.Parse(path, data)
		res := LintUnit(Unit{Files: []*manifest.File{f}}, Options{Settings: corpusSettings(t, data), Jobs: 1})
		byDoc := make([][]diag.Diagnostic, len(starts))
		for _, d := range res.Diagnostics {
			k := docAt(starts, d.Line)
			byDoc[k] = append(byDoc[k], d)
		}
		for i, v := range verdicts {
			if v.Doc != i {
				t.Fatalf("%s: verdict %d is for doc %d", name, i, v.Doc)
			}
			key := fmt.Sprintf("%s/%d", name, i)
			problems := compareDoc(v, byDoc[i], starts[i])
			total++
			if reason, known := knownDivergences[key]; known {
				divergent++
				if len(problems) == 0 {
					t.Errorf("%s: listed as a known divergence (%s) but now agrees with the server; remove it from knownDivergences", key, reason)
				}
				continue
			}
			for _, p := range problems {
				t.Errorf("%s (line %d): %s", key, starts[i], p)
			}
		}
	}
	if total < 300 {
		t.Errorf("the corpus has %d documents; it should have at least 300", total)
	}
	t.Logf("%d documents compared with the API server's verdicts, %d known divergences", total, divergent)
}

// compareDoc returns what differs between our diagnostics for one
// document and the server's verdict; start is the document's first line.
func compareDoc(v verdict, ds []diag.Diagnostic, start int) []string {
	var errs []diag.Diagnostic
	var serverWarns []string
	hasRemoved := false
	for _, d := range ds {
		switch {
		case d.Rule == rules.UnservedAPIVersionRule:
			// An error, for v1beta1 as for versions never served: from
			// 1.22 on the apply fails ("no matches for kind").
			hasRemoved = d.Severity == diag.Error
		case d.Rule == rules.PlaceholderRule:
			// Whatever severity the user gives it, a placeholder finding
			// stands for the server's rejection of the value it names.
			errs = append(errs, d)
		case d.Severity == diag.Error && judgedRule(d.Rule):
			errs = append(errs, d)
		case d.Severity == diag.Warning && serverWarningRule(d.Rule):
			serverWarns = append(serverWarns, serverWarningText(d.Rule, d.Path, d.Message))
		}
	}
	var problems []string
	switch {
	case v.Stage == "client" && v.Reason == "NoKindMatch":
		if !hasRemoved {
			problems = append(problems, fmt.Sprintf("the server does not serve %s %s, but there is no %s error", v.APIVersion, v.Kind, rules.UnservedAPIVersionRule))
		}
	case v.Code == 201:
		for _, d := range errs {
			problems = append(problems, fmt.Sprintf("server accepts, but %s reports %q at %s", d.Rule, d.Message, d.Path))
		}
		if !sameSet(serverWarns, v.Warnings) {
			problems = append(problems, fmt.Sprintf("warnings %q, server warned %q", serverWarns, v.Warnings))
		}
	case v.Code == 422:
		var want []string
		for _, c := range v.Causes {
			field := swapServiceField(c.Field, c.Reason)
			if _, ok := rules.Lookup("match-conditions"); !ok && strings.Contains(field, ".matchConditions") {
				continue // the match-conditions rule is not in this build yet
			}
			want = append(want, field)
		}
		var got []string
		for _, d := range errs {
			got = append(got, d.Path)
		}
		if !sameSet(got, want) {
			problems = append(problems, fmt.Sprintf("error paths %q, server %q", uniq(got), uniq(want)))
		}
	case v.Code == 400:
		problems = append(problems, compareDecodeError(v.Message, errs, start)...)
	default:
		problems = append(problems, fmt.Sprintf("verdict not understood (stage %s, code %d, reason %s)", v.Stage, v.Code, v.Reason))
	}
	return problems
}

// serverWarningRule: the rules whose warnings are the server's (W1, W2).
func serverWarningRule(name string) bool {
	switch name {
	case "excluded-resources", "object-name", "admission-policy", "admission-policy-binding":
		return true
	}
	return false
}

// judgedRule: the rules whose errors claim "the API server rejects this".
func judgedRule(name string) bool {
	if name == rules.YAMLSyntaxRule || name == rules.SchemaRule {
		return true
	}
	r, ok := rules.Lookup(name)
	return ok && r.Category == rules.Server
}

// swapServiceField maps the server's A45/A46 field to the field that is
// really missing (the server passes name and namespace swapped).
func swapServiceField(field, reason string) string {
	if reason != "FieldValueRequired" {
		return field
	}
	// Webhooks' clientConfig, and CRD conversion's webhookClientConfig.
	for _, cc := range []string{".clientConfig", ".webhookClientConfig"} {
		if p, ok := strings.CutSuffix(field, cc+".service.namespace"); ok {
			return p + cc + ".service.name"
		}
		if p, ok := strings.CutSuffix(field, cc+".service.name"); ok {
			return p + cc + ".service.namespace"
		}
	}
	return field
}

var (
	unknownField = regexp.MustCompile(`unknown field "([^"]*)"`)
	duplicateKey = regexp.MustCompile(`line (\d+): key "[^"]*" already set in map`)
	typeError    = regexp.MustCompile(`json: cannot unmarshal .* into Go struct field [A-Za-z0-9]+\.(\S+) of type`)
	listIndex    = regexp.MustCompile(`\[[^\]]*\]`)
)

func compareDecodeError(msg string, errs []diag.Diagnostic, start int) []string {
	var schema []diag.Diagnostic
	for _, d := range errs {
		if d.Rule == rules.SchemaRule || d.Rule == rules.PlaceholderRule {
			schema = append(schema, d)
		}
	}
	var problems []string
	switch {
	case strings.Contains(msg, "strict decoding error:"):
		var wantPaths, gotPaths []string
		for _, m := range unknownField.FindAllStringSubmatch(msg, -1) {
			wantPaths = append(wantPaths, m[1])
		}
		var wantLines, gotLines []string
		for _, m := range duplicateKey.FindAllStringSubmatch(msg, -1) {
			n, _ := strconv.Atoi(m[1])
			wantLines = append(wantLines, strconv.Itoa(start+n-1))
		}
		for _, d := range schema {
			if strings.HasPrefix(d.Message, "unknown field") {
				gotPaths = append(gotPaths, d.Path)
			} else {
				gotLines = append(gotLines, strconv.Itoa(d.Line))
			}
		}
		if !sameSet(gotPaths, wantPaths) {
			problems = append(problems, fmt.Sprintf("unknown-field paths %q, server %q", uniq(gotPaths), uniq(wantPaths)))
		}
		if !sameSet(gotLines, wantLines) {
			problems = append(problems, fmt.Sprintf("other decoding errors on lines %q, server names duplicate keys on lines %q (%s)", uniq(gotLines), uniq(wantLines), messages(schema)))
		}
	case typeError.MatchString(msg):
		want := typeError.FindStringSubmatch(msg)[1]
		if !slices.ContainsFunc(schema, func(d diag.Diagnostic) bool {
			p := listIndex.ReplaceAllString(d.Path, "")
			return p == want || strings.HasPrefix(p, want+".")
		}) {
			problems = append(problems, fmt.Sprintf("server: %s; no schema error at %s (ours: %s)", msg, want, messages(schema)))
		}
	case strings.Contains(msg, "illegal base64 data"):
		if !slices.ContainsFunc(schema, func(d diag.Diagnostic) bool { return strings.HasSuffix(d.Path, ".clientConfig.caBundle") }) {
			problems = append(problems, fmt.Sprintf("server: %s; no schema error on a caBundle (ours: %s)", msg, messages(schema)))
		}
	default:
		problems = append(problems, "decoding error not understood: "+msg)
	}
	return problems
}

// documentStarts returns the first line of every non-empty document, cut
// at "---" lines as the verdict tool (Kubernetes' YAML reader) cuts them;
// the server's line numbers count from there.
func documentStarts(data []byte) []int {
	sep := regexp.MustCompile(`^---\s*(#.*)?$`)
	var starts []int
	lines := strings.Split(string(data), "\n")
	chunkStart, content := 1, false
	flush := func() {
		if content {
			starts = append(starts, chunkStart)
		}
	}
	for i, l := range lines {
		if sep.MatchString(l) {
			flush()
			chunkStart, content = i+2, false
			continue
		}
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			content = true
		}
	}
	flush()
	return starts
}

func docAt(starts []int, line int) int {
	k := 0
	for i, s := range starts {
		if s <= line {
			k = i
		}
	}
	return k
}

func corpusSettings(t *testing.T, data []byte) *rules.Settings {
	s := rules.DefaultSettings()
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if h, ok := bytes.CutPrefix(first, []byte("# conformance: ")); ok {
		var hdr struct {
			KubeVersion string `json:"kubeVersion"`
		}
		if err := json.Unmarshal(h, &hdr); err != nil {
			t.Fatalf("bad corpus header %q: %v", first, err)
		}
		v, err := rules.ParseKubeVersion(hdr.KubeVersion)
		if err != nil {
			t.Fatalf("bad kubeVersion: %v", err)
		}
		s.KubeVersion = v
	}
	return s
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func sameSet(a, b []string) bool { return slices.Equal(uniq(a), uniq(b)) }

func messages(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "[%d:%d %s %s: %s]", d.Line, d.Column, d.Rule, d.Path, d.Message)
	}
	return b.String()
}

// serverWarningText is the server's warning a finding repeats:
// excluded-resources leaves out the path the warning starts with, where
// the finding is located (issue 38: lines at most 200 columns).
func serverWarningText(rule, path, msg string) string {
	if rule == "excluded-resources" {
		return path + ": " + msg
	}
	return msg
}
