// Package fieldpath splits API field paths as the API server prints them
// (webhooks[0].rules[1].operations[2], metadata.labels[app.kubernetes.io/name])
// so that front ends can walk a source document along a finding's path.
package fieldpath

import (
	"strconv"
	"strings"
)

// Step is one element of a field path: a field or map key, or a list index.
type Step struct {
	Key   string
	Index int // -1 for keys
}

// Split splits a field path into steps. A bracketed number is a list
// index; any other bracketed text is a map key (labels[app] is the key
// "app"); an unterminated bracket yields its rest as a key.
func Split(p string) []Step {
	var out []Step
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return append(out, Step{Key: p[i+1:], Index: -1})
			}
			s := p[i+1 : i+j]
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, Step{Index: n})
			} else {
				out = append(out, Step{Key: s, Index: -1})
			}
			i += j + 1
		default:
			j := strings.IndexAny(p[i:], ".[")
			if j < 0 {
				j = len(p) - i
			}
			out = append(out, Step{Key: p[i : i+j], Index: -1})
			i += j
		}
	}
	return out
}
