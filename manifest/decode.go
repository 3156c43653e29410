package manifest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/suggest"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/internal/intern"
	"github.com/webhooklint/webhooklint/internal/placeholder"
	"github.com/webhooklint/webhooklint/rules"
)

// maxNodes bounds how many YAML nodes the documents of one file may expand
// to (aliases included), so an alias bomb fails with a clear error instead
// of eating memory. Real webhook configurations have a few thousand nodes
// at most.
const maxNodes = 1 << 20

// aliasFactor is how many times its own node count a document may expand to
// on top of its share of maxNodes: anchors reused a few times are normal,
// a thousandfold is a bomb.
const aliasFactor = 32

// budget is what one document may still expand to. It is shared by
// everything decoded from the document (List items, inventory summaries),
// and a file's documents share maxNodes between them, so neither many
// items nor many documents multiply the limit.
type budget struct {
	left      int
	exhausted bool
	// plain is set when the document has no alias: reading it then visits
	// each node a few times at most, far within the budget.
	plain bool
}

// newBudget gives a document of treeNodes nodes (aliases not followed),
// one of docs in its file, its share.
func newBudget(treeNodes, docs int) *budget {
	return &budget{left: aliasFactor*treeNodes + maxNodes/max(docs, 1)}
}

// docBudget is newBudget for a document's tree.
func docBudget(root *yaml.Node, docs int) *budget {
	nodes, aliases := countNodes(root)
	b := newBudget(nodes, docs)
	b.plain = !aliases
	return b
}

// countNodes counts a tree's nodes without following aliases, and tells
// whether it has any.
func countNodes(n *yaml.Node) (nodes int, aliases bool) {
	if n == nil {
		return 0, false
	}
	nodes, aliases = 1, n.Kind == yaml.AliasNode
	for _, k := range n.Content {
		c, a := countNodes(k)
		nodes, aliases = nodes+c, aliases || a
	}
	return nodes, aliases
}

// decodeError is a strict-decoding problem at a field path.
type decodeError struct {
	path  string
	atKey bool
	msg   string
	at    diag.Span
	// rule is set when the problem belongs to a rule other than schema.
	rule string
}

// decoder fills a typed value from a YAML node tree the way the API server's
// strict JSON decoding would (case-sensitive field names, unknown and
// duplicate fields rejected, no type coercion), recording where every field
// is written as it goes. One pass gives the typed object, the errors and
// the position index.
type decoder struct {
	src      *source
	index    *Index
	errs     []decodeError
	comments []comment
	budget   *budget
	// strings shares the decoded values of a unit's objects
	// (Options.Strings); nil shares nothing.
	strings *intern.Table
}

func (d *decoder) fail(path string, atKey bool, at diag.Span, format string, args ...any) {
	d.errs = append(d.errs, decodeError{path: path, atKey: atKey, msg: fmt.Sprintf(format, args...), at: at})
}

func (d *decoder) spend(n *yaml.Node) bool {
	if d.budget == nil {
		d.budget = newBudget(0, 1)
	}
	d.budget.left--
	if d.budget.left < 0 {
		if !d.budget.exhausted {
			d.budget.exhausted = true
			d.fail("", false, d.src.rangeOf(n), "%s", budgetMessage)
		}
		return false
	}
	return true
}

const budgetMessage = "aliases expand this document far beyond its size (an alias bomb?); not decoded further — write the repeated values out or use fewer aliases"

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	byteSlice       = reflect.TypeFor[[]byte]()
)

// decodesJSON reports whether *t has its own JSON decoding, asked once
// per type: reflect answers it by scanning the method set, and the decoder
// asks for every value.
func decodesJSON(t reflect.Type) bool {
	if v, ok := jsonDecoders.Load(t); ok {
		return v.(bool)
	}
	b := reflect.PointerTo(t).Implements(jsonUnmarshaler)
	jsonDecoders.Store(t, b)
	return b
}

var jsonDecoders sync.Map // reflect.Type -> bool

// decode fills v (addressable) from n. path is the field path of v.
// parent is the index node of the field that holds v (0 for the object).
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, parent int32, parentPath string, keyRange diag.Span) {
	if !d.spend(n) {
		return
	}
	orig := n
	n = resolve(n)
	if n == nil {
		return
	}
	ps := path
	// An alias is written where it is used, not where it was anchored.
	var valRange diag.Span
	if orig == n {
		valRange = d.src.extent(n)
	} else {
		valRange = d.src.rangeOf(orig)
	}
	id := int32(0)
	if ps != "" {
		id = d.index.setUnder(parent, parentPath, ps, keyRange, valRange)
	}

	if isNull(n) {
		// JSON null leaves non-pointer values alone and clears pointers,
		// slices and maps.
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.Set(reflect.Zero(v.Type()))
		}
		return
	}

	if v.Kind() == reflect.Pointer {
		allocated := v.IsNil()
		if allocated {
			v.Set(reflect.New(v.Type().Elem()))
		} else if d.strings != nil {
			// Written again (a merge key, then the field itself): what it
			// points at may be shared with the unit's other objects
			// (below), so the second value goes into a copy.
			own := reflect.New(v.Type().Elem())
			own.Elem().Set(v.Elem())
			v.Set(own)
		}
		errs := len(d.errs)
		d.decodeInto(n, v.Elem(), path, ps, id, valRange)
		switch {
		case allocated && slices.ContainsFunc(d.errs[errs:], func(e decodeError) bool { return e.path == ps }):
			// A value of the wrong type is reported once, as such; leaving
			// a zero behind would make rules report it again as "0".
			v.Set(reflect.Zero(v.Type()))
		case allocated && d.strings != nil && len(d.errs) == errs && sharedScalar[v.Type().Elem().Kind()]:
			// Every webhook of a unit points at its own "Fail", "None",
			// Namespaced and 10 (about 70 bytes a webhook, until the unit's
			// last rule); one each is enough, as no rule writes through
			// them.
			v.Set(reflect.ValueOf(d.strings.Shared(scalarKey{v.Type(), v.Elem().Interface()}, v.Interface())))
		case allocated && d.strings != nil && len(d.errs) == errs && sharedStruct(v.Type().Elem()):
			// So are pointers to small structs (a selector, a service),
			// as lists of them are (decodeSlice).
			v.Set(reflect.ValueOf(d.strings.Shared(memoryKey(v.Type(), v.UnsafePointer(), v.Type().Elem().Size()), v.Interface())))
		}
		return
	}
	d.decodeInto(n, v, path, ps, id, valRange)
}

func (d *decoder) decodeInto(n *yaml.Node, v reflect.Value, path, ps string, id int32, at diag.Span) {
	if v.CanAddr() && decodesJSON(v.Type()) {
		d.decodeJSON(n, v, ps, at)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, path, id, at)
	case reflect.Map:
		d.decodeMap(n, v, path, id, at)
	case reflect.Slice:
		if v.Type() == byteSlice {
			d.decodeBytes(n, v, ps, at)
			return
		}
		d.decodeSlice(n, v, path, id, at)
	case reflect.String:
		s, ok := d.scalar(n, tagStr)
		if !ok {
			d.typeError(n, v.Type(), ps, at)
			return
		}
		v.SetString(d.strings.String(s))
	case reflect.Bool:
		s, ok := d.scalar(n, tagBool)
		if !ok {
			d.typeError(n, v.Type(), ps, at)
			return
		}
		b, _ := parseBool(s)
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s, ok := d.scalar(n, tagInt)
		if !ok {
			d.typeError(n, v.Type(), ps, at)
			return
		}
		i, err := parseInt(s)
		if err != nil || v.OverflowInt(i) {
			d.fail(ps, false, at, "cannot unmarshal number %s into %s of type %s", s, ps, jsonTypeName(v.Type()))
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s, ok := d.scalar(n, tagInt)
		if !ok {
			d.typeError(n, v.Type(), ps, at)
			return
		}
		i, err := strconv.ParseUint(strings.ReplaceAll(s, "_", ""), 0, 64)
		if err != nil || v.OverflowUint(i) {
			d.fail(ps, false, at, "cannot unmarshal number %s into %s of type %s", s, ps, jsonTypeName(v.Type()))
			return
		}
		v.SetUint(i)
	case reflect.Float32, reflect.Float64:
		s, ok := d.scalar(n, tagFloat)
		if !ok {
			if s, ok = d.scalar(n, tagInt); !ok {
				d.typeError(n, v.Type(), ps, at)
				return
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			d.typeError(n, v.Type(), ps, at)
			return
		}
		v.SetFloat(f)
	case reflect.Interface:
		val, err := d.generic(n)
		if err != nil {
			d.fail(ps, false, at, "%v", err)
			return
		}
		if val != nil {
			v.Set(reflect.ValueOf(val))
		}
	default:
		d.fail(ps, false, at, "cannot decode into %s", v.Type())
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string, id int32, at diag.Span) {
	if n.Kind != yaml.MappingNode {
		d.typeError(n, v.Type(), path, at)
		return
	}
	fields := structFields(v.Type())
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), n.Content[i+1]
		if kn == nil {
			continue
		}
		keyRange := d.src.extent(kn)
		if kn.Tag == "!!merge" {
			d.mergeInto(vn, v, path, id, fields, seen)
			continue
		}
		name, ok := d.scalar(kn, tagStr)
		if !ok {
			d.fail(path, true, keyRange, "field names must be strings, got %s", describe(kn))
			continue
		}
		child := fieldpath.Field(path, name)
		if seen[name] {
			d.fail(child, true, keyRange, "duplicate field %q", name)
			continue
		}
		seen[name] = true
		d.noteComments(child, kn, vn, path == "" && i == 0)
		f, known := fields[name]
		if !known {
			d.fail(child, true, keyRange, "unknown field %q%s", child, suggest.Hint(name, slices.Collect(maps.Keys(fields))))
			// Keep its position so the finding lands on the key.
			d.index.setUnder(id, path, child, keyRange, d.src.extent(resolve(vn)))
			continue
		}
		d.decode(vn, v.FieldByIndex(f), child, id, path, keyRange)
	}
}

// mergeInto applies a YAML merge key (<<: *anchor). The JSON the API server
// sees has the merged fields, so they are decoded as if written inline;
// explicitly written fields win, as in YAML.
func (d *decoder) mergeInto(vn *yaml.Node, v reflect.Value, path string, id int32, fields map[string][]int, seen map[string]bool) {
	vn = resolve(vn)
	var sources []*yaml.Node
	switch {
	case vn == nil:
		return
	case vn.Kind == yaml.MappingNode:
		sources = []*yaml.Node{vn}
	case vn.Kind == yaml.SequenceNode:
		for _, s := range vn.Content {
			sources = append(sources, resolve(s))
		}
	}
	for _, m := range sources {
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			name, ok := d.scalar(resolve(m.Content[i]), tagStr)
			if !ok || seen[name] {
				continue
			}
			f, known := fields[name]
			if !known {
				continue
			}
			d.decode(m.Content[i+1], v.FieldByIndex(f), fieldpath.Field(path, name), id, path, d.src.extent(m.Content[i]))
		}
	}
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string, id int32, at diag.Span) {
	if n.Kind != yaml.MappingNode {
		d.typeError(n, v.Type(), path, at)
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Content)/2))
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := resolve(n.Content[i])
		if kn == nil {
			continue
		}
		keyRange := d.src.extent(kn)
		key, ok := d.scalar(kn, tagStr)
		if !ok {
			// JSON object keys are always strings; YAML 1.1 would have
			// made `yes:` a bool, which the server's conversion rejects.
			d.fail(path, true, keyRange, "map keys must be strings, got %s", describe(kn))
			continue
		}
		child := fieldpath.Key(path, key)
		if seen[key] {
			d.fail(child, true, keyRange, "duplicate field %q", key)
			continue
		}
		seen[key] = true
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(n.Content[i+1], elem, child, id, path, keyRange)
		v.SetMapIndex(reflect.ValueOf(d.strings.String(key)).Convert(v.Type().Key()), elem)
	}
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string, id int32, at diag.Span) {
	if n.Kind != yaml.SequenceNode {
		d.typeError(n, v.Type(), path, at)
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	errs := len(d.errs)
	for i, item := range n.Content {
		ip := fieldpath.Index(path, i)
		d.noteComments(ip, item, nil, false)
		d.decode(item, s.Index(i), ip, id, path, diag.Span{})
	}
	if d.strings != nil && len(d.errs) == errs && s.Len() > 0 && s.Type().Elem().Kind() == reflect.String {
		// A unit's configurations repeat the same short lists (["v1"],
		// [CREATE, UPDATE], [""]); each copy would stay alive until the
		// unit's last rule. No rule writes into a decoded list.
		s = reflect.ValueOf(d.strings.Shared(stringsKey(s), s.Interface()))
	} else if d.strings != nil && len(d.errs) == errs && s.Len() > 0 && sharedStruct(s.Type().Elem()) {
		// So are their lists of rules, matchConditions and
		// matchExpressions, once the strings, lists and pointers in them
		// are shared: equal lists are then equal in memory.
		s = reflect.ValueOf(d.strings.Shared(memoryKey(s.Type(), s.UnsafePointer(), uintptr(s.Len())*s.Type().Elem().Size()), s.Interface()))
	}
	v.Set(s)
}

// sharedStruct reports whether lists of t and pointers to t are shared
// within a unit (decodeSlice, decode): small structs, which a unit's webhooks repeat (a rule, a
// match condition, a selector's requirement). The table keeps a copy of
// the key of each list it sees, so a large struct, most often unique (a
// webhook), is not worth the key.
func sharedStruct(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.Size() <= 128
}

// memoryKey names a list or a pointer of type t by the n bytes at p, its
// elements or what it points at. Values with equal bytes hold the same
// strings, lists and pointers, so they are equal; equal values that point
// at different copies (a value not shared, a map) get different keys, and
// are kept apart.
func memoryKey(t reflect.Type, p unsafe.Pointer, n uintptr) any {
	return struct {
		t reflect.Type
		k string
	}{t, string(unsafe.Slice((*byte)(p), n))}
}

// sharedScalar are the kinds of value a pointer to which is shared within
// a unit (decode).
var sharedScalar = map[reflect.Kind]bool{
	reflect.String: true, reflect.Bool: true,
	reflect.Int: true, reflect.Int8: true, reflect.Int16: true, reflect.Int32: true, reflect.Int64: true,
	reflect.Uint: true, reflect.Uint8: true, reflect.Uint16: true, reflect.Uint32: true, reflect.Uint64: true,
}

// scalarKey names a pointer to a scalar by its type and value.
type scalarKey struct {
	t reflect.Type
	v any
}

// stringsKey names a list of strings and its type, each string prefixed
// by its length so that no two lists share a key.
func stringsKey(s reflect.Value) any {
	var b strings.Builder
	for i := range s.Len() {
		e := s.Index(i).String()
		b.WriteString(strconv.Itoa(len(e)))
		b.WriteByte(':')
		b.WriteString(e)
	}
	return struct {
		t reflect.Type
		k string
	}{s.Type(), b.String()}
}

func (d *decoder) decodeBytes(n *yaml.Node, v reflect.Value, ps string, at diag.Span) {
	s, ok := d.scalar(n, tagStr)
	if !ok {
		d.typeError(n, v.Type(), ps, at)
		return
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		tok, ok := placeholder.Find(s)
		if !ok {
			// Words a sample asks the user to replace are no base64
			// mistake either.
			tok, ok = placeholder.Prose(s)
		}
		if ok {
			// Not a base64 mistake: a substitution nobody ran. Say so,
			// under the placeholder rule and its (user-chosen) severity.
			d.errs = append(d.errs, decodeError{path: ps, at: at, rule: rules.PlaceholderRule,
				msg: rules.PlaceholderMessage(tok)})
			return
		}
		d.fail(ps, false, at, "%s must be base64-encoded: %v", ps, err)
		return
	}
	v.SetBytes(b)
}

// decodeJSON hands a value to a type's own JSON decoding (metav1.Time,
// managed fields and the like), as the server would.
func (d *decoder) decodeJSON(n *yaml.Node, v reflect.Value, ps string, at diag.Span) {
	val, err := d.generic(n)
	if err != nil {
		d.fail(ps, false, at, "%v", err)
		return
	}
	raw, err := json.Marshal(val)
	if err != nil {
		d.fail(ps, false, at, "%v", err)
		return
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		d.fail(ps, false, at, "invalid value for %s: %v", ps, err)
	}
}

func (d *decoder) typeError(n *yaml.Node, t reflect.Type, ps string, at diag.Span) {
	if s, ok := d.scalar(n, tagStr); ok {
		if tok, ok := placeholder.Find(s); ok {
			// A string where a number, list or object belongs is, when it
			// is a placeholder (HELMSUBST_TIMEOUT), a substitution nobody ran.
			d.errs = append(d.errs, decodeError{path: ps, at: at, rule: rules.PlaceholderRule,
				msg: rules.PlaceholderMessage(tok)})
			return
		}
	}
	d.fail(ps, false, at, "cannot unmarshal %s into %s of type %s", describe(n), ps, jsonTypeName(t))
}

// jsonTypeName names Go types the way a manifest author thinks of them.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		if t == byteSlice {
			return "string"
		}
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer (" + t.Kind().String() + ")"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}

// generic converts a node to the value the API server's YAML-to-JSON
// conversion would produce.
func (d *decoder) generic(n *yaml.Node) (any, error) {
	if !d.spend(n) {
		return nil, fmt.Errorf("document too large")
	}
	n = resolve(n)
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return d.generic(n.Content[0])
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := resolve(n.Content[i])
			if kn.Tag == "!!merge" {
				mv, err := d.generic(n.Content[i+1])
				if err != nil {
					return nil, err
				}
				mergeGeneric(m, mv)
				continue
			}
			k, ok := d.scalar(kn, tagStr)
			if !ok {
				k = kn.Value
			}
			v, err := d.generic(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := d.generic(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		return genericScalar(n)
	}
	return nil, nil
}

// genericScalar is generic's value of a scalar node: nil, a bool, an
// int64, a float64 or a string.
func genericScalar(n *yaml.Node) (any, error) {
	switch resolvedTag(n) {
	case tagNull:
		return nil, nil
	case tagBool:
		b, _ := parseBool(n.Value)
		return b, nil
	case tagInt:
		i, err := parseInt(n.Value)
		if err != nil {
			return n.Value, nil
		}
		return i, nil
	case tagFloat:
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("number %s cannot be represented in JSON", n.Value)
		}
		return f, nil
	}
	return n.Value, nil
}

func mergeGeneric(dst map[string]any, src any) {
	switch s := src.(type) {
	case map[string]any:
		for k, v := range s {
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	case []any:
		for _, e := range s {
			mergeGeneric(dst, e)
		}
	}
}

// structFields maps JSON names to field indexes, inlining embedded and
// `json:",inline"` structs, cached per type.
var fieldCache sync.Map // reflect.Type -> map[string][]int

func structFields(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	collectFields(t, nil, m)
	fieldCache.Store(t, m)
	return m
}

func collectFields(t reflect.Type, prefix []int, m map[string][]int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), prefix...), i)
		inline := strings.Contains(opts, "inline") || (f.Anonymous && name == "")
		if inline && f.Type.Kind() == reflect.Struct {
			collectFields(f.Type, idx, m)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m[name]; !dup {
			m[name] = idx
		}
	}
}
