package rules

import (
	"embed"
	"io/fs"
)

// A rule's Bad and Good examples are files next to the rules, one folder
// per rule: examples/<rule>/bad.yaml and good.yaml (bad.txt and good.txt
// for the rules whose input is not a manifest, such as a file listing).
// They are data: the docs, --explain and SARIF show them, and the tests
// lint each one to prove the Bad one triggers its rule and the Good one
// stays clean. An excerpt of a manifest (a webhook's fields, without the
// configuration around them) is named bad.fragment.yaml and
// good.fragment.yaml: it is shown the same way, but only parsed, not
// linted.
//
//go:embed examples
var examples embed.FS

// exampleKinds are the file extensions an example may have, with the
// language its docs fence it in and whether it is a fragment.
var exampleKinds = []struct {
	ext, lang string
	fragment  bool
}{{".yaml", "yaml", false}, {".fragment.yaml", "yaml", true}, {".txt", "console", false}}

// loadExamples fills a rule's Doc.Bad, Doc.Good, ExampleLang and Fragment from
// its folder of examples. A rule without one keeps what its Doc says.
func loadExamples(r *Rule) {
	for _, k := range exampleKinds {
		bad, errBad := fs.ReadFile(examples, "examples/"+r.Name+"/bad"+k.ext)
		good, errGood := fs.ReadFile(examples, "examples/"+r.Name+"/good"+k.ext)
		if errBad != nil && errGood != nil {
			continue
		}
		if errBad != nil || errGood != nil {
			panic("rules: " + r.Name + " has only one of bad" + k.ext + " and good" + k.ext)
		}
		r.Doc.Bad, r.Doc.Good, r.Doc.ExampleLang, r.Doc.Fragment = string(bad), string(good), k.lang, k.fragment
		return
	}
}
