package manifest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
)

// lenientTarget is the typed value decodeLenient fills for a kind, nil for
// kinds it does not read whole.
func lenientTarget(apiVersion, kind string) any {
	switch {
	case kind == "CustomResourceDefinition" && apiVersion == apiextensionsv1.SchemeGroupVersion.String():
		return &apiextensionsv1.CustomResourceDefinition{}
	case kind == "CustomResourceDefinition" && apiVersion == apiextensionsv1beta1.SchemeGroupVersion.String():
		return &apiextensionsv1beta1.CustomResourceDefinition{}
	case apiVersion == "v1" && kind == "Service":
		return &corev1.Service{}
	case apiVersion == "v1" && kind == "Namespace":
		return &corev1.Namespace{}
	case kind == "PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}
	case kind == "ClusterRole" || kind == "Role":
		return &rbacv1.ClusterRole{}
	case kind == "ClusterRoleBinding" || kind == "RoleBinding":
		return &rbacv1.ClusterRoleBinding{}
	case kind == "Deployment" || kind == "DaemonSet" || kind == "StatefulSet":
		return &struct {
			Spec struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}{}
	}
	return nil
}

// bothWays decodes obj directly and the long way into new values of
// into's type. direct is false when the direct way gave up.
func bothWays(t *testing.T, obj *yaml.Node, into any) (direct, long bool) {
	t.Helper()
	typ := reflect.TypeOf(into).Elem()
	viaDirect, viaLong := reflect.New(typ), reflect.New(typ)
	d := &decoder{src: &source{}, budget: newBudget(0, 1)}
	direct = directValue(d, obj, viaDirect.Elem())
	long = (&decoder{src: &source{}, budget: newBudget(0, 1)}).viaJSON(obj, viaLong.Interface())
	if direct && (!long || !reflect.DeepEqual(viaDirect.Interface(), viaLong.Interface())) {
		t.Errorf("the direct way decoded %s, the long way (ok %v) %s", dump(viaDirect.Interface()), long, dump(viaLong.Interface()))
	}
	return direct, long
}

func directValue(d *decoder, obj *yaml.Node, v reflect.Value) bool { return (direct{d}).value(obj, v) }

func dump(v any) string {
	var b bytes.Buffer
	_ = yaml.NewEncoder(&b).Encode(v)
	return b.String()
}

func documents(t *testing.T, data []byte) []*yaml.Node {
	t.Helper()
	var out []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) || err != nil {
			return out
		}
		if len(n.Content) == 1 {
			out = append(out, n.Content[0])
		}
	}
}

// TestDirectIsTheLongWay decodes every object decodeLenient reads in the
// corpus, the layouts, testdata and examples both ways: where the direct
// way decodes, its value is the long way's. Every CRD without aliases must
// take the direct way, or it buys nothing.
func TestDirectIsTheLongWay(t *testing.T) {
	roots := []string{"../testdata", "../examples", "../../shared/corpus/real", "../../shared/corpus/layouts"}
	counts := map[string][2]int{} // kind -> decoded directly, read
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			t.Logf("%s: %v", root, err)
			continue
		}
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || (!strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml")) {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, obj := range documents(t, data) {
				if _, aliases := countNodes(obj); aliases || obj.Kind != yaml.MappingNode {
					continue
				}
				kind := scalarField(obj, "kind")
				into := lenientTarget(scalarField(obj, "apiVersion"), kind)
				if into == nil {
					continue
				}
				direct, long := bothWays(t, obj, into)
				c := counts[kind]
				if direct {
					c[0]++
				}
				c[1]++
				counts[kind] = c
				if kind == "CustomResourceDefinition" && long && !direct {
					t.Errorf("%s:%d: a CRD the long way decodes took the long way", path, obj.Line)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if counts["CustomResourceDefinition"][0] == 0 {
		t.Fatal("no CRD decoded")
	}
	t.Logf("decoded directly, of those read: %v", counts)
}

// TestDirectGivesUpWhereItDiffers decodes what the direct way does not
// repeat, and what it repeats only with care; decodeLenient must give what
// the long way alone gives, whichever way it took.
func TestDirectGivesUpWhereItDiffers(t *testing.T) {
	crd := func(schema string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.b.c, creationTimestamp: null}\n" +
			"spec:\n  group: b.c\n  names: {plural: a, kind: A}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n" +
			"    schema:\n      openAPIV3Schema:\n" + indent(schema, "        ")
	}
	cases := map[string]struct {
		doc    string
		direct bool // whether the direct way decodes it
	}{
		"plain":                      {crd("type: object\nproperties:\n  spec: {type: object, x-kubernetes-preserve-unknown-fields: true}"), true},
		"items object":               {crd("type: array\nitems: {type: string, enum: [a, b, null]}"), true},
		"items list":                 {crd("type: array\nitems: [{type: string}]"), true},
		"items scalar":               {crd("type: array\nitems: 5"), true},
		"items empty":                {crd("type: array\nitems: {}"), true},
		"additionalProperties false": {crd("type: object\nadditionalProperties: false"), true},
		"additionalProperties yes":   {crd("type: object\nadditionalProperties: yes"), true},
		"additionalProperties text":  {crd("type: object\nadditionalProperties: \"true\""), false},
		"additionalProperties null":  {crd("type: object\nadditionalProperties: null"), true},
		"additionalProperties map":   {crd("type: object\nadditionalProperties: {type: integer, maximum: 3, minimum: 1.5}"), true},
		"default HTML":               {crd("type: string\ndefault: \"<a & b>\"\nexample: {z: 1, a: [1.5, true, ~, \"x\"]}"), true},
		"key in another case":        {crd("type: object\nType: string"), false},
		"key in another case only":   {crd("Type: string"), false},
		"duplicate key":              {crd("type: object\ntype: string"), false},
		"duplicate property":         {crd("properties:\n  a: {type: string}\n  a: {type: integer}"), false},
		"merge key":                  {crd("type: object\n<<: {description: x}"), false},
		"float where an integer is":  {crd("type: string\nmaxLength: 3.0"), false},
		"fraction where an integer":  {crd("type: string\nmaxLength: 3.5"), false},
		"integer too large":          {crd("type: string\nmaxLength: 99999999999999999999"), false},
		"infinity in an unknown key": {crd("type: string\nfoo: .inf"), false},
		"not a number in a string":   {crd("type: string\ndescription: .nan"), false},
		"unknown keys":               {crd("type: string\nfoo: {bar: [1, 2]}\n1: 2"), true},
		"string where a list is":     {crd("type: object\nrequired: a"), false},
		"YAML 1.1 boolean":           {crd("type: object\nnullable: yes\nx-kubernetes-preserve-unknown-fields: on"), true},
		"quoted boolean":             {crd("type: object\nnullable: \"true\""), false},
		"empty lists and maps":       {crd("type: object\nrequired: []\nproperties: {}\nenum: []"), true},
		"null list":                  {crd("type: object\nrequired: null\nallOf: ~"), true},
		"dependencies":               {crd("type: object\ndependencies: {a: [b], c: {type: string}, d: null}"), true},
		"timestamp":                  {crd("type: object\ndescription: 2001-12-14"), true},
		"v1beta1": {"apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: a.b.c}\n" +
			"spec: {group: b.c, version: v1, names: {plural: a, kind: A}, validation: {openAPIV3Schema: {type: object, properties: {a: {type: array, items: {type: string}}}}}}", true},
		"caBundle":      {crd("type: object") + "  conversion: {strategy: Webhook, webhook: {clientConfig: {caBundle: Cg==}, conversionReviewVersions: [v1]}}", true},
		"caBundle text": {crd("type: object") + "  conversion: {strategy: Webhook, webhook: {clientConfig: {caBundle: not base64}, conversionReviewVersions: [v1]}}", false},
		"caBundle list": {crd("type: object") + "  conversion: {strategy: Webhook, webhook: {clientConfig: {caBundle: [1, 2]}, conversionReviewVersions: [v1]}}", false},
		"status":        {crd("type: object") + "status: {acceptedNames: {kind: \"\", plural: \"\"}, conditions: [], storedVersions: []}", true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			obj := documents(t, []byte(c.doc))[0]
			into := lenientTarget(scalarField(obj, "apiVersion"), scalarField(obj, "kind"))
			direct, long := bothWays(t, obj, into)
			if direct != c.direct {
				t.Errorf("decoded directly: %v, want %v (the long way: %v)", direct, c.direct, long)
			}
			// decodeLenient, whichever way it goes, is the long way.
			got, want := reflect.New(reflect.TypeOf(into).Elem()), reflect.New(reflect.TypeOf(into).Elem())
			b := docBudget(obj, 1)
			ok := decodeLenient(&source{}, obj, got.Interface(), b)
			wantOK := (&decoder{src: &source{}, budget: newBudget(0, 1)}).viaJSON(obj, want.Interface())
			if ok != wantOK || (ok && !reflect.DeepEqual(got.Interface(), want.Interface())) {
				t.Errorf("decodeLenient gave (%v) %s, the long way (%v) %s", ok, dump(got.Interface()), wantOK, dump(want.Interface()))
			}
		})
	}
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(s, "\n", "\n"+by) + "\n"
}

// FuzzDirect checks that wherever the direct way decodes a CRD, it decodes
// what the long way decodes.
func FuzzDirect(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/rules/*/*crd*.yaml")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {versions: [{name: v1, schema: {openAPIV3Schema: {type: array, items: {type: string, default: x}}}}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, obj := range documents(t, data) {
			if _, aliases := countNodes(obj); !aliases {
				bothWays(t, obj, &apiextensionsv1.CustomResourceDefinition{})
			}
		}
	})
}
