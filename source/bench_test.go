package source_test

import (
	"testing"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/source"
)

// BenchmarkKubebuilderTree is one kustomize build of config/default plus
// linting and mapping every finding back.
func BenchmarkKubebuilderTree(b *testing.B) {
	for b.Loop() {
		if _, err := source.Lint([]string{kubebuilderDir}, nil, "", lint.Options{Jobs: 1}, source.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHelmChart is one render of the test chart plus linting.
func BenchmarkHelmChart(b *testing.B) {
	for b.Loop() {
		if _, err := source.Lint(nil, nil, "", lint.Options{Jobs: 1}, source.Options{Charts: []string{chartDir}}); err != nil {
			b.Fatal(err)
		}
	}
}
