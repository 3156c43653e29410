package kustomize

import (
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
)

// mergeKeyed lists the admissionregistration lists that strategic merge
// patches merge by element name (patchMergeKey "name" in k8s.io/api);
// every other list in these kinds is replaced whole.
var mergeKeyed = map[string]bool{"webhooks": true, "matchConditions": true}

// table maps path keys to where they are written in one YAML document.
// List elements of merge-keyed lists are recorded twice: by index
// (webhooks[0]) and by name (webhooks[name=a.b.c]), so a path from the
// rendered object can be matched by name even when indices moved.
type table struct {
	file  string
	at    map[string]diag.Span
	keys  map[string]diag.Span // where the mapping key of a field is written
	whole map[string]bool      // paths whose subtree is replaced, not merged
}

func newTable(file string) *table {
	return &table{file: file, at: map[string]diag.Span{}, keys: map[string]diag.Span{}, whole: map[string]bool{}}
}

func (t *table) pos(key, val *yaml.Node) diag.Span {
	n := val
	if key != nil {
		n = key
	}
	p := diag.Point(t.file, n.Line, n.Column)
	if n.Kind == yaml.ScalarNode {
		w := utf8.RuneCountInString(n.Value)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			w += 2
		}
		if !strings.Contains(n.Value, "\n") && w > 0 {
			p.EndColumn = n.Column + w
		}
	}
	return p
}

// record walks n (the value at prefix) and every node below it. keyNode
// is the mapping key that introduced n, if any: findings on a field point
// at its key line, like the loader's index for missing children.
func (t *table) record(prefix string, keyNode, n *yaml.Node, depth int) {
	if n == nil || depth > 64 {
		return
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if prefix != "" {
		// A scalar is reported where its value is written; a mapping or
		// list where its key is, as the loader does for whole objects.
		if keyNode != nil {
			t.keys[prefix] = t.pos(keyNode, nil)
		}
		if keyNode != nil && n.Kind != yaml.ScalarNode {
			t.at[prefix] = t.pos(keyNode, nil)
		} else {
			t.at[prefix] = t.pos(nil, n)
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$patch" && v.Value == "replace" {
				t.whole[prefix] = true
				continue
			}
			if strings.HasPrefix(k.Value, "$") {
				continue // other strategic-merge directives
			}
			t.record(join(prefix, k.Value), k, v, depth+1)
		}
	case yaml.SequenceNode:
		field := lastKey(prefix)
		if !mergeKeyed[field] {
			t.whole[prefix] = true
		}
		for i, e := range n.Content {
			ip := fieldpath.Index(prefix, i)
			t.record(ip, nil, e, depth+1)
			if mergeKeyed[field] {
				if name := mapValue(e, "name"); name != "" {
					t.record(fieldpath.Key(prefix, "name="+name), nil, e, depth+1)
				}
			}
		}
	default:
		if prefix != "" {
			t.whole[prefix] = true
		}
	}
}

// join is the path of key below prefix, bracketed where the key holds a
// separator, so that a path cuts back into the same steps.
func join(prefix, key string) string {
	if prefix != "" && strings.ContainsAny(key, ".[]") {
		return fieldpath.Key(prefix, key)
	}
	return fieldpath.Field(prefix, key)
}

func lastKey(p string) string {
	s := fieldpath.Split(p)
	if len(s) == 0 || s[len(s)-1].Index >= 0 {
		return ""
	}
	return s[len(s)-1].Key
}

// mapValue is the scalar value of key in mapping n.
func mapValue(n *yaml.Node, key string) string {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// mapNode is the value node of key in mapping n.
func mapNode(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// candidates turns a field path of the rendered object into the keys a
// table may hold for it, most specific first: each merge-keyed list
// index is also tried as its element's name in the rendered object.
func candidates(path string, rendered map[string]any) []string {
	steps := fieldpath.Split(path)
	byIndex, byName := "", ""
	var cur any = rendered
	for _, s := range steps {
		if s.Index >= 0 {
			idx := "[" + strconv.Itoa(s.Index) + "]"
			named := idx
			list, _ := cur.([]any)
			if s.Index < len(list) {
				cur = list[s.Index]
				if m, ok := cur.(map[string]any); ok && mergeKeyed[lastKey(byIndex)] {
					if name, ok := m["name"].(string); ok && name != "" {
						named = "[name=" + name + "]"
					}
				}
			} else {
				cur = nil
			}
			byIndex += idx
			byName += named
			continue
		}
		byIndex = join(byIndex, s.Key)
		byName = join(byName, s.Key)
		m, _ := cur.(map[string]any)
		cur = m[s.Key]
	}
	if byName != byIndex {
		return []string{byName, byIndex}
	}
	return []string{byIndex}
}

// identity lists the fields by which a strategic-merge patch names the
// object it patches: they select the object, they do not set it, so a
// finding on them (a missing PodDisruptionBudget, reported at the
// workload's name) belongs to the object's own document, not to each
// patch that names it.
var identity = []string{"apiVersion", "kind", "metadata.name", "metadata.namespace"}

// forget drops paths from the table: the document writes them, but does
// not decide them.
func (t *table) forget(paths ...string) {
	for _, p := range paths {
		delete(t.at, p)
		delete(t.keys, p)
		delete(t.whole, p)
	}
}

// lookup finds the deepest written prefix of path (the path itself when
// exact). owned reports whether the table's document decides the value at
// path: it writes the path itself (other than a merge-keyed list element,
// which merges), or a prefix of it that replaces its whole subtree (a
// scalar, a list without merge key, a JSON6902 value, $patch: replace).
func (t *table) lookup(path string, rendered map[string]any) (p diag.Span, exact, owned, ok bool) {
	for _, c := range candidates(path, rendered) {
		for q, first := c, true; q != ""; q, first = parent(q), false {
			at, found := t.at[q]
			if !found {
				continue
			}
			owned = t.whole[q]
			if first && !strings.HasSuffix(q, "]") {
				owned = true
			}
			for a := parent(q); a != "" && !owned; a = parent(a) {
				owned = t.whole[a]
			}
			return at, first, owned, true
		}
	}
	return diag.Span{}, false, false, false
}

// parent strips the last step of a path key.
func parent(p string) string {
	if strings.HasSuffix(p, "]") {
		depth := 0
		for i := len(p) - 1; i >= 0; i-- {
			switch p[i] {
			case ']':
				depth++
			case '[':
				depth--
				if depth == 0 {
					return p[:i]
				}
			}
		}
		return ""
	}
	if i := strings.LastIndexAny(p, ".]"); i >= 0 {
		if p[i] == ']' {
			return p[:i+1]
		}
		return p[:i]
	}
	return ""
}

// keyOf is where the key of an exactly written field is.
func (t *table) keyOf(path string, rendered map[string]any) (diag.Span, bool) {
	for _, c := range candidates(path, rendered) {
		if k, ok := t.keys[c]; ok {
			return k, true
		}
	}
	return diag.Span{}, false
}
