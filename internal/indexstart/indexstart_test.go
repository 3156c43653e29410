package indexstart

import (
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/testkit"
)

// The guess is the repository of the first path that exists, else of the
// working folder, in the cache folder the flags or the environment name;
// nothing for another command, a flag that exits, or the cache off.
func TestGuess(t *testing.T) {
	repo := testkit.Repo(t, map[string]string{
		"apps/a/base/app.yaml":           "kind: ConfigMap\n",
		"apps/a/base/kustomization.yaml": "resources: [app.yaml]\n",
	})
	outside := testkit.Tree(t, map[string]string{"loose.yaml": "kind: ConfigMap\n"})
	t.Chdir(repo)
	t.Setenv(cache.EnvVar, "/env/cache")
	file := filepath.Join(repo, "apps/a/base/app.yaml")
	for _, c := range []struct {
		args      []string
		dir, root string // "" for no guess
	}{
		{[]string{"--format", "counts", "apps/a/base/app.yaml"}, "/env/cache", repo},
		{[]string{file}, "/env/cache", repo},
		{[]string{"--cache-dir", "/flag/cache", "apps/a/base"}, "/flag/cache", repo},
		{[]string{"apps/a/base/app.yaml", "--cache-dir=/flag/cache"}, "/flag/cache", repo},
		{[]string{"--", "--cache-dir", "apps/a"}, "/env/cache", repo},
		{nil, "/env/cache", repo},
		{[]string{"no-such-file.yaml", "apps"}, "/env/cache", repo},
		{[]string{filepath.Join(outside, "loose.yaml")}, "", ""}, // no repository above it
		{[]string{"--no-cache", "apps"}, "", ""},
		{[]string{"--version"}, "", ""},
		{[]string{"--explain=timeout-too-long"}, "", ""},
		{[]string{"server"}, "", ""},
		{[]string{"simulate", "--operation", "CREATE", "apps"}, "", ""},
	} {
		dir, root, ok := guess(c.args)
		if !ok {
			dir, root = "", ""
		}
		if dir != c.dir || root != c.root {
			t.Errorf("guess(%q) = %q, %q; want %q, %q", c.args, dir, root, c.dir, c.root)
		}
	}
	t.Setenv(cache.EnvVar, "off")
	if _, _, ok := guess([]string{"apps"}); ok {
		t.Errorf("guess with %s=off: a prefetch", cache.EnvVar)
	}
}
