package fix_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// TestFixesAcceptedByAPIServer is check (3) of the corpus tests (the
// conformance corpus and the fuzz differential set): for every
// fix of a finding whose document the API server rejected for that
// finding's field alone (the recorded verdict's only causes are at the
// finding's path), a dry-run create of the fixed document is accepted by a
// real kube-apiserver. It needs the server hack/e2e-apiserver.sh starts
// (.ci/run does, and sets WEBHOOKLINT_E2E_KUBECONFIG), as the cluster
// package's end-to-end tests do.
func TestFixesAcceptedByAPIServer(t *testing.T) {
	path := os.Getenv("WEBHOOKLINT_E2E_KUBECONFIG")
	if path == "" {
		t.Skip("WEBHOOKLINT_E2E_KUBECONFIG not set (run hack/e2e-apiserver.sh start)")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	resources := map[string]string{
		"ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
		"MutatingWebhookConfiguration":   "mutatingwebhookconfigurations",
	}
	verdicts := map[string]map[string]verdict{}
	checked := 0
	cases, counts := corpusFixes(t)
	for _, c := range cases {
		if c.d.Object == nil || resources[c.d.Object.Kind] == "" || len(c.fix.Edits) == 0 {
			continue
		}
		if verdicts[c.file] == nil {
			verdicts[c.file] = recordedVerdicts(t, c.file)
		}
		v, ok := verdicts[c.file][c.d.Object.Kind+"/"+c.d.Object.Name]
		fieldAlone := v.Code == 422 && len(v.Causes) > 0 &&
			!slices.ContainsFunc(v.Causes, func(c0 cause) bool { return c0.Field != c.d.Path })
		// An apiVersion the server does not serve is refused before
		// validation, so the verdict cannot say what else is wrong: the
		// linter's other errors on the object do.
		versionAlone := v.Reason == "NoKindMatch" && c.d.Path == "apiVersion" && c.othersErrors == 0
		if !ok || v.Accepted || !fieldAlone && !versionAlone {
			continue // accepted already, or rejected for more than this finding
		}
		counts.of(c.file, c.d.Rule).serverRejected++
		checked++
		// The first edit starts at the same offset in both texts.
		body, err := yaml.YAMLToJSON(documentAt(c.after, c.fix.Edits[0].Offset))
		if err != nil {
			t.Errorf("%s: %s on %s: the fixed document does not decode: %v", c.file, c.fix.Message, c.d.Object.Name, err)
			continue
		}
		err = client.AdmissionregistrationV1().RESTClient().Post().
			Resource(resources[c.d.Object.Kind]).
			Param("dryRun", "All").Param("fieldValidation", "Strict").
			SetHeader("Content-Type", "application/json").
			Body(body).Do(ctx).Error()
		if err != nil {
			t.Errorf("%s: [%s] %s on %s: the API server rejects the fixed document: %v", c.file, c.d.Rule, c.fix.Message, c.d.Object.Name, err)
			continue
		}
		counts.of(c.file, c.d.Rule).serverAccepts++
	}
	if checked == 0 {
		t.Fatal("no fix was checked against the API server")
	}
	counts.log(t, true)
}
