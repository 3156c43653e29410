package source

import (
	"slices"

	"github.com/webhooklint/webhooklint/diag"
)

// displayFixes names the files of a finding's fix edits as the finding's
// own file is named (as given on the command line), so that a reader of
// the JSON output or --diff sees one name for one file.
func displayFixes(fixes []diag.Fix, req *request) []diag.Fix {
	fixes = slices.Clone(fixes)
	for i := range fixes {
		edits := slices.Clone(fixes[i].Edits)
		for j := range edits {
			abs := absPath(edits[j].File)
			if name, ok := req.display(abs); ok {
				edits[j].File = name
			} else {
				edits[j].File = req.name(abs)
			}
		}
		fixes[i].Edits = edits
	}
	return fixes
}
