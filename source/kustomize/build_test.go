package kustomize

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const kubebuilder = "../../testdata/sources/kubebuilder/config"

func TestLocateKubebuilder(t *testing.T) {
	b, err := Run(filepath.Join(kubebuilder, "default"))
	if err != nil {
		t.Fatal(err)
	}
	val := b.Find("ValidatingWebhookConfiguration", "project-validating-webhook-configuration", "")
	mut := b.Find("MutatingWebhookConfiguration", "project-mutating-webhook-configuration", "")
	if val == nil || mut == nil {
		var names []string
		for _, o := range b.Objects {
			names = append(names, o.Kind+"/"+o.Name)
		}
		t.Fatalf("webhook configurations not built; got %v", names)
	}
	if !strings.HasSuffix(val.Origin, "webhook/manifests.yaml") {
		t.Errorf("origin = %q", val.Origin)
	}
	if strings.Contains(string(val.YAML), originAnnotation) {
		t.Error("the origin annotation webhooklint asked for leaks into the linted object")
	}
	cases := []struct {
		o         *Object
		path      string
		file      string
		line, col int
		by        string
	}{
		// Strategic-merge patch in the overlay, matched by webhook name:
		// the merge moved vdeployment (second in manifests.yaml) to
		// webhooks[0] of the built object.
		{val, "webhooks[0].failurePolicy", "default/webhook_failurepolicy_patch.yaml", 7, 18, "patch"},
		// JSON6902 patch file, at the operation's value.
		{val, "webhooks[0].timeoutSeconds", "default/webhook_timeout_patch.json", 2, 68, "patch"},
		// Patch in the base kustomization, under a list it replaces.
		{val, "webhooks[1].namespaceSelector.matchExpressions[0].operator", "webhook/patch_manifests.yaml", 10, 17, "patch"},
		// Inline JSON6902 patch inside the kustomization file.
		{mut, "webhooks[0].reinvocationPolicy", "default/kustomization.yaml", 29, 14, "patch"},
		// Annotation from the CA injection patch.
		{val, "metadata.annotations[cert-manager.io/inject-ca-from]", "default/webhookcainjection_patch.yaml", 14, 37, "patch"},
		// Not patched: the resource file.
		{val, "webhooks[0].sideEffects", "webhook/manifests.yaml", 72, 16, "resource"},
		{val, "webhooks[0].rules[0].operations[1]", "webhook/manifests.yaml", 69, 7, "resource"},
		// Missing field: its closest written ancestor (the webhook).
		{val, "webhooks[0].matchConditions", "webhook/manifests.yaml", 53, 3, "resource"},
		// The patch names the webhook but does not own what it merges.
		{mut, "webhooks[0].sideEffects", "webhook/manifests.yaml", 26, 16, "resource"},
		// Whole object: its kind.
		{val, "", "webhook/manifests.yaml", 29, 1, "resource"},
	}
	for _, c := range cases {
		got := b.Locate(c.o, c.path, false)
		if !strings.HasSuffix(got.File, filepath.FromSlash(c.file)) || got.Line != c.line || got.Column != c.col || got.By != c.by {
			t.Errorf("%s %s: got %s:%d:%d by %s, want %s:%d:%d by %s", c.o.Name, c.path, got.File, got.Line, got.Column, got.By, c.file, c.line, c.col, c.by)
		}
	}
}

// An unknown field is reported on its key, a bad value on the value.
func TestLocateAtKey(t *testing.T) {
	b, err := Run(filepath.Join(kubebuilder, "default"))
	if err != nil {
		t.Fatal(err)
	}
	val := b.Find("ValidatingWebhookConfiguration", "project-validating-webhook-configuration", "")
	key := b.Locate(val, "webhooks[0].timeoutSecond", true)
	value := b.Locate(val, "webhooks[0].timeoutSecond", false)
	if key.Line != 8 || key.Column != 3 || value.Line != 8 || value.Column != 18 || key.By != "patch" {
		t.Errorf("key %+v, value %+v", key, value)
	}
}

func TestConsumed(t *testing.T) {
	b, err := Run(filepath.Join(kubebuilder, "default"))
	if err != nil {
		t.Fatal(err)
	}
	res, patches, kusts := b.Consumed()
	for _, want := range []string{"webhook/manifests.yaml", "webhook/service.yaml", "manager/manager.yaml", "certmanager/certificate.yaml"} {
		if !hasSuffix(res, want) {
			t.Errorf("resource %s not consumed: %v", want, res)
		}
	}
	for _, want := range []string{"webhook/patch_manifests.yaml", "default/webhook_failurepolicy_patch.yaml", "default/webhook_timeout_patch.json", "default/webhookcainjection_patch.yaml"} {
		if !hasSuffix(patches, want) {
			t.Errorf("patch %s not consumed: %v", want, patches)
		}
	}
	if len(kusts) != 4 {
		t.Errorf("kustomizations = %v", kusts)
	}
}

func hasSuffix(m map[string]bool, s string) bool {
	for k := range m {
		if strings.HasSuffix(k, filepath.FromSlash(s)) {
			return true
		}
	}
	return false
}

func TestRemoteBaseIsReportedNotFetched(t *testing.T) {
	for _, ref := range []string{
		"github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v3.3.1",
		"https://raw.githubusercontent.com/example/repo/main/webhook.yaml",
		"git@github.com:example/repo.git//config",
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "kustomization.yaml"), "resources:\n- local.yaml\n- "+ref+"\n")
		writeFile(t, filepath.Join(dir, "local.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n")
		_, err := Run(dir)
		var re *RemoteError
		if !errors.As(err, &re) || re.Line != 3 || re.Ref != ref {
			t.Errorf("%s: got %v", ref, err)
			continue
		}
		if !strings.Contains(err.Error(), "offline") {
			t.Errorf("message does not say why: %v", err)
		}
	}
}

func TestBuildErrorIsReturned(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), "resources:\n- missing.yaml\n")
	if _, err := Run(dir); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("got %v", err)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
