package kustomize

import (
	"bytes"
	"encoding/json"
	"strconv"

	yamlv2 "go.yaml.in/yaml/v2"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/internal/lazy"
)

// printYAML is sigsyaml.JSONToYAML(j), what Resource.AsYAML prints an
// object's JSON as, with the JSON decoded by encoding/json rather than
// read as YAML by yaml.v2: reading it as YAML was 4% of a monorepo run's
// CPU, a third of printing. The values are those yaml.v2 reads (a JSON
// string is a quoted scalar, a string; a number is a plain scalar,
// resolved as yaml.v2 resolves one), and yaml.v2 encodes them, so the
// text is the same. JSON yaml.v2 might read otherwise (a key past YAML's
// 1,024-character limit on simple keys, deep nesting, trailing data) is
// read by JSONToYAML itself.
func printYAML(j []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return sigsyaml.JSONToYAML(j)
	}
	v, ok := asYAMLv2(v, 0)
	if !ok {
		return sigsyaml.JSONToYAML(j)
	}
	return yamlv2.Marshal(v)
}

// asYAMLv2 replaces, in place, each number of a decoded JSON value by the
// value yaml.v2 resolves its text to; ok is false for what printYAML
// leaves to yaml.v2.
func asYAMLv2(v any, depth int) (any, bool) {
	if depth > 1000 {
		return nil, false
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if len(k) > 1000 {
				return nil, false
			}
			r, ok := asYAMLv2(e, depth+1)
			if !ok {
				return nil, false
			}
			v[k] = r
		}
	case []any:
		for i, e := range v {
			r, ok := asYAMLv2(e, depth+1)
			if !ok {
				return nil, false
			}
			v[i] = r
		}
	case json.Number:
		return resolveNumber(string(v)), true
	}
	return v, true
}

// yamlStyleFloat is yaml.v2's own (resolve.go).
var yamlStyleFloat = lazy.Regexp(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// resolveNumber is yaml.v2's resolve of a plain scalar for the text of a
// JSON number (digits, a sign, a point, an exponent: never a timestamp,
// an underscore, a base prefix or a word of its table): an int when it
// fits, else an int64, a uint64, a float64, or the text itself.
func resolveNumber(s string) any {
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		if i == int64(int(i)) {
			return int(i)
		}
		return i
	}
	if u, err := strconv.ParseUint(s, 0, 64); err == nil {
		return u
	}
	if yamlStyleFloat().MatchString(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return s
}
