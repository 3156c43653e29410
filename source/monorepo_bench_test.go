package source_test

import (
	"testing"

	"github.com/webhooklint/webhooklint/internal/workload"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/source"
)

// BenchmarkMonorepo lints hack/bench.sh's GitOps monorepo whole (at ×1,
// 250 apps: a build of each prod overlay, located), as the command line
// does without the cache.
func BenchmarkMonorepo(b *testing.B) {
	dir := b.TempDir()
	if err := workload.Monorepo(dir, workload.All[3].Base); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := source.Lint([]string{dir}, nil, "", lint.Options{}, source.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
