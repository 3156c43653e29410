package source

import (
	"io"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// lintFile lints a loose file on its own: unrendered templates are
// recognized, and partial objects (kustomize patches) are checked only for
// what they state.
func lintFile(s manifest.Source, stdin io.Reader, lo lint.Options, patches *kustomize.PatchIndex) *unitResult {
	l := loadLoose(s, stdin, lo.Workers(), patches, true)
	r := lintLoose([]*looseFile{l}, false, lo)
	if s.Stdin {
		r.stdin = l.data // the report shows snippets from it
	}
	return r
}
