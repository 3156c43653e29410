// Package manifest loads Kubernetes manifests — files, folders, globs and
// stdin; multi-document YAML, JSON and List kinds — and decodes webhook
// configurations strictly, the way the API server does, recording where
// every field is written so findings can point at it.
package manifest

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// MaxFileSize bounds what one file may hold; larger input gets a clear
// error instead of exhausting memory. The largest real-world bundles with
// CRDs are around 1 MiB.
const MaxFileSize = 64 << 20

// File is one input file and the documents found in it.
type File struct {
	Name string
	Data []byte
	Docs []*Document
	// Diagnostics are problems with the file itself (syntax errors, size).
	Diagnostics []diag.Diagnostic
}

// Document is one Kubernetes object: a YAML document, or an item of a List.
type Document struct {
	File string
	// Index is the 0-based position among the file's non-empty documents;
	// Item is the position within a List, or -1.
	Index, Item int
	// Line is where the object starts.
	Line int

	APIVersion, Kind, Name, Namespace string

	// Config is set for the two webhook configuration kinds.
	Config *rules.Config
	// Positions maps field paths of the object to where they are written.
	Positions *Index
	// Diagnostics are the loader's findings on this object (strict
	// decoding, removed API version), already positioned.
	Diagnostics []diag.Diagnostic
	// Suppressions found in comments and annotations of this object.
	Suppressions []*Suppression

	// Cross-object data, for rules that look beyond one configuration.
	inventory inventoryItem
}

// Object identifies the document in diagnostics.
func (d *Document) Object() *diag.Object {
	return &diag.Object{APIVersion: d.APIVersion, Kind: d.Kind, Name: d.Name, Namespace: d.Namespace}
}

// IsWebhookConfig reports whether the document is a webhook configuration.
func (d *Document) IsWebhookConfig() bool { return d.Config != nil }

// Locate resolves a field path of this object to a range in its file.
func (d *Document) Locate(path string, atKey bool) Range {
	if r, _, ok := d.Positions.Lookup(path, atKey); ok {
		return r
	}
	return Range{Line: d.Line, Column: 1, EndLine: d.Line, EndColumn: 1}
}

// separator matches a YAML document separator line the way Kubernetes'
// own document reader does: "---" at the start of a line, followed by
// nothing but blanks or a comment.
var separator = regexp.MustCompile(`^---\s*(#.*)?$`)

// Parse splits data into documents and decodes each. It never fails: every
// problem becomes a diagnostic, and one bad document does not stop the
// others from being read.
func Parse(name string, data []byte) *File {
	f, chunks := Split(name, data)
	for _, c := range chunks {
		f.Add(c.Parse(name))
	}
	return f
}

// Split prepares a file for parsing: it checks its size and cuts it into
// document chunks, which may then be parsed concurrently and added back in
// order with Add.
func Split(name string, data []byte) (*File, []Chunk) {
	f := &File{Name: name, Data: data}
	if len(data) > MaxFileSize {
		f.Diagnostics = append(f.Diagnostics, fileDiag(name, 1, 1, RuleSyntax,
			fmt.Sprintf("file is %d bytes, more than the %d bytes webhooklint reads from one file", len(data), MaxFileSize)))
		return f, nil
	}
	if !utf8.Valid(data) {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	var out []Chunk
	for _, c := range splitDocuments(data) {
		if blank(c.data) {
			continue
		}
		c.index = len(out)
		out = append(out, c)
	}
	return f, out
}

// Parsed is the outcome of parsing one chunk.
type Parsed struct {
	docs  []*Document
	diags []diag.Diagnostic
}

// Add appends a parsed chunk's documents and diagnostics to the file.
func (f *File) Add(p Parsed) {
	f.Docs = append(f.Docs, p.docs...)
	f.Diagnostics = append(f.Diagnostics, p.diags...)
}

// Chunk is the text of one YAML document within its file.
type Chunk struct {
	data      []byte
	firstLine int // 1-based file line of the chunk's first line
	index     int // position among the file's non-empty documents
}

// splitDocuments cuts a YAML stream at separator lines. JSON input has no
// separators and stays whole.
func splitDocuments(data []byte) []Chunk {
	var out []Chunk
	start, startLine, line := 0, 1, 1
	for i := 0; i < len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		next := len(data)
		if end >= 0 {
			next = i + end + 1
		}
		text := bytes.TrimRight(data[i:next], "\r\n")
		if len(text) >= 3 && text[0] == '-' && text[1] == '-' && text[2] == '-' && separator.Match(text) {
			out = append(out, Chunk{data: data[start:i], firstLine: startLine})
			start, startLine = next, line+1
		}
		i = next
		line++
	}
	return append(out, Chunk{data: data[start:], firstLine: startLine})
}

func blank(b []byte) bool {
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("...")) {
			return false
		}
	}
	return true
}

// scannerProblems are the messages of go.yaml.in/yaml/v3's scanner, whose
// errors carry 1-based line numbers; all other errors come from its parser.
var scannerProblems = []string{
	"block sequence entries are not allowed in this context",
	"could not find expected ':'",
	"could not find expected directive name",
	"did not find expected alphabetic or numeric character",
	"did not find expected comment or line break",
	"did not find expected digit or '.' character",
	"did not find expected hexdecimal number",
	"did not find expected version number",
	"did not find expected whitespace or line break",
	"did not find expected whitespace",
	"did not find the expected '>'",
	"found a tab character that violates indentation",
	"found a tab character where an indentation space is expected",
	"found an indentation indicator equal to 0",
	"found character that cannot start any token",
	"found extremely long version number",
	"found invalid Unicode character escape code",
	"found unexpected document indicator",
	"found unexpected end of stream",
	"found unexpected non-alphabetical character",
	"found unknown directive name",
	"found unknown escape character",
	"mapping keys are not allowed in this context",
	"mapping values are not allowed in this context",
}

func scannerProblem(msg string) bool {
	for _, p := range scannerProblems {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func lastContentLine(b []byte) int {
	lines := bytes.Split(b, []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		if len(bytes.TrimSpace(lines[i])) > 0 {
			return i + 1
		}
	}
	return 1
}

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse decodes the chunk's document. It is safe to call concurrently for
// different chunks.
func (c Chunk) Parse(file string) Parsed {
	f := &File{Name: file}
	f.parseDocument(c, c.index)
	return Parsed{docs: f.Docs, diags: f.Diagnostics}
}

func (f *File) parseDocument(c Chunk, docIndex int) {
	var root yaml.Node
	if err := yaml.Unmarshal(c.data, &root); err != nil {
		line, msg := c.firstLine, strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlErrLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			// The parser reports errors found at the end of input on the
			// line after it; point at the last line that has content.
			if !scannerProblem(m[2]) {
				// The parser (unlike the scanner) reports the 0-based line
				// of the construct it was parsing.
				n++
			}
			n = min(n, lastContentLine(c.data))
			line, msg = c.firstLine+n-1, m[2]
		}
		f.Diagnostics = append(f.Diagnostics, syntaxDiag(f.Name, line, c.data, c.firstLine, msg))
		return
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		// Not an object: some other YAML file in a linted folder.
		return
	}
	src := newSource(c.data, c.firstLine-1)
	apiVersion, kind := scalarField(top, "apiVersion"), scalarField(top, "kind")
	if items := listItems(top, kind); items != nil {
		for i, item := range items {
			item = resolve(item)
			if item == nil || item.Kind != yaml.MappingNode {
				continue
			}
			iv, ik := scalarField(item, "apiVersion"), scalarField(item, "kind")
			if ik == "" && kind != "List" {
				// Typed lists (ValidatingWebhookConfigurationList) imply
				// their items' kind.
				iv, ik = apiVersion, strings.TrimSuffix(kind, rules.ListSuffix)
			}
			f.addObject(src, item, &root, iv, ik, docIndex, i)
		}
		return
	}
	f.addObject(src, top, &root, apiVersion, kind, docIndex, -1)
}

func listItems(top *yaml.Node, kind string) []*yaml.Node {
	if !strings.HasSuffix(kind, rules.ListSuffix) {
		return nil
	}
	items := mapValue(top, "items")
	if items == nil || items.Kind != yaml.SequenceNode {
		return nil
	}
	return items.Content
}

func (f *File) addObject(src *source, obj, docNode *yaml.Node, apiVersion, kind string, docIndex, item int) {
	d := &Document{
		File: f.Name, Index: docIndex, Item: item, Line: src.lineOffset + obj.Line,
		APIVersion: apiVersion, Kind: kind,
	}
	if md := mapValue(obj, "metadata"); md != nil {
		d.Name = scalarField(md, "name")
		d.Namespace = scalarField(md, "namespace")
	}
	switch {
	case rules.IsWebhookKind(apiVersion, kind):
		f.decodeWebhookConfig(d, src, obj, docNode)
	case unservedWebhookVersion(apiVersion, kind):
		// Not v1 nor the removed v1beta1: no version of the API server ever
		// served these kinds there, so the content has no schema to check.
		ix := newIndex()
		ix.set("apiVersion", Range{}, src.rangeOf(mapValue(obj, "apiVersion")))
		d.Positions = ix
		d.Diagnostics = append(d.Diagnostics, d.diagAt(d.Locate("apiVersion", false), RuleUnservedAPIVersion, diag.Error, "apiVersion",
			fmt.Sprintf("the API server does not serve %s in %s (kubectl: no matches for kind %q in version %q); use %s",
				kind, apiVersion, kind, apiVersion, rules.V1)))
	default:
		d.inventory = readInventory(src, obj, apiVersion, kind, d)
	}
	f.Docs = append(f.Docs, d)
}

// unservedWebhookVersion reports a webhook configuration kind in a version
// of admissionregistration.k8s.io other than v1 and v1beta1.
func unservedWebhookVersion(apiVersion, kind string) bool {
	group, _, ok := strings.Cut(apiVersion, "/")
	return ok && group == rules.GroupName && (kind == rules.Validating || kind == rules.Mutating) &&
		apiVersion != rules.V1 && apiVersion != rules.V1beta1
}

func (f *File) decodeWebhookConfig(d *Document, src *source, obj, docNode *yaml.Node) {
	dec := &decoder{src: src, index: newIndex()}
	var target reflect.Value
	var vwc *admissionv1.ValidatingWebhookConfiguration
	var mwc *admissionv1.MutatingWebhookConfiguration
	if d.Kind == rules.Validating {
		vwc = &admissionv1.ValidatingWebhookConfiguration{}
		target = reflect.ValueOf(vwc).Elem()
	} else {
		mwc = &admissionv1.MutatingWebhookConfiguration{}
		target = reflect.ValueOf(mwc).Elem()
	}
	dec.index.set("", Range{}, src.extent(obj))
	dec.decodeStruct(obj, target, "", src.extent(obj))
	d.Positions = dec.index

	if vwc != nil {
		d.Config = rules.FromValidating(d.APIVersion, vwc)
	} else {
		d.Config = rules.FromMutating(d.APIVersion, mwc)
	}
	for _, e := range dec.errs {
		at := e.at
		if at.IsZero() {
			at = d.Locate(e.path, e.atKey)
		}
		msg := e.msg
		if strings.HasSuffix(e.path, ".reinvocationPolicy") && d.Kind == rules.Validating {
			msg = fmt.Sprintf("unknown field %q (reinvocationPolicy exists only on mutating webhooks)", e.path)
		}
		rule, sev := RuleSchema, diag.Error
		if e.rule != "" {
			rule, sev = e.rule, rules.MustLookup(e.rule).Severity
		}
		d.Diagnostics = append(d.Diagnostics, d.diagAt(at, rule, sev, e.path, msg))
	}
	if d.APIVersion == rules.V1beta1 {
		at := d.Locate("apiVersion", false)
		d.Diagnostics = append(d.Diagnostics, d.diagAt(at, RuleUnservedAPIVersion, diag.Warning, "apiVersion",
			fmt.Sprintf("%s was removed in Kubernetes 1.22 (kubectl: no matches for kind %q); use %s and write out the "+
				"v1beta1 defaults you rely on, such as failurePolicy Ignore", rules.V1beta1, d.Kind, rules.V1)))
	}
	d.Suppressions = d.suppressions(src, dec.comments, docNode)
}

func (d *Document) diagAt(at Range, rule string, sev diag.Severity, path, msg string) diag.Diagnostic {
	dg := diag.Diagnostic{
		File: d.File, Line: at.Line, Column: at.Column, EndLine: at.EndLine, EndColumn: at.EndColumn,
		Severity: sev, Rule: rule, Message: msg, Path: path, Object: d.Object(),
	}
	if d.Config != nil {
		if i, ok := webhookIndex(path); ok && i < len(d.Config.Webhooks) {
			dg.Webhook = d.Config.Webhooks[i].Name
		}
	}
	return dg
}

// webhookIndex extracts i from a path starting with webhooks[i].
func webhookIndex(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, "webhooks[")
	if !ok {
		return 0, false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return 0, false
	}
	i, err := strconv.Atoi(rest[:end])
	return i, err == nil
}

func fileDiag(file string, line, col int, rule, msg string) diag.Diagnostic {
	return diag.Diagnostic{File: file, Line: line, Column: col, EndLine: line, EndColumn: col + 1,
		Severity: diag.Error, Rule: rule, Message: msg}
}

func syntaxDiag(file string, line int, chunk []byte, firstLine int, msg string) diag.Diagnostic {
	d := fileDiag(file, line, 1, RuleSyntax, "invalid YAML: "+msg)
	// Point at the first non-blank character of the line, which reads
	// better than column 1 under an indented key.
	src := newSource(chunk, firstLine-1)
	text := src.line(line - firstLine + 1)
	trimmed := bytes.TrimLeft(text, " \t")
	d.Column = len(text) - len(trimmed) + 1
	d.EndColumn = d.Column + max(1, len([]rune(string(bytes.TrimRight(trimmed, " \t")))))
	return d
}

// Small helpers over YAML mapping nodes.

// resolve follows alias nodes to what they name.
func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 100; depth++ {
		n = n.Alias
	}
	return n
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	m = resolve(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := resolve(m.Content[i]); k != nil && k.Kind == yaml.ScalarNode && k.Value == key {
			return resolve(m.Content[i+1])
		}
	}
	return nil
}

func scalarField(m *yaml.Node, key string) string {
	if v := mapValue(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
