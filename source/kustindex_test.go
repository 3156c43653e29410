package source

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/manifest"
)

// copyTree copies a folder of testdata under a new temporary folder marked
// as a repository root, so that its scope is the copy alone.
func copyTree(t *testing.T, dir string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// unitsText describes the units a file is linted through, as the run
// would use them.
func unitsText(us []*unit) string {
	var b strings.Builder
	for _, u := range us {
		fmt.Fprintf(&b, "%s reads=%v cycle=%v base=%v\n", strings.ReplaceAll(u.key(), "\x00", " "),
			slices.Sorted(func(yield func(string) bool) {
				for f := range u.reads {
					if !yield(f) {
						return
					}
				}
			}), u.cycle, u.base)
	}
	return b.String()
}

// filesUnder lists every regular file under root, the hidden ones too.
func filesUnder(t *testing.T, root string) []string {
	var out []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Name() == ".git" {
			return filepath.SkipDir
		}
		if e.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkLazyAgrees names each file of root on its own and requires the
// lazy scope (parse what may refer to it) to give the units the complete
// one (parse everything) gives. It returns how many lookups stayed lazy.
func checkLazyAgrees(t *testing.T, root string) (lazy int) {
	t.Helper()
	for _, f := range filesUnder(t, root) {
		var got [2]string
		for i, lazyKusts := range []bool{false, true} {
			d := newDiscovery(Options{}, nil, 2)
			d.lazyKusts = lazyKusts
			us := d.unitsOf(manifest.Source{Name: f})
			got[i] = unitsText(us)
			if lazyKusts {
				for _, s := range d.kustScopes {
					if !s.complete {
						lazy++
					}
				}
			}
		}
		if got[0] != got[1] {
			rel, _ := filepath.Rel(root, f)
			t.Errorf("%s: the lazy scope gives other units\ncomplete:\n%slazy:\n%s", rel, got[0], got[1])
		}
	}
	return lazy
}

// Each kustomization of testdata/kustindex/plain refers to the base in a
// form a byte scan could misread (flow sequences, quotes, escapes, a
// trailing "/..", JSON, a folded scalar, look-alike names, a
// component, a parent folder): the lazy scope must still find exactly the
// builds a complete parse finds, without parsing everything.
func TestLazyScopeAgreesWithCompleteParse(t *testing.T) {
	root := copyTree(t, filepath.Join("..", "testdata", "kustindex", "plain"))
	if checkLazyAgrees(t, root) == 0 {
		t.Error("no lookup stayed lazy: the test checks nothing")
	}
}

// A kustomization in a hidden folder is not walked, yet it is built when
// something refers to it: the scope then parses everything.
func TestLazyScopeParsesAllWhenAPathLeavesTheWalk(t *testing.T) {
	root := copyTree(t, filepath.Join("..", "testdata", "kustindex", "unwalked"))
	if n := checkLazyAgrees(t, root); n != 0 {
		t.Errorf("%d lookups stayed lazy; want the complete parse", n)
	}
	d := newDiscovery(Options{}, nil, 2)
	d.lazyKusts = true
	us := d.unitsOf(manifest.Source{Name: filepath.Join(root, "base", "app.yaml")})
	if len(us) != 1 || us[0].dir != filepath.Join(root, "overlay") {
		t.Errorf("base/app.yaml is linted through %s; want the overlay's build", unitsText(us))
	}
}

// On the layouts corpus (nine real repositories), every file gets the same
// units from the lazy scope as from the complete parse.
func TestLazyScopeOnLayouts(t *testing.T) {
	dir := filepath.Join(corpusDirInternal(), "layouts")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("layouts corpus not available: %v", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			t.Run(e.Name(), func(t *testing.T) {
				t.Logf("%d scopes stayed lazy", checkLazyAgrees(t, filepath.Join(dir, e.Name())))
			})
		}
	}
}

func corpusDirInternal() string {
	if d := os.Getenv("WEBHOOKLINT_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "corpus")
}

func TestMayName(t *testing.T) {
	const kdir, target = "/r/overlays/prod", "/r/base"
	for _, c := range []struct {
		text string
		want bool
	}{
		{"resources:\n- ../../base\n", true},
		{"resources: [../../base]", true},
		{"resources:\n- '../../base/'  # the base\n", true},
		{"resources:\n- ../../base-v2\n", false},
		{"resources:\n- ../base\n", false}, // /r/overlays/base
		{"namePrefix: base\n", false},
		{"#- ../../base\n", false},
		{"resources:\n- !!str ../../base\n", true}, // a tag: only a parse can tell
		{"resources:\n- my ../../base\n", true},    // a plain scalar with a blank
	} {
		kt := scanned(kdir, "/r", c.text)
		if got := kt.mayName(target); got != c.want {
			t.Errorf("%q: mayName = %v, want %v", c.text, got, c.want)
		}
	}
}

// scanned is the kustText of a kustomization with this text in kdir.
func scanned(kdir, root, text string) kustText {
	return readKustText(kustFolder{dir: kdir, file: kdir + "/kustomization.yaml", text: []byte(text)}, root, nil)
}

func TestKustTextDotTargetsAndUnwalked(t *testing.T) {
	kt := scanned("/r/a/b", "/r", "resources:\n- ../x/..\n- ..\n")
	if want := []string{"/r/a", "/r/a"}; !slices.Equal(kt.dotTargets, want) {
		t.Errorf("dotTargets = %v, want %v", kt.dotTargets, want)
	}
	top := t.TempDir()
	root := filepath.Join(top, "repo")
	for _, d := range []string{"repo/a/b", "repo/a/c", "repo/a/b/.hidden/x", "repo/a/b/vendor/x", "outside"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for text, want := range map[string]bool{
		"resources:\n- ../../../outside\n":             true, // above the scope root
		"resources:\n- .hidden/x\n":                    true,
		"resources:\n- vendor/x\n":                     true,
		"resources:\n- ../../../nothing-there\n":       false,
		"fieldPaths:\n- .metadata.annotations.[a/b]\n": false,
		"#- ../../../outside\n":                        false,
		"resources:\n- \"..\\/c\"\n":                   true, // an escape can spell any path
		"resources:\n- ../c\n- ./d.yaml":               false,
	} {
		if got := scanned(filepath.Join(root, "a", "b"), root, text).unwalked; got != want {
			t.Errorf("%q: unwalked = %v, want %v", text, got, want)
		}
	}
}

// BenchmarkKustomizationFolders walks a monorepo of 2,000 apps (a base and
// a prod overlay each: 6,000 folders, 4,000 kustomization files), reading
// the kustomization texts as a run that names one file does.
func BenchmarkKustomizationFolders(b *testing.B) {
	root := monorepo(b)
	for b.Loop() {
		if found, _ := kustomizationFolders(root, 2, true); len(found) != 4000 {
			b.Fatalf("found %d kustomizations, want 4000", len(found))
		}
	}
}

// BenchmarkKustomizationTexts scans the monorepo's 4,000 kustomization
// texts and looks up who uses one base and its overlay, as a run that
// names one file of the base does.
func BenchmarkKustomizationTexts(b *testing.B) {
	root := monorepo(b)
	found, charts := kustomizationFolders(root, 2, true)
	base := filepath.Join(root, "apps", "app-0100", "base")
	prod := filepath.Join(root, "apps", "app-0100", "prod")
	for b.Loop() {
		var users []string
		for _, k := range found {
			t := readKustText(k, root, charts)
			if t.mayName(base) || t.mayName(prod) {
				users = append(users, t.dir)
			}
		}
		if !slices.Equal(users, []string{prod}) {
			b.Fatalf("users of %s: %q", base, users)
		}
	}
}

// monorepo writes the tree of hack/bench.sh's monorepo, webhooks aside.
func monorepo(b *testing.B) string {
	root := b.TempDir()
	for i := range 2000 {
		app := filepath.Join(root, "apps", fmt.Sprintf("app-%04d", i))
		files := map[string]string{
			"base/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: app\nresources:\n- app.yaml\n",
			"base/app.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
			"prod/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../base\n" +
				"patches:\n- target: {kind: Deployment, name: app}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n",
		}
		testkit.WriteTree(b, app, files)
	}
	return root
}

// joinsTo and joinPath answer as filepath.Join does, plain or not.
func FuzzJoinsTo(f *testing.F) {
	for _, seed := range [][2]string{
		{"/r/apps/a/prod", "../base"}, {"/r/apps/a/prod", "../../b/base"}, {"/r", "../x"}, {"/r", "../../x"},
		{"/", "x"}, {"/r/", "x"}, {"r/a", "x"}, {"/r/a", "./x"}, {"/r/a", "x/../y"}, {"/r/a", "x//y"},
		{"/r/a", "x/"}, {"/r/a", ""}, {"/r/a", ".."}, {"/r/a", "../"}, {"/r/a", "/abs"}, {"/r/a", "../.x/y"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, dir, rel string) {
		if dir == "" || dir != filepath.Clean(dir) || !filepath.IsAbs(dir) {
			t.Skip("dir is a clean absolute path")
		}
		want := filepath.Join(dir, rel)
		if got := joinPath(dir, rel); got != want {
			t.Errorf("joinPath(%q, %q) = %q, want %q", dir, rel, got, want)
		}
		for _, target := range []string{want, want + "x", filepath.Dir(want), "/" + rel, dir + "/" + rel} {
			if got := joinsTo(dir, rel, target); got != (want == target) {
				t.Errorf("joinsTo(%q, %q, %q) = %v, want %v", dir, rel, target, got, want == target)
			}
		}
	})
}

// A walk's answer, as the discovery index stores it, decodes to what was
// encoded (a text not read apart from an empty one, a text's scan kept
// apart from none), and any part of it cut short to nothing.
func TestWalkRoundTrip(t *testing.T) {
	found := []kustFolder{
		{dir: "/repo/a", file: "/repo/a/kustomization.yaml", text: []byte("resources: [x.yaml]\n")},
		{dir: "/repo/b", file: "/repo/b/Kustomization", text: []byte{}},
		{dir: "/repo/c"},
		{dir: "/repo/d", file: "/repo/d/kustomization.yaml", text: []byte("resources: [../x/.., ../../out]\n"),
			scan: &kustScan{dotTargets: []string{"/repo"}, leaving: []string{"/out"}}},
		{dir: "/repo/e", file: "/repo/e/kustomization.yaml", text: []byte("resources: [\"\\x\"]\n"), scan: &kustScan{escape: true}},
		{dir: "/repo/f", file: "/repo/f/kustomization.yaml", text: []byte("resources: [x.yaml]\n"), scan: &kustScan{}},
	}
	charts := []string{"/repo/chart", "/repo/other"}
	data := encodeWalk(found, charts)
	gotFound, gotCharts, ok := decodeWalk(data)
	if !ok || !reflect.DeepEqual(gotFound, found) || !slices.Equal(gotCharts, charts) {
		t.Fatalf("decoded %+v %q %v, want %+v %q", gotFound, gotCharts, ok, found, charts)
	}
	for i := range data {
		if f, c, ok := decodeWalk(data[:i]); ok {
			t.Errorf("%d of %d bytes decode to %+v %q", i, len(data), f, c)
		}
	}
}

// The scan the discovery index keeps reads a text as a scan at use does,
// but whether a path that leaves the walk is a folder is looked at on
// every use: a folder made outside the scope after the index was written,
// where a kustomization of it leads, makes the text unwalked.
func TestKeptScanIsTheScan(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "repo")
	kdir := filepath.Join(root, "a", "b")
	for _, text := range []string{
		"resources:\n- ../x/..\n- ..\n- ../../../outside\n", "resources:\n- \"..\\/c\"\n", "resources:\n- ../c\n", "",
	} {
		k := kustFolder{dir: kdir, file: kdir + "/kustomization.yaml", text: []byte(text)}
		s := scanKustText(k.dir, k.text, root, nil)
		kept := k
		kept.scan = &s
		decoded, _, ok := decodeWalk(encodeWalk([]kustFolder{kept}, nil))
		if !ok {
			t.Fatalf("%q: the index does not decode", text)
		}
		for _, when := range []string{"before", "after"} {
			if when == "after" {
				if err := os.MkdirAll(filepath.Join(top, "outside"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			want := readKustText(k, root, nil)
			if got := readKustText(decoded[0], root, nil); !reflect.DeepEqual(got, want) {
				t.Errorf("%q, %s the folder outside was made: kept %+v, scanned %+v", text, when, got, want)
			}
			if strings.Contains(text, "outside") && want.unwalked != (when == "after") {
				t.Errorf("%q, %s the folder outside was made: unwalked %v", text, when, want.unwalked)
			}
		}
		if err := os.RemoveAll(filepath.Join(top, "outside")); err != nil {
			t.Fatal(err)
		}
	}
}
