package fuzzset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// render writes a document in a style, head as its first comment.
func render(r *rng, style string, doc *yaml.Node, head string) ([]byte, error) {
	doc.HeadComment, doc.LineComment, doc.FootComment = "", "", ""
	if m := root(doc); len(m.Content) > 0 {
		m.HeadComment, m.Content[0].HeadComment = "", ""
	}
	switch style {
	case "json":
		var b bytes.Buffer
		b.WriteString("# " + head + "\n")
		indent := ""
		if r.chance(2) {
			indent = "  "
		}
		writeJSON(&b, r, root(doc), indent, "")
		b.WriteString("\n")
		return b.Bytes(), nil
	case "flow":
		flowParts(r, doc)
	}
	quote(r, doc, style == "block")
	doc.HeadComment = "# " + head
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if r.chance(2) {
		enc.CompactSeqIndent() // "- " at the key's indentation, as kubebuilder writes
	}
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// flowParts writes some of the document in flow style: the whole
// document, each webhook, or the lists and small mappings inside them.
func flowParts(r *rng, doc *yaml.Node) {
	var flow []*yaml.Node
	switch r.intn(3) {
	case 0:
		flow = []*yaml.Node{root(doc)}
	case 1:
		flow = webhooks(doc)
	default:
		for _, w := range webhooks(doc) {
			for _, k := range []string{"rules", "admissionReviewVersions", "matchConditions", "clientConfig", "namespaceSelector"} {
				if n := get(w, k); n != nil && r.chance(2) {
					flow = append(flow, n)
				}
			}
		}
	}
	for _, n := range flow {
		walk(n, func(c *yaml.Node) {
			c.Style |= yaml.FlowStyle
			// A comment inside a flow collection is written where the
			// emitter can no longer end it: keep them out.
			c.HeadComment, c.LineComment, c.FootComment = "", "", ""
		})
	}
}

// quote gives string scalars plain, single- or double-quoted style (and
// a key now and then), and with comments a line comment on some values.
func quote(r *rng, doc *yaml.Node, comments bool) {
	keys := map[*yaml.Node]bool{}
	walk(root(doc), func(n *yaml.Node) {
		if keys[n] {
			return
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				keys[k] = true
				if r.chance(12) {
					k.Style |= pick(r, []yaml.Style{yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle})
				}
				if comments && v.Kind == yaml.ScalarNode && n.Style&yaml.FlowStyle == 0 && r.chance(6) {
					v.LineComment = pick(r, []string{"# fuzz: keep this comment", "#no space", "# 'quoted' \"words\" and: colons"})
				}
			}
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || r.chance(2) {
			return
		}
		style := pick(r, []yaml.Style{0, yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle})
		n.Style = n.Style&yaml.FlowStyle | style
	})
}

// writeJSON writes a node as JSON, keys in their order; indent "" writes
// it on one line. Written on lines, it has now and then a YAML comment
// after a comma, which JSON lacks and a YAML reader takes.
func writeJSON(b *bytes.Buffer, r *rng, n *yaml.Node, indent, at string) {
	nl := func(level string) {
		if indent != "" {
			b.WriteString("\n" + level)
		}
	}
	comma := func() {
		b.WriteString(",")
		switch {
		case indent == "":
			b.WriteString(" ")
		case r.chance(20):
			b.WriteString(" # fuzz: a comment in JSON")
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				comma()
			}
			nl(at + indent)
			writeString(b, n.Content[i].Value)
			b.WriteString(": ")
			writeJSON(b, r, n.Content[i+1], indent, at+indent)
		}
		nl(at)
		b.WriteString("}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, c := range n.Content {
			if i > 0 {
				comma()
			}
			nl(at + indent)
			writeJSON(b, r, c, indent, at+indent)
		}
		nl(at)
		b.WriteString("]")
	default:
		writeJSONScalar(b, n)
	}
}

// writeJSONScalar writes a scalar in JSON: integers in decimal whatever
// base the seed wrote them in, so the server reads the same number.
func writeJSONScalar(b *bytes.Buffer, n *yaml.Node) {
	switch n.Tag {
	case "!!int":
		v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			panic(fmt.Sprintf("seed integer %q: %v", n.Value, err))
		}
		b.WriteString(strconv.FormatInt(v, 10))
	case "!!bool", "!!float":
		b.WriteString(n.Value)
	case "!!null":
		b.WriteString("null")
	default:
		writeString(b, n.Value)
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}
