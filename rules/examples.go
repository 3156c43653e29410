package rules

import (
	"embed"
	"io/fs"
	"sync"
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

// Examples are a rule's Bad and Good examples.
type Examples struct {
	Bad  string // an example that triggers the rule: examples/<rule>/bad.yaml
	Good string // the same example, fixed: examples/<rule>/good.yaml
	// Lang is the language Bad and Good are written in, for the docs'
	// code fences: yaml, or console for a file listing.
	Lang string
	// Fragment marks Bad and Good as excerpts of a manifest (a webhook's
	// fields alone), which cannot be linted on their own.
	Fragment bool
}

// Examples returns a registered rule's examples from its folder of
// examples; a rule without one, or not registered, has those its Doc
// gives.
func (r *Rule) Examples() Examples {
	if e, ok := folderExamples()[r.Name]; ok && r.registered {
		return e
	}
	return Examples{Bad: r.Doc.Bad, Good: r.Doc.Good, Lang: r.Doc.ExampleLang, Fragment: r.Doc.Fragment}
}

// folderExamples reads every folder of examples, by rule name, when the
// first is shown: only the docs, --explain and SARIF's rule help show
// them, so a lint does not read them while the program starts.
var folderExamples = sync.OnceValue(func() map[string]Examples {
	folders, err := fs.ReadDir(examples, "examples")
	if err != nil {
		panic("rules: " + err.Error())
	}
	byName := make(map[string]Examples, len(folders))
	for _, f := range folders {
		if e, ok := loadExamples(f.Name()); ok {
			byName[f.Name()] = e
		}
	}
	return byName
})

// loadExamples reads the folder of examples of the rule name; false when
// it holds none.
func loadExamples(name string) (Examples, bool) {
	for _, k := range exampleKinds {
		bad, errBad := fs.ReadFile(examples, "examples/"+name+"/bad"+k.ext)
		good, errGood := fs.ReadFile(examples, "examples/"+name+"/good"+k.ext)
		if errBad != nil && errGood != nil {
			continue
		}
		if errBad != nil || errGood != nil {
			panic("rules: " + name + " has only one of bad" + k.ext + " and good" + k.ext)
		}
		return Examples{Bad: string(bad), Good: string(good), Lang: k.lang, Fragment: k.fragment}, true
	}
	return Examples{}, false
}
