package source

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

// A unit's result comes back from the cache as it went in, its findings
// in several messages or none.
func TestStoredResultRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, resultBatch, resultBatch + 1, 3*resultBatch + 7} {
		in := &unitResult{failed: n%2 == 1, base: true, configs: n, policies: 2, crds: 3, chart: "c"}
		for i := range n {
			in.diags = append(in.diags, diag.Diagnostic{
				Span:     diag.Span{File: "f.yaml", Line: i + 1, Column: 3},
				Severity: diag.Severity(i % 3), Rule: "rule", Message: fmt.Sprintf("finding %d", i),
				Path: "webhooks[0]", Object: &diag.Object{Kind: "K", Name: "n"},
				DependsOnOverlay: i%5 == 0, Units: []string{"u"},
			})
		}
		data, ok := encodeResult(in)
		if !ok {
			t.Fatalf("%d findings: not encoded", n)
		}
		out, ok := decodeResult(data)
		if !ok {
			t.Fatalf("%d findings: not decoded", n)
		}
		if !reflect.DeepEqual(out, in) {
			t.Errorf("%d findings: came back changed", n)
		}
		if n > 0 {
			if _, ok := decodeResult(data[:len(data)-1]); ok {
				t.Errorf("%d findings: a truncated entry was decoded", n)
			}
		}
	}
}
