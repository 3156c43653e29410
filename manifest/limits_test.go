package manifest

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

const tinyConfig = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: c%d}\n"

func jsonConfig(name string) string {
	return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"` + name +
		`"},"webhooks":[{"name":"a.example.com","sideEffects":"Unknown"}]}`
}

// aliasBomb is a document whose aliases expand to width^depth nodes.
func aliasBomb(depth, width int) string {
	var b strings.Builder
	b.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n")
	b.WriteString("  annotations: {x0: &a0 [v, v, v, v, v, v, v, v, v, v]}\n")
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, "  labels: {x%d: &a%d [%s]}\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), width), ", "))
	}
	// managedFields are decoded generically, so every node is visited.
	fmt.Fprintf(&b, "  managedFields: [{manager: m, fieldsV1: *a%d}]\n", depth)
	return b.String()
}

func allDiagnostics(f *File) []diag.Diagnostic {
	out := append([]diag.Diagnostic(nil), f.Diagnostics...)
	for _, d := range f.Docs {
		out = append(out, d.Diagnostics...)
	}
	return out
}

// TestInputShapes: each input shape is either read or gets a positioned
// finding; none is dropped silently.
func TestInputShapes(t *testing.T) {
	utf16le := func(s string) []byte {
		var b bytes.Buffer
		b.Write([]byte{0xFF, 0xFE})
		for _, u := range utf16.Encode([]rune(s)) {
			b.Write([]byte{byte(u), byte(u >> 8)})
		}
		return b.Bytes()
	}
	cases := []struct {
		name    string
		input   []byte
		configs []string // names of the webhook configurations read, in order
		want    []string // "line:col: message regexp" of every finding
	}{{
		name:    "top-level JSON array of objects",
		input:   []byte("[" + jsonConfig("a") + ",\n " + jsonConfig("b") + "]\n"),
		configs: []string{"a", "b"},
		want:    []string{`^1:1: .*array of objects, which kubectl cannot apply; wrap them in a List`},
	}, {
		name:  "a YAML list of other things stays silent",
		input: []byte("- a\n- {b: 1}\n"),
	}, {
		name:    "List nested in a List is flattened",
		input:   []byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - " + fmt.Sprintf(strings.ReplaceAll(tinyConfig, "\n", "\n    "), 1) + "\n- " + fmt.Sprintf(strings.ReplaceAll(tinyConfig, "\n", "\n  "), 2)),
		configs: []string{"c1", "c2"},
	}, {
		name:    "concatenated JSON objects, columns kept",
		input:   []byte(jsonConfig("a") + jsonConfig("b") + "\n\n  " + jsonConfig("c")),
		configs: []string{"a", "b", "c"},
	}, {
		name:    "text after the end of a document",
		input:   []byte(fmt.Sprintf(tinyConfig, 1) + "...\nb: 2\n"),
		configs: []string{"c1"},
		want:    []string{`5:1: text after the end of the document is not read`},
	}, {
		name:  "empty apiVersion",
		input: []byte("apiVersion: \"\"\nkind: ValidatingWebhookConfiguration\nmetadata: {name: x}\n"),
		want:  []string{`1:13: apiVersion is missing or empty.*admissionregistration.k8s.io/v1`},
	}, {
		name:  "missing apiVersion",
		input: []byte("kind: Service\nmetadata: {name: x}\n"),
		want:  []string{`1:7: apiVersion is missing or empty.*set it to the apiVersion of Service`},
	}, {
		name:  "UTF-16 with a byte order mark",
		input: utf16le(fmt.Sprintf(tinyConfig, 1)),
		want:  []string{`1:1: file is UTF-16LE encoded; UTF-16 is not supported`},
	}, {
		name:  "UTF-16 without a byte order mark",
		input: utf16le(fmt.Sprintf(tinyConfig, 1))[2:],
		want:  []string{`1:1: file is UTF-16LE encoded`},
	}, {
		name:  "NUL byte reported where it is",
		input: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  k: \"ab\x00c\"\n"),
		want:  []string{`^5:9: .*control character U\+0000 is not allowed`},
	}, {
		name:    "a document after binary garbage is read",
		input:   []byte("\x00\x01\xff\xfe garbage\n---\n" + fmt.Sprintf(tinyConfig, 1)),
		configs: []string{"c1"},
		want:    []string{`^1:1: .*control character U\+0000`},
	}, {
		name:  "oversized file",
		input: make([]byte, MaxFileSize+1),
		want:  []string{`1:1: file is larger than 64 MiB`},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Parse("in.yaml", c.input)
			var configs []string
			for _, d := range f.Docs {
				if d.Config != nil {
					configs = append(configs, d.Name)
				}
			}
			if fmt.Sprint(configs) != fmt.Sprint(c.configs) && (len(configs) != 0 || len(c.configs) != 0) {
				t.Errorf("configurations read: %v, want %v", configs, c.configs)
			}
			var got []string
			for _, d := range allDiagnostics(f) {
				if d.Rule == rules.YAMLSyntaxRule || strings.Contains(d.Message, "apiVersion is missing") {
					got = append(got, fmt.Sprintf("%d:%d: %s", d.Line, d.Column, d.Message))
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("findings:\n%s\nwant %d matching %q", strings.Join(got, "\n"), len(c.want), c.want)
			}
			for i, w := range c.want {
				if !regexp.MustCompile(w).MatchString(got[i]) {
					t.Errorf("finding %q does not match %q", got[i], w)
				}
			}
		})
	}
}

func TestConcatenatedJSONKeepsColumns(t *testing.T) {
	a := jsonConfig("a")
	f := Parse("c.json", []byte(a+"  "+jsonConfig("b")))
	if len(f.Docs) != 2 {
		t.Fatalf("docs = %d", len(f.Docs))
	}
	got := f.Docs[1].Locate("metadata.name", false)
	want := len(a) + 2 + strings.Index(jsonConfig("b"), `"b"`) + 1
	if got.Line != 1 || got.Column != want {
		t.Fatalf("second object's name at %+v, want 1:%d", got, want)
	}
}

// allocated runs fn and returns the bytes it allocated: a bound on its
// work and memory that does not depend on the machine's speed.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLimitsBoundWork: hostile inputs cost work in proportion to their
// size, and each limit is a positioned finding with the rest linted.
func TestLimitsBoundWork(t *testing.T) {
	cases := []struct {
		name     string
		input    func() []byte
		maxAlloc uint64
		want     string // regexp of a finding that must be there
		configs  int    // webhook configurations that must still be read (at least)
		limit    int    // objects a file may hold; 0 for 1,000
	}{{
		name:     "one alias bomb",
		input:    func() []byte { return []byte(aliasBomb(9, 10)) },
		maxAlloc: 600 << 20,
		want:     `aliases expand this document far beyond its size`,
	}, {
		name: "many documents each under a per-document limit",
		input: func() []byte {
			var b strings.Builder
			for range 200 {
				b.WriteString("---\n" + aliasBomb(5, 10)) // 10^6 nodes each
			}
			return []byte(b.String())
		},
		maxAlloc: 1 << 30,
		want:     `aliases expand this document far beyond its size`,
	}, {
		name: "List items made of aliases",
		input: func() []byte {
			var b strings.Builder
			b.WriteString("apiVersion: v1\nkind: List\nx0: &a0 [v, v, v, v, v, v, v, v, v, v]\n")
			for i := 1; i <= 4; i++ { // 10^5 nodes
				fmt.Fprintf(&b, "x%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
			}
			b.WriteString("items:\n")
			for i := range 2000 {
				fmt.Fprintf(&b, "- {apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: c%d, managedFields: [{fieldsV1: *a4}]}}\n", i)
			}
			return []byte(b.String())
		},
		maxAlloc: 1 << 30,
		want:     `aliases expand this document far beyond its size`,
		configs:  10, // the items before the budget ran out
	}, {
		name: "more objects in Lists than a file may hold",
		input: func() []byte {
			var b strings.Builder
			for range 3 {
				b.WriteString("---\napiVersion: v1\nkind: List\nitems:\n")
				for i := range 400 {
					fmt.Fprintf(&b, "- {apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: c%d}}\n", i)
				}
			}
			return []byte(b.String())
		},
		maxAlloc: 1 << 30,
		want:     `^\d+:3: file has more than 1000 objects; from this List item on it is not linted`,
		configs:  990,
	}, {
		name: "more documents than a file may hold",
		input: func() []byte {
			var b strings.Builder
			for i := range 1010 {
				fmt.Fprintf(&b, "---\n"+tinyConfig, i)
			}
			return []byte(b.String())
		},
		maxAlloc: 2 << 30,
		want:     `^4002:1: file has more than 1000 documents`,
		configs:  1000,
	}, {
		name: "one-line JSON List of 1 MB",
		input: func() []byte {
			items := make([]string, 0, 4000)
			for i := range cap(items) {
				items = append(items, jsonConfig(fmt.Sprint("n", i)))
			}
			return []byte(`{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",") + "]}")
		},
		maxAlloc: 1 << 30,
		configs:  4000,
		limit:    MaxObjects,
	}}
	defer func(n int) { objectLimit = n }(objectLimit)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objectLimit = 1000
			if c.limit > 0 {
				objectLimit = c.limit
			}
			in := c.input()
			var f *File
			n := allocated(func() { f = Parse("in.yaml", in) })
			if n > c.maxAlloc {
				t.Errorf("allocated %d MB for %d KB of input, want at most %d MB", n>>20, len(in)>>10, c.maxAlloc>>20)
			}
			configs := 0
			for _, d := range f.Docs {
				if d.Config != nil {
					configs++
				}
			}
			if configs < c.configs || configs > objectLimit {
				t.Errorf("%d configurations read, want at least %d", configs, c.configs)
			}
			if c.want == "" {
				return
			}
			re := regexp.MustCompile(c.want)
			for _, d := range allDiagnostics(f) {
				if re.MatchString(fmt.Sprintf("%d:%d: %s", d.Line, d.Column, d.Message)) {
					return
				}
			}
			t.Errorf("no finding matches %q", c.want)
		})
	}
}
