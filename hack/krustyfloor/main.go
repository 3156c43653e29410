//go:build devtools

// Command krustyfloor is the floor hack/bench.sh compares webhooklint's
// kustomize builds to: it finds every root kustomization under its
// arguments (one no other kustomization there uses as a base, component
// or resource folder) and builds each once, in one process on one core,
// with kustomize's own krusty API and its default options, printing the
// YAML `kustomize build` would print — what any tool that reads a
// GitOps repository as deployed pays before it looks at anything.
//
// It builds only with -tags devtools: `go install ./...`, which pre-commit's
// golang hook runs, then installs webhooklint and webhookvet alone.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"
)

func main() {
	runtime.GOMAXPROCS(1)
	var dirs []string
	used := map[string]bool{}
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !slices.Contains(konfig.RecognizedKustomizationFileNames(), e.Name()) {
				return err
			}
			dir, err := filepath.Abs(filepath.Dir(p))
			if err != nil {
				return err
			}
			dirs = append(dirs, dir)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var k types.Kustomization
			if err := sigsyaml.Unmarshal(data, &k); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			for _, r := range append(append(k.Resources, k.Bases...), k.Components...) { //nolint:staticcheck // Bases is what older kustomizations use
				used[filepath.Clean(filepath.Join(dir, r))] = true
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "krustyfloor:", err)
			os.Exit(1)
		}
	}
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	fsys := filesys.MakeFsOnDisk()
	roots, bytes := 0, 0
	for _, dir := range dirs {
		if used[dir] {
			continue
		}
		m, err := k.Run(fsys, dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "krustyfloor:", dir+":", err)
			os.Exit(1)
		}
		y, err := m.AsYaml()
		if err != nil {
			fmt.Fprintln(os.Stderr, "krustyfloor:", dir+":", err)
			os.Exit(1)
		}
		roots++
		bytes += len(y)
	}
	fmt.Println(roots, "roots,", bytes, "bytes of YAML")
}
