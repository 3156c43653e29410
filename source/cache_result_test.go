package source

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

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

// TestDecodedFindingsShareStrings decodes findings that repeat every
// string and checks, by walking every string field of the result, that
// equal strings are one string: a field added to diag.Diagnostic and not
// to sharedStrings fails here.
func TestDecodedFindingsShareStrings(t *testing.T) {
	in := &unitResult{}
	for i := range 2*resultBatch + 3 {
		in.diags = append(in.diags, diag.Diagnostic{
			Span: diag.Span{File: "f.yaml", Line: i + 1}, Rule: "rule", Message: "message",
			Path: "webhooks[0]", Object: &diag.Object{APIVersion: "v1", Kind: "Kind", Name: "name", Namespace: "namespace"},
			Webhook: "webhook", Origin: "origin", Units: []string{"unit"},
			Related:   []diag.Related{{Span: diag.Span{File: "g.yaml"}, Message: "related", Path: "path", Object: &diag.Object{Kind: "Kind"}}},
			Fixes:     []diag.Fix{{Message: "fix", Edits: []diag.Edit{{File: "f.yaml", NewText: "text"}}}},
			Unchecked: &diag.Unchecked{Noun: "chart", Name: "chart name", Source: "source"},
		})
	}
	data, ok := encodeResult(in)
	if !ok {
		t.Fatal("not encoded")
	}
	out, ok := decodeResult(data)
	if !ok {
		t.Fatal("not decoded")
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatal("came back changed")
	}
	first := map[string]*byte{}
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			s := v.String()
			if s == "" {
				return
			}
			if p, ok := first[s]; ok && p != unsafe.StringData(s) {
				t.Errorf("%s: %q is a copy of its own", path, s)
			}
			first[s] = unsafe.StringData(s)
		case reflect.Pointer:
			if !v.IsNil() {
				walk(path, v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(path, v.Index(i))
			}
		}
	}
	for i := range out.diags {
		walk("diags", reflect.ValueOf(&out.diags[i]).Elem())
	}
}
