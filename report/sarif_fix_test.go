package report

import (
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

func TestSARIFFixesGroupEditsByFile(t *testing.T) {
	fixes := sarifFixes([]diag.Fix{{
		Message: "list v1 first", Applicability: diag.Safe,
		Edits: []diag.Edit{
			{File: "/base/a.yaml", Offset: 3, EndOffset: 7, NewText: "v1"},
			{File: "/base/a.yaml", Offset: 9, EndOffset: 11, NewText: "v1beta1"},
			{File: "/base/b.yaml", Offset: 0, EndOffset: 5},
		},
	}}, "/base")
	if len(fixes) != 1 || len(fixes[0].ArtifactChanges) != 2 {
		t.Fatalf("got %+v", fixes)
	}
	a, b := fixes[0].ArtifactChanges[0], fixes[0].ArtifactChanges[1]
	if a.ArtifactLocation.URI != "a.yaml" || len(a.Replacements) != 2 || a.Replacements[1].DeletedRegion != (sarifByteRegion{9, 2}) ||
		a.Replacements[1].InsertedContent.Text != "v1beta1" {
		t.Errorf("first file: %+v", a)
	}
	if b.ArtifactLocation.URI != "b.yaml" || b.Replacements[0].InsertedContent != nil || fixes[0].Properties.Applicability != diag.Safe {
		t.Errorf("second file (a deletion): %+v", b)
	}
}
