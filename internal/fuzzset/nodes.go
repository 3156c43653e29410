package fuzzset

import "go.yaml.in/yaml/v3"

// root is a document's top mapping.
func root(doc *yaml.Node) *yaml.Node { return doc.Content[0] }

// get follows keys through mappings; nil where one is missing.
func get(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// set writes key: v in mapping m, in place if written, else last.
func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, str(key), v)
}

// del removes key from mapping m.
func del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
			return
		}
	}
}

func webhooks(doc *yaml.Node) []*yaml.Node {
	if l := get(root(doc), "webhooks"); l != nil && l.Kind == yaml.SequenceNode {
		return l.Content
	}
	return nil
}

func setName(doc *yaml.Node, name string) {
	n := get(root(doc), "metadata", "name")
	n.Value, n.Tag, n.Style = name, "!!str", 0
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func num(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s} }

func strs(ss ...string) *yaml.Node {
	l := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range ss {
		l.Content = append(l.Content, str(s))
	}
	return l
}

func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		v, ok := kv[i+1].(*yaml.Node)
		if !ok {
			v = str(kv[i+1].(string))
		}
		m.Content = append(m.Content, str(kv[i].(string)), v)
	}
	return m
}

// walk calls f on every node below n, keys included, in order.
func walk(n *yaml.Node, f func(*yaml.Node)) {
	f(n)
	for _, c := range n.Content {
		walk(c, f)
	}
}
