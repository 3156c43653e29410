// Package manifest loads Kubernetes manifests — files, folders, globs and
// stdin; multi-document YAML, JSON and List kinds — and decodes webhook
// configurations strictly, the way the API server does, recording where
// every field is written so findings can point at it.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/intern"
	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/rules"
)

// MaxFileSize bounds what one file may hold; larger input gets a clear
// error instead of exhausting memory. The largest real-world bundles with
// CRDs are around 1 MiB.
const MaxFileSize = 64 << 20

// File is one input file and the documents found in it.
type File struct {
	Name string
	// Data is the file's text. Loaders clear it once the file is parsed
	// and checked, so a run does not hold every file in memory; reports
	// re-read files from disk. Texts that exist only in memory (stdin,
	// rendered templates) keep it.
	Data []byte
	Docs []*Document
	// Diagnostics are problems with the file itself (syntax errors, size).
	Diagnostics []diag.Diagnostic

	opts Options // how it is parsed
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
	// CRD is set for a CustomResourceDefinition that writes out
	// spec.conversion, which the rules' CheckCRD lint.
	CRD *apiextensionsv1.CustomResourceDefinition
	// Policy is set for the four admission policy kinds.
	Policy *rules.Policy
	// Positions maps field paths of the object to where they are written.
	Positions *Index
	// Diagnostics are the loader's findings on this object (strict
	// decoding, removed API version), already positioned.
	Diagnostics []diag.Diagnostic
	// Suppressions found in comments and annotations of this object.
	Suppressions []*Suppression

	// Cross-object data, for rules that look beyond one configuration;
	// nil for the documents that have none (a webhook configuration, any
	// object of a file parsed alone), which a folder holds by the ten
	// thousand: inventory() reads it.
	cross *inventoryItem
	// src is the document's text, to point inside string values
	// (LocateWithin), or within where to read it again.
	src    *source
	within *textRef
}

// inventory is the document's cross-object data, empty when it has none.
func (d *Document) inventory() *inventoryItem {
	if d.cross == nil {
		return &noInventory
	}
	return d.cross
}

// noInventory is the data of a document without any; never written.
var noInventory inventoryItem

// Object identifies the document in diagnostics.
func (d *Document) Object() *diag.Object {
	return &diag.Object{APIVersion: d.APIVersion, Kind: d.Kind, Name: d.Name, Namespace: d.Namespace}
}

// DropPositions drops what locates the object's fields (the position index
// and the text kept to point inside strings) once nothing will ask: a unit
// of thousands of configurations would otherwise hold every index until
// its last rule has run. Locate then answers the document's first line.
func (d *Document) DropPositions() { d.Positions, d.src, d.within = nil, nil, nil }

// Locate resolves a field path of this object to a range in its file.
func (d *Document) Locate(path string, atKey bool) diag.Span {
	if r, _, ok := d.Positions.Lookup(path, atKey); ok {
		return r
	}
	return diag.LineSpan("", d.Line, 1, 1)
}

// separator matches a YAML document separator line the way Kubernetes'
// own document reader does: "---" at the start of a line, followed by
// nothing but blanks or a comment.
var separator = lazy.Regexp(`^---\s*(#.*)?$`)

// Parse splits data into documents and decodes each. It never fails: every
// problem becomes a diagnostic, and one bad document does not stop the
// others from being read.
func Parse(name string, data []byte) *File { return ParseJobs(name, data, 1) }

// ParseJobs is Parse with the documents decoded by up to jobs goroutines,
// for a file that is the whole of a run (a rendered bundle, a kustomize
// build): decoding is most of a run's time, and its documents are
// independent. The result is the same as Parse's, in the same order.
func ParseJobs(name string, data []byte, jobs int) *File {
	return ParseWith(name, data, Options{Jobs: jobs})
}

// Options say how ParseWith reads a file; the zero value is Parse's.
type Options struct {
	// Jobs is how many goroutines decode the documents (ParseJobs).
	Jobs int
	// Alone is for a file of a unit thought to hold no object the rules
	// judge (a webhook configuration, an admission policy, a
	// CustomResourceDefinition): nothing will read its other objects'
	// labels, workloads, Services or RBAC, nor locate a finding's cause in
	// them, so none of that is kept. Diagnostics are those of ParseJobs.
	// A file whose text names a judged kind (MayHoldJudged), or whose parse
	// finds one after all, is parsed in full; HasJudged then tells its unit
	// that its other files must be too.
	Alone bool
	// OnDisk says data is the named file's text, which can be read again:
	// documents then do not hold the text that findings inside strings
	// (a CEL error in a matchCondition) are located in, and LocateWithin
	// reads it again, checking it is unchanged.
	OnDisk bool
	// Strings, when set, is shared by the files of one unit: the values of
	// their webhook configurations and policies are kept once each (a
	// folder of thousands repeats "Fail", "kube-system", an expression).
	Strings *intern.Table
}

// ParseWith is Parse with options.
func ParseWith(name string, data []byte, o Options) *File {
	o.Alone = o.Alone && !MayHoldJudged(data)
	f := parseWith(name, data, o)
	if o.Alone && f.HasJudged() {
		// The text hid the kind (an escape): the guess, not the result,
		// was wrong.
		o.Alone = false
		f = parseWith(name, data, o)
	}
	if len(f.Docs) == 0 && notObjectJSON(name, data) {
		f.Diagnostics = slices.DeleteFunc(f.Diagnostics, func(d diag.Diagnostic) bool { return d.Rule == rules.YAMLSyntaxRule })
	}
	return f
}

// notObjectJSON reports whether a .json file names neither "apiVersion"
// nor "kind": no Kubernetes object, whatever it holds (a tsconfig.json
// with comments, an editor's settings), so its syntax is not webhooklint's
// to judge, as the content of a valid one is not.
func notObjectJSON(name string, data []byte) bool {
	return strings.EqualFold(filepath.Ext(name), ".json") &&
		!bytes.Contains(data, []byte(`"apiVersion"`)) && !bytes.Contains(data, []byte(`"kind"`))
}

func parseWith(name string, data []byte, o Options) *File {
	f, chunks := Split(name, data)
	parsed := make([]Parsed, len(chunks))
	parallel.For(len(chunks), max(o.Jobs, 1), func(i int) { parsed[i] = chunks[i].parse(name, o) })
	for _, p := range parsed {
		f.Add(p)
	}
	return f
}

// judgedWords are in the kind of every object the rules judge.
var judgedWords = [][]byte{[]byte("WebhookConfiguration"), []byte("AdmissionPolicy"), []byte("CustomResourceDefinition")}

// MayHoldJudged reports whether a file's text may hold an object the rules
// judge, before it is parsed. It is a guess either way: the words may be
// in a comment, and an escape ("Validating\x57ebhookConfiguration") spells
// a kind without them; the parse, not the guess, decides (HasJudged).
func MayHoldJudged(data []byte) bool {
	for _, w := range judgedWords {
		if bytes.Contains(data, w) {
			return true
		}
	}
	return false
}

// HasJudged reports whether the file holds an object the rules judge: a
// webhook configuration, an admission policy or a CRD with a conversion
// webhook.
func (f *File) HasJudged() bool {
	return slices.ContainsFunc(f.Docs, func(d *Document) bool { return d.Config != nil || d.Policy != nil || d.CRD != nil })
}

// MaxObjects bounds the objects (documents and List items) read from one
// file; the rest of the file gets one finding instead of exhausting
// memory. Rendered bundles of whole clusters hold a few thousand.
const MaxObjects = 50_000

// objectLimit is MaxObjects; tests lower it.
var objectLimit = MaxObjects

// Split prepares a file for parsing: it checks its size and encoding and
// cuts it into document chunks, which may then be parsed concurrently and
// added back in order with Add.
func Split(name string, data []byte) (*File, []Chunk) {
	f := &File{Name: name, Data: data}
	if len(data) > MaxFileSize {
		f.Diagnostics = append(f.Diagnostics, fileDiag(name, 1, 1, rules.YAMLSyntaxRule,
			fmt.Sprintf("file is larger than %d MiB, the most webhooklint reads from one file; split it", MaxFileSize>>20)))
		return f, nil
	}
	if enc := utf16Encoding(data); enc != "" {
		f.Diagnostics = append(f.Diagnostics, fileDiag(name, 1, 1, rules.YAMLSyntaxRule,
			fmt.Sprintf("file is %s encoded; UTF-16 is not supported: save it as UTF-8", enc)))
		return f, nil
	}
	data = validUTF8(data)
	var out []Chunk
	for _, c := range splitDocuments(data) {
		if blank(c.data) {
			continue
		}
		for _, part := range splitJSONStream(c) {
			if len(out) == objectLimit {
				f.Diagnostics = append(f.Diagnostics, fileDiag(name, part.firstLine, 1, rules.YAMLSyntaxRule,
					fmt.Sprintf("file has more than %d documents; from here on it is not linted: split it", objectLimit)))
				return f, out
			}
			part.index = len(out)
			out = append(out, part)
		}
	}
	for i := range out {
		out[i].docs, out[i].fileSize = len(out), len(data)
	}
	return f, out
}

// validUTF8 is data with invalid bytes replaced, as the documents are
// read; LocateWithin prepares text read again the same way.
func validUTF8(data []byte) []byte {
	if !utf8.Valid(data) {
		return bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	return data
}

// utf16Encoding names the UTF-16 encoding of data ("UTF-16LE"), or "".
// A byte order mark says so; without one, YAML text in UTF-16 has a zero
// byte beside each ASCII character.
func utf16Encoding(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return "UTF-16LE"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return "UTF-16BE"
	case len(data) >= 4 && data[0] != 0 && data[1] == 0 && data[2] != 0 && data[3] == 0:
		return "UTF-16LE"
	case len(data) >= 4 && data[0] == 0 && data[1] != 0 && data[2] == 0 && data[3] != 0:
		return "UTF-16BE"
	}
	return ""
}

// splitJSONStream cuts a chunk holding several JSON values one after
// another ({…}{…}, as kubectl reads them) into one chunk per value. The
// text before a value on its first line becomes blanks, so columns stay
// those of the file. Anything else comes back whole.
func splitJSONStream(c Chunk) []Chunk {
	first := bytes.TrimLeft(c.data, " \t\r\n")
	if len(first) == 0 || (first[0] != '{' && first[0] != '[') {
		return []Chunk{c}
	}
	dec := json.NewDecoder(bytes.NewReader(c.data))
	var raw json.RawMessage
	var ends []int64
	for {
		if err := dec.Decode(&raw); err != nil {
			if !errors.Is(err, io.EOF) {
				return []Chunk{c} // not a JSON stream: YAML reads it
			}
			break
		}
		ends = append(ends, dec.InputOffset())
	}
	if len(ends) < 2 {
		return []Chunk{c}
	}
	out := make([]Chunk, 0, len(ends))
	start := 0
	line := c.firstLine
	for _, e := range ends {
		end := int(e)
		text := c.data[start:end]
		// Skip the blanks between values, counting the lines they span.
		lead := len(text) - len(bytes.TrimLeft(text, " \t\r\n"))
		line += bytes.Count(text[:lead], []byte{'\n'})
		lineStart := bytes.LastIndexByte(c.data[:start+lead], '\n') + 1
		pad := bytes.Repeat([]byte{' '}, utf8.RuneCount(c.data[lineStart:start+lead]))
		out = append(out, Chunk{data: append(pad, text[lead:]...), offset: -1, firstLine: line})
		line += bytes.Count(text[lead:], []byte{'\n'})
		start = end
	}
	return out
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
	offset    int // where data starts in the file's text, or -1: not a part of it
	firstLine int // 1-based file line of the chunk's first line
	index     int // position among the file's non-empty documents
	docs      int // how many documents the file has
	fileSize  int
}

// Documents cuts a YAML stream into its documents as Parse does, at the
// separator lines (left out), blank documents included: a caller that
// rewrites some documents keeps the others, and their Index, as they were.
func Documents(data []byte) [][]byte {
	chunks := splitDocuments(data)
	out := make([][]byte, len(chunks))
	for i, c := range chunks {
		out[i] = c.data
	}
	return out
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
		if len(text) >= 3 && text[0] == '-' && text[1] == '-' && text[2] == '-' && separator().Match(text) {
			out = append(out, Chunk{data: data[start:i], offset: start, firstLine: startLine})
			start, startLine = next, line+1
		}
		i = next
		line++
	}
	return append(out, Chunk{data: data[start:], offset: start, firstLine: startLine})
}

func blank(b []byte) bool {
	for len(b) > 0 {
		l := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
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

var yamlErrLine = lazy.Regexp(`^yaml: line (\d+): (.*)$`)

// Parse decodes the chunk's document. It is safe to call concurrently for
// different chunks.
func (c Chunk) Parse(file string) Parsed { return c.parse(file, Options{}) }

func (c Chunk) parse(file string, o Options) Parsed {
	f := &File{Name: file, opts: o}
	f.parseDocument(c, c.index)
	return Parsed{docs: f.Docs, diags: f.Diagnostics}
}

func (f *File) parseDocument(c Chunk, docIndex int) {
	dec := yaml.NewDecoder(bytes.NewReader(c.data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if !errors.Is(err, io.EOF) {
			f.Diagnostics = append(f.Diagnostics, c.syntaxError(f.Name, err))
		}
		return
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return
	}
	f.checkTrailing(c, dec)
	top := root.Content[0]
	src := newSource(c.data, c.firstLine-1)
	src.fileOffset = c.offset
	p := &docParser{f: f, src: src, root: &root, docIndex: docIndex,
		budget: docBudget(&root, c.docs), items: c.itemShare()}
	switch top.Kind {
	case yaml.MappingNode:
	case yaml.SequenceNode:
		// A JSON array of objects: kubectl reads objects one after another
		// or a List, not an array. Lint the objects, and say so.
		if !slices.ContainsFunc(top.Content, looksLikeObject) {
			return // some other YAML file in a linted folder
		}
		at := src.rangeOf(top)
		f.Diagnostics = append(f.Diagnostics, fileDiag(f.Name, at.Line, at.Column, rules.YAMLSyntaxRule,
			"the document is an array of objects, which kubectl cannot apply; wrap them in a List "+
				"(apiVersion: v1, kind: List, items: [...]) or write one object per document"))
		p.addItems(top.Content, "", "List", 0)
		return
	default:
		return // not an object: some other YAML file in a linted folder
	}
	apiVersion, kind := scalarField(top, "apiVersion"), scalarField(top, "kind")
	if items := listItems(top, kind); items != nil {
		p.addItems(items, apiVersion, kind, 0)
		return
	}
	f.addObject(src, top, &root, apiVersion, kind, docIndex, -1, p.budget)
}

// docParser holds what the objects of one document share.
type docParser struct {
	f        *File
	src      *source
	root     *yaml.Node
	docIndex int
	budget   *budget
	items    int // List items this document may still add
	item     int // position of the next List item, nested Lists flattened
}

// maxListNesting bounds how deep Lists in Lists are followed.
const maxListNesting = 8

// addItems adds a List's items; a List among them is flattened into it, as
// kubectl does.
func (p *docParser) addItems(items []*yaml.Node, listVersion, listKind string, depth int) {
	for _, item := range items {
		i := p.item
		p.item++
		item = resolve(item)
		if item == nil || item.Kind != yaml.MappingNode {
			continue
		}
		iv, ik := scalarField(item, "apiVersion"), scalarField(item, "kind")
		if ik == "" && listKind != "List" {
			// Typed lists (ValidatingWebhookConfigurationList) imply
			// their items' kind.
			iv, ik = listVersion, strings.TrimSuffix(listKind, rules.ListSuffix)
		}
		if nested := listItems(item, ik); nested != nil && depth < maxListNesting {
			p.item-- // the nested List is not an object of its own
			p.addItems(nested, iv, ik, depth+1)
			continue
		}
		if p.items == 0 {
			at := p.src.rangeOf(item)
			p.f.Diagnostics = append(p.f.Diagnostics, fileDiag(p.f.Name, at.Line, at.Column, rules.YAMLSyntaxRule,
				fmt.Sprintf("file has more than %d objects; from this List item on it is not linted: split it", objectLimit)))
			p.items = -1
		}
		if p.items < 0 {
			return
		}
		p.items--
		p.f.addObject(p.src, item, p.root, iv, ik, p.docIndex, i, p.budget)
	}
}

// itemShare is how many List items the chunk may hold: the file's
// MaxObjects shared among its documents by size, so that neither one huge
// List nor many Lists exceed it.
func (c Chunk) itemShare() int {
	if c.fileSize <= 0 {
		return objectLimit
	}
	return max(1, int(int64(objectLimit)*int64(len(c.data))/int64(c.fileSize)))
}

func looksLikeObject(n *yaml.Node) bool {
	n = resolve(n)
	return n != nil && n.Kind == yaml.MappingNode && (mapValue(n, "apiVersion") != nil || mapValue(n, "kind") != nil)
}

// checkTrailing reports text after the chunk's first document that YAML
// reads as further documents or cannot read at all ("...", then more; a
// second flow collection): it would otherwise be dropped silently.
func (f *File) checkTrailing(c Chunk, dec *yaml.Decoder) {
	var next yaml.Node
	err := dec.Decode(&next)
	if errors.Is(err, io.EOF) {
		return
	}
	line, col := c.firstLine, 1
	if err == nil && len(next.Content) > 0 {
		line, col = c.firstLine+next.Content[0].Line-1, next.Content[0].Column
	} else if err != nil {
		line = c.syntaxError(f.Name, err).Line
	}
	f.Diagnostics = append(f.Diagnostics, fileDiag(f.Name, line, col, rules.YAMLSyntaxRule,
		"text after the end of the document is not read as part of it; start another document with a --- line"))
}

// syntaxError positions a YAML parser error.
func (c Chunk) syntaxError(file string, err error) diag.Diagnostic {
	line := c.firstLine
	n, msg := SyntaxErrorLine(c.data, err)
	if n > 0 {
		line = c.firstLine + n - 1
	}
	if strings.HasPrefix(msg, "control characters are not allowed") {
		// The reader says neither where nor which: find it.
		if l, col, r, ok := firstControl(c.data); ok {
			d := fileDiag(file, c.firstLine+l-1, col, rules.YAMLSyntaxRule,
				fmt.Sprintf("invalid YAML: control character %U is not allowed", r))
			return d
		}
	}
	return syntaxDiag(file, line, c.data, c.firstLine, msg)
}

// firstControl finds the first character YAML does not allow in a stream
// (YAML 1.2 §5.1: printable characters, tab and line breaks), as a
// 1-based line and column.
func firstControl(data []byte) (line, col int, r rune, ok bool) {
	line, col = 1, 1
	for _, r := range string(data) {
		switch {
		case r == '\n':
			line, col = line+1, 1
			continue
		case r == '\t' || r == '\r' || r == 0x85 || r == utf8.RuneError:
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == 0xFEFF && (line != 1 || col != 1) ||
			(r >= 0xD800 && r < 0xE000) || r == 0xFFFE || r == 0xFFFF:
			return line, col, r, true
		}
		col++
	}
	return 0, 0, 0, false
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

func (f *File) addObject(src *source, obj, docNode *yaml.Node, apiVersion, kind string, docIndex, item int, b *budget) {
	d := &Document{
		File: f.Name, Index: docIndex, Item: item, Line: src.lineOffset + obj.Line,
		APIVersion: apiVersion, Kind: kind, src: src,
	}
	if md := mapValue(obj, "metadata"); md != nil {
		d.Name = scalarField(md, "name")
		d.Namespace = scalarField(md, "namespace")
	}
	switch {
	case apiVersion == "" && kind != "" && mapValue(obj, "metadata") != nil:
		// kubectl refuses it ("Object 'apiVersion' is missing"), so the
		// object can never be what a cluster runs.
		at := src.rangeOf(mapValue(obj, "kind"))
		if v := mapValue(obj, "apiVersion"); v != nil {
			at = src.rangeOf(v)
		}
		want := "the apiVersion of " + kind
		if kind == rules.Validating || kind == rules.Mutating {
			want = rules.V1
		}
		d.Diagnostics = append(d.Diagnostics, d.diagAt(at, rules.SchemaRule, diag.Error, "apiVersion",
			fmt.Sprintf("apiVersion is missing or empty, so kubectl rejects the object (\"Object 'apiVersion' is missing\"); set it to %s", want)))
	case rules.IsWebhookKind(apiVersion, kind):
		f.decodeWebhookConfig(d, src, obj, docNode, b)
	case rules.IsPolicyKind(apiVersion, kind):
		f.decodePolicy(d, src, obj, docNode, b)
	case unservedWebhookVersion(apiVersion, kind):
		// Not v1 nor the removed v1beta1: no version of the API server ever
		// served these kinds there, so the content has no schema to check.
		ix := newIndex()
		ix.set("apiVersion", diag.Span{}, src.rangeOf(mapValue(obj, "apiVersion")))
		ix.freeze()
		d.Positions = ix
		d.Diagnostics = append(d.Diagnostics, d.diagAt(d.Locate("apiVersion", false), rules.UnservedAPIVersionRule, diag.Error, "apiVersion",
			rules.NeverServedMessage(kind)))
	case f.opts.Alone && kind != "CustomResourceDefinition" && b.plain:
		// Nothing reads it (Options.Alone), and without aliases reading it
		// cannot exhaust the budget, the one finding reading it gives.
	default:
		i := readInventory(src, obj, apiVersion, kind, d, b)
		i.labels = readLabels(obj)
		i.helmHook = scalarField(walk(obj, "metadata", "annotations"), "helm.sh/hook") != ""
		d.cross = &i
		if i.crd != nil {
			d.prepareConversion(src, obj, docNode, i.crd, b)
		} else if i.service != nil || i.namespace != nil || i.workload != nil || i.budget != nil || i.scaler != nil || i.cert != nil {
			// Where cross-object findings on it are located.
			d.Positions = indexAnchors(src, obj)
		}
	}
	if (d.Config == nil || !hasMatchConditions(d.Config)) && d.Policy == nil {
		// Only matchConditions' and policies' expressions are pointed
		// inside: the text of the other documents (most of a GitOps
		// repository, and every configuration without conditions) is not
		// kept.
		d.src = nil
		if d.Config != nil && f.opts.OnDisk && src.fileOffset >= 0 {
			d.within = src.ref(f.Name) // read again for a fix
		}
	} else if f.opts.OnDisk && src.fileOffset >= 0 {
		d.within, d.src = src.ref(f.Name), nil // read again when pointed inside
	}
	f.Docs = append(f.Docs, d)
}

func hasMatchConditions(c *rules.Config) bool {
	for i := range c.Webhooks {
		if len(c.Webhooks[i].MatchConditions) > 0 {
			return true
		}
	}
	return false
}

// unservedWebhookVersion reports a webhook configuration kind in a version
// of admissionregistration.k8s.io other than v1 and v1beta1.
func unservedWebhookVersion(apiVersion, kind string) bool {
	group, _, ok := strings.Cut(apiVersion, "/")
	return ok && group == rules.GroupName && (kind == rules.Validating || kind == rules.Mutating) &&
		apiVersion != rules.V1 && apiVersion != rules.V1beta1
}

func (f *File) decodeWebhookConfig(d *Document, src *source, obj, docNode *yaml.Node, b *budget) {
	if b.exhausted {
		return // an earlier item of the document said why it stops here
	}
	// Sized from the tree, the index is allocated once instead of growing
	// (the bound keeps an alias bomb from sizing it).
	dec := &decoder{src: src, index: newIndexFor(valueNodes(obj, 1<<16)), budget: b, strings: f.opts.Strings}
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
	dec.index.set("", diag.Span{}, src.extent(obj))
	dec.decodeStruct(obj, target, "", 0, src.extent(obj))
	d.Positions = dec.index
	if b.exhausted {
		d.abandon(dec.errs)
		return
	}

	if vwc != nil {
		d.Config = rules.FromValidating(d.APIVersion, vwc)
	} else {
		d.Config = rules.FromMutating(d.APIVersion, mwc)
	}
	// The rules read the view, which shares every field's value with the
	// typed object; its shell (metadata and the webhooks array, copied
	// into the view) is dropped rather than held beside it until the
	// unit's last rule (18 MB of 24,000 configurations).
	d.Config.Validating, d.Config.Mutating = nil, nil
	for _, e := range dec.errs {
		if strings.HasSuffix(e.path, ".reinvocationPolicy") && d.Kind == rules.Validating {
			e.msg = fmt.Sprintf("unknown field %q (reinvocationPolicy exists only on mutating webhooks)", e.path)
		}
		d.addDecodeError(e)
	}
	d.Suppressions = d.suppressions(src, dec.comments, docNode)
	d.Positions.freeze()
}

// abandon ends the decoding of an object whose aliases exhausted the
// budget: half an object would make rules report what the bomb cut off,
// so only the budget errors are reported and the object is not linted.
func (d *Document) abandon(errs []decodeError) {
	d.Positions.freeze()
	for _, e := range errs {
		if e.msg == budgetMessage {
			d.Diagnostics = append(d.Diagnostics, d.diagAt(e.at, rules.SchemaRule, diag.Error, e.path, e.msg))
		}
	}
}

// addDecodeError reports a strict-decoding error at its position (or at
// its path's, when the decoder had none): a schema error unless the
// decoder named the rule.
func (d *Document) addDecodeError(e decodeError) {
	at := e.at
	if at.IsZero() {
		at = d.Locate(e.path, e.atKey)
	}
	rule, sev := rules.SchemaRule, diag.Error
	if e.rule != "" {
		rule, sev = e.rule, rules.MustLookup(e.rule).Severity
	}
	d.Diagnostics = append(d.Diagnostics, d.diagAt(at, rule, sev, e.path, e.msg))
}

func (d *Document) diagAt(at diag.Span, rule string, sev diag.Severity, path, msg string) diag.Diagnostic {
	dg := diag.Diagnostic{
		Span:     at.In(d.File),
		Severity: sev, Rule: rule, Message: msg, Path: path, Object: d.Object(),
	}
	if d.Config != nil {
		if i, _, ok := fieldpath.Webhook(path); ok && i < len(d.Config.Webhooks) {
			dg.Webhook = d.Config.Webhooks[i].Name
		}
	}
	return dg
}

func fileDiag(file string, line, col int, rule, msg string) diag.Diagnostic {
	return diag.Diagnostic{Span: diag.Point(file, line, col),
		Severity: diag.Error, Rule: rule, Message: msg}
}

func syntaxDiag(file string, line int, chunk []byte, firstLine int, msg string) diag.Diagnostic {
	d := fileDiag(file, line, 1, rules.YAMLSyntaxRule, "invalid YAML: "+msg)
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
