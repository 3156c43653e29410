package kustomize

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/api/types"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// The line appendOrigins adds gives kustomize the kustomization that
// decoding and encoding the text gives it; a text it cannot vouch for is
// left to that.
func TestAppendOrigins(t *testing.T) {
	fast := map[string]string{
		"plain":                      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: app-1\nresources:\n- app.yaml\n",
		"comments and a leading ---": "# prod\n---\nresources: # the base\n  - ../base\n\n#end\n",
		"a block scalar last":        "resources:\n- ../base\npatches:\n- target: {kind: Deployment}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n",
		"a literal kept to the end":  "namePrefix: p-\nconfigMapGenerator:\n- name: c\n  literals:\n  - |+\n    a=b\n\n",
	}
	for name, text := range fast {
		out, ok := appendOrigins([]byte(text))
		if !ok {
			t.Errorf("%s: not taken", name)
			continue
		}
		slow, err := (&originFS{}).roundTrip([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		var got, want types.Kustomization
		if err := got.Unmarshal(out); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if err := want.Unmarshal(slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: kustomize reads\n%+v\nwant\n%+v", name, got, want)
		}
		if len(got.BuildMetadata) != 1 || got.BuildMetadata[0] != types.OriginAnnotations {
			t.Errorf("%s: buildMetadata %v", name, got.BuildMetadata)
		}
	}
	slow := map[string]string{
		"empty":               "",
		"no final newline":    "resources:\n- a.yaml",
		"CRLF":                "resources:\r\n- a.yaml\r\n",
		"comments only":       "# nothing\n",
		"flow":                "{resources: [a.yaml]}\n",
		"JSON":                "{\"resources\": [\"a.yaml\"]}\n",
		"indented":            "  resources:\n  - a.yaml\n",
		"two documents":       "resources:\n- a.yaml\n---\nresources: []\n",
		"document end":        "resources:\n- a.yaml\n...\n",
		"directive":           "%YAML 1.2\n---\nresources: []\n",
		"buildMetadata":       "resources: []\nbuildMetadata: [managedByLabel]\n",
		"quoted key":          "\"resources\": []\n",
		"anchor merge":        "base: &b {namespace: x}\n<<: *b\n",
		"explicit key":        "? resources\n: []\n",
		"a sequence at top":   "- a.yaml\n",
		"space before colon":  "resources : []\n",
		"buildMetadata typed": "buildMetadata:\n- originAnnotations\n",
	}
	for name, text := range slow {
		if out, ok := appendOrigins([]byte(text)); ok {
			t.Errorf("%s: taken: %q", name, out)
		}
	}
}

// kustomize reads the root kustomization through its resolved path: a
// build through a linked folder still gets the origins asked for.
func TestOriginsThroughLink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	testkit.WriteFile(t, filepath.Join(real, "kustomization.yaml"), "resources:\n- svc.yaml\n")
	testkit.WriteFile(t, filepath.Join(real, "svc.yaml"), "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n")
	if err := os.Symlink(real, filepath.Join(root, "link")); err != nil {
		t.Skip(err)
	}
	b, err := RunAs(filepath.Join(root, "link"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Objects) != 1 || b.Objects[0].Origin != filepath.Join(root, "link", "svc.yaml") {
		t.Fatalf("objects %+v origin %q", b.Objects, b.Objects[0].Origin)
	}
	if bytes.Contains(b.Objects[0].YAML, []byte("origin")) {
		t.Errorf("the origin annotation is printed:\n%s", b.Objects[0].YAML)
	}
}
