package kustomize

import (
	"slices"
	"strings"
)

// deriveOrigins gives each object of a build made without kustomize's
// origin annotations the resource file it came from, matching objects to
// the documents of the tree's resource files: kustomize builds each
// document into one object of its kind and its name or that name with a
// prefix or suffix (runAs builds so only a tree with nothing else,
// kust.fromResources). An object is its document's when that is the only
// one of its kind whose name its own holds, once the objects matched
// before have taken theirs. It reports false, setting nothing, unless
// every object and every document are matched one to one: a list
// (kustomize makes each item an object), a document without a kind or a
// name, an object dropped ($patch: delete, local-config), a file read
// twice (two bases of one file) or names that leave two candidates each
// leave it to the annotations. The documents read are kept for locating.
func (b *Build) deriveOrigins(objs []*Object) bool {
	resources, _, _ := b.tree.files()
	files := make([]string, 0, len(resources))
	for f := range resources {
		files = append(files, f)
	}
	slices.Sort(files)
	byKind := map[string][]*originDoc{}
	n := 0
	for _, f := range files {
		docs, ok := scanDocs(f)
		if !ok {
			return false
		}
		for _, d := range docs {
			if d.kind == "" || d.name == "" || strings.HasSuffix(d.kind, "List") {
				return false
			}
			byKind[d.kind] = append(byKind[d.kind], d)
		}
		n += len(docs)
		b.cache[f] = docs
	}
	if n != len(objs) {
		return false
	}
	// An object whose candidates left are one is that one's: its own is
	// among them, and no other object's. A few rounds settle any tree
	// but one built to defeat them.
	from := make([]*originDoc, len(objs))
	taken := make(map[*originDoc]bool, n)
	for round := 0; len(taken) < len(objs); round++ {
		before := len(taken)
		for i, o := range objs {
			if from[i] == nil {
				if d := only(byKind[o.Kind], taken, o.Name); d != nil {
					from[i], taken[d] = d, true
				}
			}
		}
		if len(taken) == before || (round == maxRounds && len(taken) < len(objs)) {
			return false
		}
	}
	for i, o := range objs {
		o.Origin = from[i].file
	}
	return true
}

// maxRounds bounds deriveOrigins' work: each round compares every
// object left with every document of its kind.
const maxRounds = 8

// only is the one document of docs not taken whose name name holds, or
// nil.
func only(docs []*originDoc, taken map[*originDoc]bool, name string) *originDoc {
	var one *originDoc
	for _, d := range docs {
		if !taken[d] && strings.Contains(name, d.name) {
			if one != nil {
				return nil
			}
			one = d
		}
	}
	return one
}
