package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// e2ePolicy is a policy whose expression compiles untyped (the server
// accepts it) but compares an integer with a string, and a binding naming
// a policy that does not exist.
func e2ePolicyObjects(prefix string) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	p := vap(prefix+"p", "")
	p.ResourceVersion, p.UID = "", ""
	p.Spec.Validations = []admissionv1.Validation{{Expression: `object.spec.replicas == "five"`}}
	b := vapBinding(prefix+"b", "", prefix+"missing")
	b.ResourceVersion, b.UID = "", ""
	return &p, &b
}

// policyFindings are the findings on objects named with prefix, as
// comparable lines (no position: live findings have none).
func policyFindings(ds []diag.Diagnostic, prefix string) []string {
	var out []string
	for _, d := range ds {
		if d.Object == nil || !strings.HasPrefix(d.Object.Name, prefix) {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: %s: %s [%s]", objectKey(d.Object), d.Path, d.Severity, d.Message, d.Rule))
	}
	slices.Sort(out)
	return out
}

func TestE2EPolicies(t *testing.T) {
	c, _ := e2e(t)
	ctx := e2eCtx(t)
	const prefix = "pol-e2e-"
	a := c.AdmissionregistrationV1()
	pol, binding := e2ePolicyObjects(prefix)
	if _, err := a.ValidatingAdmissionPolicies().Create(ctx, pol, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.ValidatingAdmissionPolicies().Delete(ctx, pol.Name, metav1.DeleteOptions{}) })
	created, err := a.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.ValidatingAdmissionPolicyBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{}) })

	// Discovery decides which policy kinds are read; the 1.37 server
	// serves all four in v1.
	kinds, notes := policyKindsOf(c)
	if len(kinds) != 4 || len(notes) != 0 {
		t.Errorf("policy kinds %d, notes %v", len(kinds), notes)
	}

	res, err := Lint(ctx, c, Options{List: ListOptions{ChunkSize: 1}})
	if err != nil {
		t.Fatal(err)
	}
	live := policyFindings(res.Diagnostics, prefix)
	want := []string{
		"ValidatingAdmissionPolicy/" + prefix + "p metadata.name", // no binding names it
		"ValidatingAdmissionPolicy/" + prefix + "p spec.validations[0].expression",
		"ValidatingAdmissionPolicyBinding/" + prefix + "b spec.policyName",
	}
	if len(live) != len(want) {
		t.Fatalf("live findings:\n%s\nwant one at each of %v", strings.Join(live, "\n"), want)
	}
	for i, w := range want {
		if !strings.HasPrefix(live[i], w+":") {
			t.Errorf("live finding %d: %s\nwant at %s", i, live[i], w)
		}
	}
	if !strings.Contains(live[1], "[admission-policy-types]") || !strings.Contains(live[2], "[policy-binding-reference]") {
		t.Errorf("live findings:\n%s", strings.Join(live, "\n"))
	}

	// The same objects in a file give the same findings.
	pol.TypeMeta = metav1.TypeMeta{APIVersion: rules.V1, Kind: rules.ValidatingPolicy}
	binding.TypeMeta = metav1.TypeMeta{APIVersion: rules.V1, Kind: rules.ValidatingPolicyBinding}
	var docs []string
	for _, o := range []any{pol, binding} {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	file := filepath.Join(t.TempDir(), "policies.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	fileRes, err := source.Lint([]string{file}, nil, "", lint.Options{}, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The file mode speaks of the unit, the live mode of the cluster;
	// otherwise the findings are the same.
	inCluster := strings.NewReplacer("in the cluster", "in the unit", "the cluster's", "the unit's")
	for i := range live {
		live[i] = inCluster.Replace(live[i])
	}
	if got := policyFindings(fileRes.Diagnostics, prefix); strings.Join(got, "\n") != strings.Join(live, "\n") {
		t.Errorf("file findings:\n%s\nlive findings:\n%s", strings.Join(got, "\n"), strings.Join(live, "\n"))
	}

	// Watching: fixing the binding resolves both reference findings.
	rec := newRecorder()
	startWatcher(t, &Watcher{Client: c, Options: Options{Stream: StreamAuto}, Sink: rec.sink})
	has := func(typ ChangeType, object, path string) bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, ch := range rec.changes {
			if ch.Type == typ && ch.Diagnostic != nil && objectKey(ch.Object) == object && ch.Diagnostic.Path == path {
				return true
			}
		}
		return false
	}
	bindingKey, policyKey := rules.ValidatingPolicyBinding+"/"+prefix+"b", rules.ValidatingPolicy+"/"+prefix+"p"
	rec.waitFor(t, "the binding's finding", func() bool { return rec.has(Synced, "") && has(Found, bindingKey, "spec.policyName") })
	created.Spec.PolicyName = pol.Name
	if _, err := a.ValidatingAdmissionPolicyBindings().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the resolutions", func() bool {
		return has(Resolved, bindingKey, "spec.policyName") && has(Resolved, policyKey, "metadata.name")
	})
	if has(Resolved, policyKey, "spec.validations[0].expression") {
		t.Error("the type error was resolved by fixing the binding")
	}
}
