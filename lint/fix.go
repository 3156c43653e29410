package lint

import (
	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// fixable is a diagnostic of a document (its index in the document's
// list) whose finding carries fixes.
type fixable struct {
	at    int
	rule  string
	fixes []rules.FieldFix
}

// attachFixes turns the rules' fixes into text edits of d's file, reading
// its text once for all of them, and puts those that can be made on their
// diagnostics with the applicability the rule declares. edits, when not
// nil, makes the text edits instead (Unit.Edits).
func attachFixes(d *manifest.Document, ds []diag.Diagnostic, pending []fixable, edits func(*manifest.Document, []rules.FieldFix) [][]diag.Edit) {
	if len(pending) == 0 {
		return
	}
	var all []rules.FieldFix
	for _, p := range pending {
		all = append(all, p.fixes...)
	}
	var made [][]diag.Edit
	if edits != nil {
		made = edits(d, all)
	} else {
		made = d.TextEdits(all)
	}
	k := 0
	for _, p := range pending {
		r, _ := rules.Lookup(p.rule)
		for _, ff := range p.fixes {
			es := made[k]
			k++
			if es == nil || r == nil {
				continue
			}
			doc, ok := r.Fix(ff.Fix)
			if !ok {
				continue // a fix the rule does not declare is never offered
			}
			msg := ff.Message
			if msg == "" {
				msg = doc.Title
			}
			ds[p.at].Fixes = append(ds[p.at].Fixes, diag.Fix{Message: msg, Applicability: doc.Applicability, Edits: es})
		}
	}
}
