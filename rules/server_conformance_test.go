package rules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/diag"
)

// This test holds the Server rules to the verdicts the real API server gave
// on the conformance corpus (testdata/conformance, recorded by
// hack/record-conformance.sh). It covers the documents that reached
// validation (HTTP 201 or 422); decoding failures (400) and documents the
// server never accepted as a kind (v1beta1) belong to the loader and are
// checked by the end-to-end conformance test in package lint.

const corpusDir = "../testdata/conformance"

type serverVerdict struct {
	Doc        int      `json:"doc"`
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Name       string   `json:"name"`
	Accepted   bool     `json:"accepted"`
	Code       int      `json:"code"`
	Stage      string   `json:"stage"`
	Message    string   `json:"message"`
	Warnings   []string `json:"warnings"`
	Causes     []struct {
		Field   string `json:"field"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"causes"`
}

type corpusHeader struct {
	KubeVersion string `json:"kubeVersion"`
}

func TestServerRulesMatchRecordedVerdicts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s (%v)", corpusDir, err)
	}
	checked := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		docs, settings := readCorpusFile(t, file)
		verdicts := testkit.ReadJSONLines[serverVerdict](t, filepath.Join(corpusDir, "verdicts", name+".jsonl"))
		if len(docs) != len(verdicts) {
			t.Fatalf("%s: %d documents but %d verdicts; re-record with hack/record-conformance.sh", name, len(docs), len(verdicts))
		}
		for i, v := range verdicts {
			if v.Doc != i {
				t.Fatalf("%s: verdict %d is for doc %d", name, i, v.Doc)
			}
			if v.Stage != "server" || (v.Code != 201 && v.Code != 422) {
				continue // decoding and kind errors: the loader's business
			}
			if v.Kind == "CustomResourceDefinition" {
				var crd apiextensionsv1.CustomResourceDefinition
				if err := yaml.Unmarshal(docs[i], &crd); err != nil {
					t.Fatalf("%s doc %d: %v", name, i, err)
				}
				t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
					compareCRDWithServer(t, &crd, settings, v)
				})
				checked++
				continue
			}
			if IsPolicyKind(v.APIVersion, v.Kind) {
				pol := decodePolicy(t, docs[i], v.Kind, fmt.Sprintf("%s doc %d", name, i))
				t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
					comparePolicyWithServer(t, pol, settings, v)
				})
				checked++
				continue
			}
			cfg := decodeConfig(t, docs[i], fmt.Sprintf("%s doc %d", name, i))
			if cfg.APIVersion != v.APIVersion || cfg.Kind != v.Kind {
				t.Fatalf("%s doc %d: document is %s %s, verdict is for %s %s", name, i, cfg.APIVersion, cfg.Kind, v.APIVersion, v.Kind)
			}
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				compareWithServer(t, cfg, settings, v)
			})
			checked++
		}
	}
	if checked < 300 {
		t.Errorf("only %d documents reached validation; the corpus should exercise at least 300", checked)
	}
}

// compareCRDWithServer is compareWithServer for the CheckCRD of the
// Server rules on a CustomResourceDefinition: the same errors, path and
// message, as the server's causes.
func compareCRDWithServer(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, s *Settings, v serverVerdict) {
	var got []string
	for _, r := range All() {
		if r.Category != Server || r.CheckCRD == nil {
			continue
		}
		NewCRDPass(r, crd, nil, s, func(f Finding) {
			if f.Severity == diag.Error {
				got = append(got, f.Message)
			}
		}).Run()
	}
	var want []string
	for _, c := range v.Causes {
		field := c.Field
		// The server swaps service name and namespace here too.
		if c.Reason == "FieldValueRequired" {
			if f, ok := strings.CutSuffix(field, ".webhookClientConfig.service.namespace"); ok {
				field = f + ".webhookClientConfig.service.name"
			} else if f, ok := strings.CutSuffix(field, ".webhookClientConfig.service.name"); ok {
				field = f + ".webhookClientConfig.service.namespace"
			}
		}
		want = append(want, ConciseServerMessage(field+": "+c.Message))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(slices.Compact(got), slices.Compact(want)) {
		t.Errorf("errors differ from the server's (accepted=%v)\n got: %q\nwant: %q", v.Accepted, got, want)
	}
}

// decodePolicy decodes one of the four admission policy kinds.
func decodePolicy(t *testing.T, doc []byte, kind, what string) *Policy {
	t.Helper()
	pol := &Policy{APIVersion: V1, Kind: kind}
	var err error
	switch kind {
	case ValidatingPolicy:
		pol.Validating = &admissionv1.ValidatingAdmissionPolicy{}
		err = yaml.Unmarshal(doc, pol.Validating)
		pol.Meta = pol.Validating.ObjectMeta
	case ValidatingPolicyBinding:
		pol.ValidatingBinding = &admissionv1.ValidatingAdmissionPolicyBinding{}
		err = yaml.Unmarshal(doc, pol.ValidatingBinding)
		pol.Meta = pol.ValidatingBinding.ObjectMeta
	case MutatingPolicy:
		pol.Mutating = &admissionv1.MutatingAdmissionPolicy{}
		err = yaml.Unmarshal(doc, pol.Mutating)
		pol.Meta = pol.Mutating.ObjectMeta
	default:
		pol.MutatingBinding = &admissionv1.MutatingAdmissionPolicyBinding{}
		err = yaml.Unmarshal(doc, pol.MutatingBinding)
		pol.Meta = pol.MutatingBinding.ObjectMeta
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return pol
}

// comparePolicyWithServer is compareWithServer for the CheckPolicy of the
// Server rules on an admission policy or binding: the same errors, path
// and message, as the server's causes.
func comparePolicyWithServer(t *testing.T, pol *Policy, s *Settings, v serverVerdict) {
	var got, gotWarns []string
	for _, r := range All() {
		if r.Category != Server || r.CheckPolicy == nil {
			continue
		}
		NewPolicyPass(r, pol, nil, s, func(f Finding) {
			switch f.Severity {
			case diag.Error:
				got = append(got, f.Message)
			case diag.Warning:
				gotWarns = append(gotWarns, f.Message)
			}
		}).Run()
	}
	if !slices.Equal(gotWarns, v.Warnings) && len(gotWarns)+len(v.Warnings) > 0 {
		t.Errorf("warnings differ from the server's\n got: %q\nwant: %q", gotWarns, v.Warnings)
	}
	var want []string
	for _, c := range v.Causes {
		want = append(want, ConciseServerMessage(c.Field+": "+c.Message))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(slices.Compact(got), slices.Compact(want)) {
		t.Errorf("errors differ from the server's (accepted=%v)\n got: %q\nwant: %q", v.Accepted, got, want)
	}
}

// compareWithServer asserts that the Error findings of the Server rules are
// exactly the server's field errors (path and message), and that the
// server's warnings are exactly the W1/W2 warnings we emit.
func compareWithServer(t *testing.T, cfg *Config, s *Settings, v serverVerdict) {
	var gotErrs, gotWarns []string
	for _, r := range All() {
		if r.Category != Server || r.Check == nil {
			continue
		}
		NewPass(r, cfg, nil, s, func(f Finding) {
			switch {
			case f.Severity == diag.Error:
				gotErrs = append(gotErrs, f.Message)
			case f.Severity == diag.Warning && isServerWarning(f):
				gotWarns = append(gotWarns, serverWarningText(f.Rule, f.Path, f.Message))
			}
		}).Run()
	}
	var wantErrs []string
	for _, c := range v.Causes {
		field := c.Field
		// A45/A46: the server names service.namespace when service.name is
		// missing and vice versa; webhooklint names the missing field.
		if c.Reason == "FieldValueRequired" {
			if f, ok := strings.CutSuffix(field, ".clientConfig.service.namespace"); ok {
				field = f + ".clientConfig.service.name"
			} else if f, ok := strings.CutSuffix(field, ".clientConfig.service.name"); ok {
				field = f + ".clientConfig.service.namespace"
			}
		}
		// matchConditions are another rule's (match-conditions); when it is
		// not registered in this build, its expected errors are left out.
		if _, ok := Lookup("match-conditions"); !ok && strings.Contains(field, ".matchConditions") {
			continue
		}
		// webhooklint leaves out the regular expressions of name errors
		// and the positions of CEL errors.
		wantErrs = append(wantErrs, ConciseServerMessage(field+": "+c.Message))
	}
	// Identical field errors (resources ["*/*","*/*"] gives the same one
	// twice) reach the client once; diag.Normalize does the same for us.
	gotErrs = slices.Compact(sortedGenerated(cfg, gotErrs))
	wantErrs = slices.Compact(sortedGenerated(cfg, wantErrs))
	if !slices.Equal(gotErrs, wantErrs) {
		t.Errorf("errors differ from the server's (accepted=%v)\n got: %q\nwant: %q", v.Accepted, gotErrs, wantErrs)
	}
	// The server returns warnings only with a successful create.
	if v.Accepted {
		slices.Sort(gotWarns)
		wantWarns := slices.Clone(v.Warnings)
		slices.Sort(wantWarns)
		if !slices.Equal(gotWarns, wantWarns) {
			t.Errorf("warnings differ from the server's\n got: %q\nwant: %q", gotWarns, wantWarns)
		}
	}
}

// sortedGenerated sorts messages after hiding the five random characters of
// a generated name, which differ on every create.
func sortedGenerated(cfg *Config, msgs []string) []string {
	if cfg.Meta.Name == "" && cfg.Meta.GenerateName != "" {
		re := regexp.MustCompile(regexp.QuoteMeta(`"`+cfg.Meta.GenerateName) + `[a-z0-9]{5}"`)
		for i, m := range msgs {
			msgs[i] = re.ReplaceAllString(m, `"`+cfg.Meta.GenerateName+`<random>"`)
		}
	}
	slices.Sort(msgs)
	return msgs
}

// isServerWarning tells the server's own warnings (W1, W2) from the extra
// advice our Server rules give as warnings (order-dependent rule lists).
func isServerWarning(f Finding) bool {
	return f.Rule == "excluded-resources" || f.Rule == "object-name"
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

// readCorpusFile splits a corpus file into its non-empty documents, the way
// the verdict tool counts them, and reads the optional settings header.
func readCorpusFile(t *testing.T, file string) ([][]byte, *Settings) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	if first, _, _ := bytes.Cut(data, []byte("\n")); bytes.HasPrefix(first, []byte("# conformance: ")) {
		var h corpusHeader
		if err := json.Unmarshal(bytes.TrimPrefix(first, []byte("# conformance: ")), &h); err != nil {
			t.Fatalf("%s: bad header: %v", file, err)
		}
		v, err := ParseKubeVersion(h.KubeVersion)
		if err != nil {
			t.Fatalf("%s: bad kubeVersion: %v", file, err)
		}
		s.KubeVersion = v
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !onlyComments(doc) {
			docs = append(docs, doc)
		}
	}
	return docs, s
}

func onlyComments(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") && line != "---" {
			return false
		}
	}
	return true
}

// decodeConfig decodes a document the server could decode. sigs.k8s.io/yaml
// reads YAML 1.1 like the server does.
func decodeConfig(t *testing.T, doc []byte, what string) *Config {
	t.Helper()
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	switch tm.Kind {
	case Validating:
		var o admissionv1.ValidatingWebhookConfiguration
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return FromValidating(tm.APIVersion, &o)
	case Mutating:
		var o admissionv1.MutatingWebhookConfiguration
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return FromMutating(tm.APIVersion, &o)
	}
	t.Fatalf("%s: not a webhook configuration: %s", what, tm.Kind)
	return nil
}
