package manifest

import (
	"cmp"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
)

// direct fills a typed value straight from YAML nodes with what
// decodeLenient's long way (generic, json.Marshal, json.Unmarshal) gives,
// where that is simple to repeat: a CRD's schemas went through two
// intermediate forms, and every nested items or additionalProperties
// schema was validated and decoded again by its own UnmarshalJSON. It
// gives up (false) on whatever it does not repeat, and the caller then
// takes the long way from a zero value, which decides: merge keys,
// duplicate keys, a key that differs from a field's name only in case
// (encoding/json matches it, the schemas' own decoding does not), a
// number where the field has another kind, a string that is not UTF-8,
// interface fields. It is used only in documents without
// aliases, so it follows no alias and spends no budget of its own.
type direct struct{ d *decoder }

// value fills v (addressable) from n as encoding/json fills it from n's
// JSON.
func (x direct) value(n *yaml.Node, v reflect.Value) bool {
	if n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			n = nil
		} else {
			n = n.Content[0]
		}
	}
	if n == nil || isNull(n) {
		return x.null(v)
	}
	if n.Kind == yaml.AliasNode {
		return false
	}
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return x.value(n, v.Elem())
	}
	if f := nativeDecoders[t]; f != nil {
		return f(x, n, v)
	}
	if decodesJSON(t) {
		return x.viaJSON(n, v)
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		return x.object(n, v)
	case reflect.Map:
		return x.mapping(n, v)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return x.bytes(n, v)
		}
		return x.list(n, v)
	}
	return x.scalar(n, v)
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	nullJSON        = []byte("null")
)

// null is what encoding/json does with a null: a type's own decoding
// gets it, pointers, maps, slices and interfaces become nil, anything
// else stays as it is.
func (x direct) null(v reflect.Value) bool {
	switch {
	case v.Kind() != reflect.Pointer && decodesJSON(v.Type()):
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(nullJSON) == nil
	case v.Kind() == reflect.Pointer, v.Kind() == reflect.Map, v.Kind() == reflect.Slice, v.Kind() == reflect.Interface:
		v.SetZero()
	}
	return true
}

// viaJSON hands a type's own decoding the JSON of n, the bytes
// encoding/json would hand it.
func (x direct) viaJSON(n *yaml.Node, v reflect.Value) bool {
	val, err := x.d.generic(n)
	if err != nil {
		return false
	}
	raw, err := json.Marshal(val)
	if err != nil {
		return false
	}
	return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw) == nil
}

func (x direct) object(n *yaml.Node, v reflect.Value) bool {
	p := planOf(v.Type())
	if n.Kind != yaml.MappingNode || p == nil {
		return false
	}
	var seen uint64
	var seenMore map[int]bool // only for structs of more than 64 fields
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind != yaml.ScalarNode || kn.Tag == "!!merge" {
			return false
		}
		f, known := p.byName[kn.Value]
		if !known {
			// The long way ignores it, unless its value has no JSON at
			// all (the whole object then fails) or encoding/json takes it
			// for a field whose name differs only in case.
			if _, err := x.d.generic(vn); err != nil || p.folds(kn.Value) {
				return false
			}
			continue
		}
		if f < 64 {
			if seen&(1<<f) != 0 {
				return false
			}
			seen |= 1 << f
		} else {
			if seenMore[f] {
				return false
			}
			if seenMore == nil {
				seenMore = map[int]bool{}
			}
			seenMore[f] = true
		}
		field := p.fields[f]
		if field.quoted || !x.value(vn, v.FieldByIndex(field.index)) {
			return false
		}
	}
	return true
}

func (x direct) mapping(n *yaml.Node, v reflect.Value) bool {
	t := v.Type()
	if n.Kind != yaml.MappingNode || t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshaler) {
		return false
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(t, len(n.Content)/2))
	}
	// One key and one element for all entries, as encoding/json has:
	// SetMapIndex copies them.
	key, elem := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind != yaml.ScalarNode || kn.Tag == "!!merge" || !utf8.ValidString(kn.Value) {
			return false
		}
		key.SetString(kn.Value)
		if v.MapIndex(key).IsValid() {
			return false
		}
		elem.SetZero()
		if !x.value(vn, elem) {
			return false
		}
		v.SetMapIndex(key, elem)
	}
	return true
}

func (x direct) list(n *yaml.Node, v reflect.Value) bool {
	if n.Kind != yaml.SequenceNode {
		return false
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		if !x.value(c, s.Index(i)) {
			return false
		}
	}
	v.Set(s)
	return true
}

// bytes decodes base64 text, as encoding/json does for a []byte.
func (x direct) bytes(n *yaml.Node, v reflect.Value) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	val, err := genericScalar(n)
	s, ok := val.(string)
	if err != nil || !ok || !utf8.ValidString(s) {
		return false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	k, err := base64.StdEncoding.Decode(b, []byte(s))
	if err != nil {
		return false
	}
	v.SetBytes(b[:k])
	return true
}

// scalar sets a string, boolean or number field from a scalar of its JSON
// kind; encoding/json would turn a float into an integer field when it has
// no fraction, which is left to the long way.
func (x direct) scalar(n *yaml.Node, v reflect.Value) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	val, err := genericScalar(n)
	if err != nil {
		return false
	}
	switch v.Kind() {
	case reflect.String:
		s, ok := val.(string)
		if !ok || !utf8.ValidString(s) {
			return false // json.Marshal would have replaced the bad bytes
		}
		v.SetString(s)
		return true
	case reflect.Bool:
		b, ok := val.(bool)
		if ok {
			v.SetBool(b)
		}
		return ok
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := val.(int64)
		if !ok || v.OverflowInt(i) {
			return false
		}
		v.SetInt(i)
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		i, ok := val.(int64)
		if !ok || i < 0 || v.OverflowUint(uint64(i)) {
			return false
		}
		v.SetUint(uint64(i))
		return true
	case reflect.Float64:
		switch f := val.(type) {
		case int64:
			v.SetFloat(float64(f))
			return true
		case float64:
			v.SetFloat(f)
			return true
		}
	}
	return false
}

// nativeDecoders repeat the UnmarshalJSON of the schema types that wrap a
// schema (items, additionalProperties) for the one form worth it, an
// object; they hand anything else to the type's own decoding. (Filled in
// init: they call value, which reads the map.)
var nativeDecoders map[reflect.Type]func(direct, *yaml.Node, reflect.Value) bool

func init() {
	nativeDecoders = map[reflect.Type]func(direct, *yaml.Node, reflect.Value) bool{
		reflect.TypeFor[apiextensionsv1.JSONSchemaPropsOrArray](): schemaThen(func(s *apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaPropsOrArray {
			return apiextensionsv1.JSONSchemaPropsOrArray{Schema: s}
		}),
		reflect.TypeFor[apiextensionsv1.JSONSchemaPropsOrBool](): schemaThen(func(s *apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaPropsOrBool {
			return apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: s}
		}),
		reflect.TypeFor[apiextensionsv1beta1.JSONSchemaPropsOrArray](): schemaThen(func(s *apiextensionsv1beta1.JSONSchemaProps) apiextensionsv1beta1.JSONSchemaPropsOrArray {
			return apiextensionsv1beta1.JSONSchemaPropsOrArray{Schema: s}
		}),
		reflect.TypeFor[apiextensionsv1beta1.JSONSchemaPropsOrBool](): schemaThen(func(s *apiextensionsv1beta1.JSONSchemaProps) apiextensionsv1beta1.JSONSchemaPropsOrBool {
			return apiextensionsv1beta1.JSONSchemaPropsOrBool{Allows: true, Schema: s}
		}),
	}
}

// schemaThen decodes an object into a new S, as the wrapper's
// UnmarshalJSON does (with k8s.io/apimachinery's case-sensitive JSON,
// which agrees with direct where direct does not give up), and stores
// what wrap makes of it.
func schemaThen[S, W any](wrap func(*S) W) func(direct, *yaml.Node, reflect.Value) bool {
	return func(x direct, n *yaml.Node, v reflect.Value) bool {
		if n.Kind != yaml.MappingNode {
			return x.viaJSON(n, v)
		}
		s := new(S)
		if !x.object(n, reflect.ValueOf(s).Elem()) {
			return false
		}
		v.Set(reflect.ValueOf(wrap(s)))
		return true
	}
}

// structPlan is how encoding/json finds a struct's fields by JSON name:
// embedded structs' fields promoted, the shallowest of a name winning,
// then the tagged one, and a name still ambiguous dropped.
type structPlan struct {
	byName map[string]int
	fields []planField
}

type planField struct {
	index []int
	// quoted is the ",string" option, which direct does not repeat.
	quoted bool
}

func (p *structPlan) folds(key string) bool {
	for name := range p.byName {
		if strings.EqualFold(name, key) {
			return true
		}
	}
	return false
}

var plans sync.Map // reflect.Type -> *structPlan (nil: not repeated)

func planOf(t reflect.Type) *structPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*structPlan)
	}
	p := buildPlan(t)
	plans.Store(t, p)
	return p
}

func buildPlan(t reflect.Type) *structPlan {
	type candidate struct {
		name           string
		index          []int
		depth          int
		tagged, quoted bool
	}
	var all []candidate
	var walk func(t reflect.Type, index []int, depth int) bool
	walk = func(t reflect.Type, index []int, depth int) bool {
		for i := range t.NumField() {
			sf := t.Field(i)
			ft := sf.Type
			if sf.Anonymous {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if !sf.IsExported() && ft.Kind() != reflect.Struct {
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(slices.Clone(index), i)
			if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
				// encoding/json allocates an embedded pointer; direct
				// does not.
				if sf.Type.Kind() == reflect.Pointer || !walk(ft, idx, depth+1) {
					return false
				}
				continue
			}
			all = append(all, candidate{name: cmp.Or(name, sf.Name), index: idx, depth: depth, tagged: name != "",
				quoted: slices.Contains(strings.Split(opts, ","), "string")})
		}
		return true
	}
	if !walk(t, nil, 0) {
		return nil
	}
	p := &structPlan{byName: map[string]int{}}
	byName := map[string][]candidate{}
	var names []string
	for _, c := range all {
		if _, ok := byName[c.name]; !ok {
			names = append(names, c.name)
		}
		byName[c.name] = append(byName[c.name], c)
	}
	for _, name := range names {
		cs := byName[name]
		top := slices.MinFunc(cs, func(a, b candidate) int { return a.depth - b.depth }).depth
		cs = slices.DeleteFunc(cs, func(c candidate) bool { return c.depth > top })
		if len(cs) > 1 {
			cs = slices.DeleteFunc(cs, func(c candidate) bool { return !c.tagged })
		}
		if len(cs) != 1 {
			continue // ambiguous: encoding/json drops the name
		}
		p.byName[name] = len(p.fields)
		p.fields = append(p.fields, planField{index: cs[0].index, quoted: cs[0].quoted})
	}
	return p
}
