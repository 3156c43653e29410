// Package fuzzset generates the fuzz differential set
// (testdata/conformance/fuzz): webhook configurations the API server
// accepts, each changed in one or two ways the fixable rules fix (or
// others), written in block, flow or JSON style with comments and odd
// quoting. The real kube-apiserver's verdict on each document is recorded
// next to the set (hack/record-conformance.sh), so the lint package's
// differential test and the fix package's fix checks run on it without a
// server.
//
// The set is generated, not written by hand, and checked in so a reviewer
// sees what the server judged: the package's test regenerates it and
// checks the bytes are the same (go test ./internal/fuzzset -update
// rewrites it; re-record the verdicts after).
package fuzzset

import (
	"bytes"
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"
)

// Styles are the set's files, one per style, in this order.
var Styles = []string{"block", "flow", "json"}

// perFile is how many documents each file has.
const perFile = 100

// seedOf is the generator's seed: the set changes only when the code or
// the seeds do.
const seedOf = 39

// Generate returns the set's files by name (fuzz-STYLE.yaml), made from
// the seeds under the conformance folder dir.
func Generate(dir string) (map[string][]byte, error) {
	seeds, err := loadSeeds(dir)
	if err != nil {
		return nil, err
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no seeds in %s", dir)
	}
	out := map[string][]byte{}
	for i, style := range Styles {
		r := &rng{s: seedOf + uint64(i)}
		var b bytes.Buffer
		for n := 1; n <= perFile; n++ {
			s := seeds[r.intn(len(seeds))]
			doc := clone(s.doc)
			name := fmt.Sprintf("fuzz-%s-%03d", style, n)
			labels := mutate(r, doc)
			setName(doc, name)
			head := fmt.Sprintf("%s from %s: %s", name, s.name, joinLabels(labels))
			if n > 1 {
				b.WriteString("---\n")
			}
			text, err := render(r, style, doc, head)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			b.Write(text)
		}
		out["fuzz-"+style+".yaml"] = b.Bytes()
	}
	return out, nil
}

// rng is splitmix64: its sequence is fixed by its definition, whatever Go
// version builds the generator.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// chance is true about once in n calls.
func (r *rng) chance(n int) bool { return r.intn(n) == 0 }

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

func joinLabels(labels []string) string {
	var b bytes.Buffer
	for i, l := range labels {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(l)
	}
	return b.String()
}

// clone copies a node tree deeply.
func clone(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = clone(k)
	}
	return &c
}

// sortedKeys is m's keys in order, for a deterministic walk.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
