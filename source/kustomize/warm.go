package kustomize

import (
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Warm builds a small kustomization in memory, once per process. The
// first build of a process sets kustomize up: it parses its default
// transformer configuration from YAML and builds the JSON codecs of its
// types, 3 to 5 ms. A run that names one file of a monorepo waits for
// that after its walk, unless Warm ran meanwhile (source.Lint starts it).
func Warm() {
	warmOnce.Do(func() {
		fs := filesys.MakeFsInMemory()
		_ = fs.WriteFile("/warm/kustomization.yaml", []byte("resources:\n- cm.yaml\nnamespace: warm\n"))
		_ = fs.WriteFile("/warm/cm.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: warm\n"))
		defer lockSchema(false)()
		_, _ = krusty.MakeKustomizer(buildOptions()).Run(fs, "/warm")
	})
}

var warmOnce sync.Once
