package kustomize

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// TestDerivedOriginsAreKustomizes builds every kustomization of the
// repository's test data and of the shared corpus whose origins can be
// derived both ways: the objects and their files must be those kustomize's
// origin annotations give.
func TestDerivedOriginsAreKustomizes(t *testing.T) {
	var dirs []string
	for _, root := range []string{"../../testdata", "../../../shared/corpus/layouts"} {
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && slices.Contains(FileNames, e.Name()) {
				dirs = append(dirs, filepath.Dir(p))
			}
			return nil
		})
	}
	derived := 0
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		tree, problems, err := load(abs, nil)
		if err != nil || len(problems) > 0 || !tree.fromResources() {
			continue
		}
		b := &Build{Dir: dir, File: tree.file, tree: tree, cache: map[string][]*originDoc{}}
		objs, _, err := b.build(abs, nil, false)
		if err != nil || !b.deriveOrigins(objs) {
			continue
		}
		derived++
		want, _, err := b.build(abs, nil, true)
		if err != nil {
			t.Errorf("%s: built without origin annotations, not with: %v", dir, err)
			continue
		}
		if len(want) != len(objs) {
			t.Errorf("%s: %d objects, %d with origin annotations", dir, len(objs), len(want))
			continue
		}
		for i, o := range objs {
			w := want[i]
			if o.Kind != w.Kind || o.Name != w.Name || o.Namespace != w.Namespace || o.Origin != w.Origin || string(o.YAML) != string(w.YAML) {
				t.Errorf("%s: object %d is %s %s from %s, with origin annotations %s %s from %s", dir, i, o.Kind, o.Name, o.Origin, w.Kind, w.Name, w.Origin)
			}
		}
	}
	t.Logf("origins derived in %d builds of %d kustomizations", derived, len(dirs))
	if derived < 10 {
		t.Errorf("origins derived in %d builds of %d kustomizations; the test data has more", derived, len(dirs))
	}
}

// TestOriginsNotDerived: trees whose objects cannot be matched to their
// documents for certain are built with kustomize's origin annotations,
// and their objects still say where they came from.
func TestOriginsNotDerived(t *testing.T) {
	const deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  replicas: 1\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		// derivable is whether the tree may be built without
		// annotations; origins whether they can then be derived.
		derivable, origins bool
		want               map[string]string // object name → its file
	}{{
		name: "prefixed names",
		files: map[string]string{
			"base/kustomization.yaml":    "resources: [a.yaml, b.yaml]\n",
			"base/a.yaml":                fmt.Sprintf(deploy, "web"),
			"base/b.yaml":                fmt.Sprintf(deploy, "web-api"),
			"overlay/kustomization.yaml": "namePrefix: p-\nresources: [../base]\n",
		},
		derivable: true, origins: true,
		want: map[string]string{"p-web": "base/a.yaml", "p-web-api": "base/b.yaml"},
	}, {
		name: "a name that is another with the prefix",
		files: map[string]string{
			"base/kustomization.yaml":    "resources: [a.yaml, b.yaml]\n",
			"base/a.yaml":                fmt.Sprintf(deploy, "web"),
			"base/b.yaml":                fmt.Sprintf(deploy, "p-web"),
			"overlay/kustomization.yaml": "namePrefix: p-\nresources: [../base]\n",
		},
		derivable: true, origins: false,
		want: map[string]string{"p-web": "base/a.yaml", "p-p-web": "base/b.yaml"},
	}, {
		name: "a patch that changes another field",
		files: map[string]string{
			"base/kustomization.yaml": "resources: [a.yaml]\n",
			"base/a.yaml":             fmt.Sprintf(deploy, "web"),
			"overlay/kustomization.yaml": "resources: [../base]\npatches:\n- target: {kind: Deployment}\n  patch: |-\n" +
				"    - op: replace\n      path: /spec/replicas\n      value: 3\n",
		},
		derivable: true, origins: true,
		want: map[string]string{"web": "base/a.yaml"},
	}, {
		name: "a patch that renames",
		files: map[string]string{
			"base/kustomization.yaml": "resources: [a.yaml]\n",
			"base/a.yaml":             fmt.Sprintf(deploy, "web"),
			"overlay/kustomization.yaml": "resources: [../base]\npatches:\n- target: {kind: Deployment}\n  patch: |-\n" +
				"    - op: replace\n      path: /metadata/name\n      value: api\n",
		},
		want: map[string]string{"api": "base/a.yaml"},
	}, {
		name: "a generator",
		files: map[string]string{
			"overlay/kustomization.yaml": "resources: [a.yaml]\nconfigMapGenerator:\n- name: settings\n  literals: [a=b]\n",
			"overlay/a.yaml":             fmt.Sprintf(deploy, "web"),
		},
		// Generated: from no file.
		want: map[string]string{"web": "overlay/a.yaml", "settings-4h2mbtbbt6": ""},
	}, {
		name: "an object deleted",
		files: map[string]string{
			"base/kustomization.yaml": "resources: [a.yaml, b.yaml]\n",
			"base/a.yaml":             fmt.Sprintf(deploy, "web"),
			"base/b.yaml":             fmt.Sprintf(deploy, "api"),
			"overlay/kustomization.yaml": "resources: [../base]\npatches:\n- patch: |-\n" +
				"    $patch: delete\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: api\n",
		},
		derivable: true, origins: false,
		want: map[string]string{"web": "base/a.yaml"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root := testkit.Tree(t, tc.files)
			dir := filepath.Join(root, "overlay")
			tree, _, err := load(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := tree.fromResources(); got != tc.derivable {
				t.Errorf("fromResources() = %v, want %v", got, tc.derivable)
			}
			if tc.derivable {
				b := &Build{Dir: dir, File: tree.file, tree: tree, cache: map[string][]*originDoc{}}
				objs, _, err := b.build(dir, nil, false)
				if err != nil {
					t.Fatal(err)
				}
				if got := b.deriveOrigins(objs); got != tc.origins {
					t.Errorf("deriveOrigins() = %v, want %v", got, tc.origins)
				}
			}
			b, err := RunAs(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, o := range b.Objects {
				rel, _ := filepath.Rel(root, o.Origin)
				got[o.Name] = filepath.ToSlash(rel)
			}
			if len(got) != len(tc.want) {
				t.Errorf("objects %v, want %v", got, tc.want)
			}
			for name, file := range tc.want {
				if got[name] != file {
					t.Errorf("%s from %q, want %q", name, got[name], file)
				}
			}
		})
	}
}
