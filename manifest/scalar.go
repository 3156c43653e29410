package manifest

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

type scalarTag int

const (
	tagStr scalarTag = iota
	tagInt
	tagFloat
	tagBool
	tagNull
	tagOther
)

// yaml11Bools are the plain scalars YAML 1.1 reads as booleans. The API
// server converts YAML to JSON with a YAML 1.1 parser, so `sideEffects: no`
// arrives as false, not as the string "no"; webhooklint must see the same.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"true": true, "True": true, "TRUE": true,
	"false": false, "False": false, "FALSE": false,
	"on": true, "On": true, "ON": true,
	"off": false, "Off": false, "OFF": false,
}

// maxYAML11Bool is the length of the longest key of yaml11Bools: longer
// scalars (most of them) skip hashing the map.
const maxYAML11Bool = 5

// resolvedTag is the JSON type a scalar node becomes on the server.
func resolvedTag(n *yaml.Node) scalarTag {
	if n.Kind != yaml.ScalarNode {
		return tagOther
	}
	plain := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) == 0
	if plain && len(n.Value) <= maxYAML11Bool {
		if _, ok := yaml11Bools[n.Value]; ok {
			return tagBool
		}
	}
	switch n.ShortTag() {
	case "!!str", "!!binary", "!!timestamp":
		return tagStr
	case "!!int":
		return tagInt
	case "!!float":
		return tagFloat
	case "!!bool":
		return tagBool
	case "!!null":
		return tagNull
	}
	return tagOther
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && resolvedTag(n) == tagNull
}

// scalar returns the node's text if it resolves to the wanted JSON type.
func (d *decoder) scalar(n *yaml.Node, want scalarTag) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, resolvedTag(n) == want
}

func parseBool(s string) (bool, bool) {
	b, ok := yaml11Bools[s]
	return b, ok
}

func parseInt(s string) (int64, error) {
	s = strings.ReplaceAll(s, "_", "")
	if strings.HasPrefix(s, "0o") || strings.HasPrefix(s, "+0o") || strings.HasPrefix(s, "-0o") {
		return strconv.ParseInt(strings.Replace(s, "0o", "", 1), 8, 64)
	}
	return strconv.ParseInt(s, 0, 64)
}

// describe names a node's JSON type for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "object"
	case yaml.SequenceNode:
		return "array"
	case yaml.ScalarNode:
		switch resolvedTag(n) {
		case tagStr:
			return "string " + strconv.Quote(n.Value)
		case tagInt, tagFloat:
			return "number " + n.Value
		case tagBool:
			return "boolean " + n.Value
		case tagNull:
			return "null"
		}
		return "value " + strconv.Quote(n.Value)
	}
	return "value"
}
