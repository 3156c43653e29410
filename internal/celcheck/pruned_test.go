package celcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/cel-go/common/ast"
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"

	"github.com/webhooklint/webhooklint/internal/openapi"
)

// prunedEdgeCases read fields in every way the checker resolves them.
var prunedEdgeCases = []string{
	`object.metadata.namespace == "a"`,                    // a CEL reserved word
	`object.?spec.?containers.orValue([]).size() > 0`,     // optional selection
	`object.spec["replicas"] == 3`,                        // index by a constant
	`"replicas" in object.spec`,                           // in on an object
	`object.spec.exists(k, k == "replicas")`,              // an object as a range
	`object.spec.nope == 1 && object.status.nope == 2`,    // missing under a kept object
	`object.spec == oldObject.spec`,                       // whole objects
	`object.spec.template.spec == null`,                   // null against an object
	`object.metadata.labels.size() == 1`,                  // a map
	`object.spec.selector.matchLabels.app == "x"`,         // a map's value
	`object.data.exists(k, k.startsWith("x"))`,            // a map as a range
	`object.spec.ports.exists(p, p.port == "80")`,         // a list's objects
	`object.spec.containers[0].resources.limits.cpu == 1`, // int-or-string under a map
	`object.metadata.managedFields[0].fieldsV1.f == 1`,    // an open object
	`object.spec.rules.all(r, r.http.paths.size() > 0)`,
	`object.subsets[0].addresses[0].ip == 1`,
	`has(object.spec.template.metadata.labels.app)`,
	`object.spec.replicas == "3" || object.status.replicas != "3"`,
	`object.spec.containers.map(c, c.ports).size() > 0`,
	`object.rules[0].apiGroups == ["apps"]`,
	`object.spec[request.name] == 1`,                   // index by a variable
	`object.metadata.?labels[?"app"].orValue("") == 1`, // optional index
	`object.spec.?template.?spec.?nodeName == "x"`,     // optional chain
}

// prunedKinds are the kinds the equivalence test types every expression
// with: the kinds webhooks most often match, and the request objects of
// subresources.
var prunedKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "Pod"},
	{Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
	{Version: "v1", Kind: "Namespace"},
	{Version: "v1", Kind: "Node"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Version: "v1", Kind: "Endpoints"},
	{Version: "v1", Kind: "PersistentVolumeClaim"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"},
	{Group: "apps", Version: "v1", Kind: "DaemonSet"},
	{Group: "batch", Version: "v1", Kind: "Job"},
	{Group: "batch", Version: "v1", Kind: "CronJob"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"},
	{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
	{Group: "autoscaling", Version: "v1", Kind: "Scale"},
	{Group: "policy", Version: "v1", Kind: "Eviction"},
}

// TestPrunedTypesCheckAlike types every condition of the fixtures, the
// examples and the shared corpus, the package's own expressions and the
// edge cases above with each kind of prunedKinds three ways: the whole
// type, the type pruned to the expression's own names, and the type pruned
// to the names of all expressions (a superset, as a process that has seen
// other conditions uses). The issues must be the same.
func TestPrunedTypesCheckAlike(t *testing.T) {
	c := mustFor(t, MaxKubeMinor)
	cat, err := openapi.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var results []Result
	seen := map[string]bool{}
	for _, expr := range slices.Concat(prunedExpressions(t), corpus, prunedEdgeCases, typedExpressions()) {
		expr = strings.TrimSpace(expr)
		if seen[expr] {
			continue
		}
		seen[expr] = true
		if r := c.Compile(expr); r.OK() {
			results = append(results, r)
		}
	}
	if len(results) < 100 {
		t.Fatalf("only %d accepted expressions found: the fixtures moved?", len(results))
	}
	all := NamesOf()
	for _, r := range results {
		all = all.Union(NamesOf(r.AST))
	}
	meta, _ := cat.ObjectMeta()
	issues, compared := 0, 0
	for _, gvk := range prunedKinds {
		s, err := cat.ResolveSchema(gvk)
		if err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
		full := NewObjectType(gvk.Kind, &celopenapi.Schema{Schema: s}, meta)
		pruned := map[string]*ObjectType{}
		typeFor := func(names *FieldNames) *ObjectType {
			k := names.String()
			if typ, ok := pruned[k]; ok {
				return typ
			}
			s, err := cat.ResolvePruned(gvk, names.Keeps)
			if err != nil {
				t.Fatalf("%s pruned to %s: %v", gvk, k, err)
			}
			pmeta, _ := cat.ObjectMetaPruned(names.Keeps)
			typ := NewObjectTypeFor(gvk.Kind, &celopenapi.Schema{Schema: s}, pmeta, names)
			if typ == nil {
				t.Fatalf("%s pruned to %s: no type", gvk, k)
			}
			pruned[k] = typ
			return typ
		}
		for _, r := range results {
			want := c.CheckTyped(r, full)
			issues += len(want)
			for _, names := range []*FieldNames{NamesOf(r.AST), all} {
				compared++
				if got := c.CheckTyped(r, typeFor(names)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %s, pruned to %s:\n got %+v\nwant %+v", gvk.Kind, r.Expression, names, got, want)
				}
			}
		}
	}
	// The comparison means something only if the whole types find issues.
	if issues < 50 {
		t.Errorf("only %d issues over %d comparisons", issues, compared)
	}
	t.Logf("%d expressions, %d comparisons, %d issues", len(results), compared, issues)
}

// typedExpressions are the expressions of typedCases.
func typedExpressions() []string {
	var out []string
	for _, tc := range typedCases {
		out = append(out, tc.expr)
	}
	return out
}

// prunedExpressions are the matchCondition expressions of the YAML files
// of the repository's testdata and examples and of the shared corpus
// (when present); files that are not YAML (templates) are skipped.
func prunedExpressions(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{"../../testdata", "../../examples", "../../../shared/corpus"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || (!strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml")) {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(data), "matchConditions") {
				return err
			}
			dec := yaml.NewDecoder(strings.NewReader(string(data)))
			for {
				var doc yaml.Node
				if dec.Decode(&doc) != nil {
					break
				}
				out = append(out, conditionExpressions(&doc)...)
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return out
}

// conditionExpressions finds the expressions of matchConditions anywhere
// in a YAML tree.
func conditionExpressions(n *yaml.Node) []string {
	var out []string
	for i, k := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && k.Value == "matchConditions" && i+1 < len(n.Content) {
			for _, mc := range n.Content[i+1].Content {
				for j := 0; j+1 < len(mc.Content); j += 2 {
					if mc.Content[j].Value == "expression" {
						out = append(out, mc.Content[j+1].Value)
					}
				}
			}
		}
		out = append(out, conditionExpressions(k)...)
	}
	return out
}

// recheck reports what env.Compile reports: the same errors at the same
// nodes, for every accepted condition of the fixtures with two kinds.
func TestRecheckIsCompile(t *testing.T) {
	c := mustFor(t, MaxKubeMinor)
	cat, err := openapi.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := cat.ObjectMeta()
	exprs := slices.Concat(prunedExpressions(t), corpus, prunedEdgeCases, typedExpressions())
	errors := 0
	for _, gvk := range prunedKinds[:10] {
		s, err := cat.ResolveSchema(gvk)
		if err != nil {
			t.Fatal(err)
		}
		env, err := c.typedEnv(NewObjectType(gvk.Kind, &celopenapi.Schema{Schema: s}, meta))
		if err != nil {
			t.Fatal(err)
		}
		for _, expr := range exprs {
			expr = strings.TrimSpace(expr)
			if !c.Compile(expr).OK() {
				continue
			}
			_, want := env.Compile(expr)
			got := c.recheck(env, expr)
			if (want == nil) != (got == nil) || (want != nil && want.String() != got.String()) {
				t.Errorf("%s, %s:\n got %v\nwant %v", gvk.Kind, expr, got, want)
				continue
			}
			if want != nil {
				errors += len(want.Errors())
				for i, e := range want.Errors() {
					if g := got.Errors()[i]; g.ExprID != e.ExprID || g.Message != e.Message {
						t.Errorf("%s, %s: error %d at node %d %q, want node %d %q", gvk.Kind, expr, i, g.ExprID, g.Message, e.ExprID, e.Message)
					}
				}
			}
		}
	}
	if errors < 50 {
		t.Errorf("only %d checker errors compared", errors)
	}
}

// TestFieldNamesKey checks that names joined differently get different
// keys, and the same names the same key.
func TestFieldNamesKey(t *testing.T) {
	c := mustFor(t, MaxKubeMinor)
	key := func(exprs ...string) string {
		var asts []*ast.AST
		for _, e := range exprs {
			r := c.Compile(e)
			if !r.OK() {
				t.Fatalf("%q: %v", e, r.Err)
			}
			asts = append(asts, r.AST)
		}
		return NamesOf(asts...).Key()
	}
	distinct := map[string]string{
		"comma":   key("'a,b' in object"),
		"two":     key("has(object.a) || has(object.b)"),
		"star":    key("'*' in object"),
		"colon":   key("'1:a' in object"),
		"lenlike": key("'1:a1:b' in object"),
	}
	seen := map[string]string{(*FieldNames)(nil).Key(): "all names"}
	for what, k := range distinct {
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s share the key %q", what, other, k)
		}
		seen[k] = what
	}
	if a, b := key("has(object.b) || has(object.a)"), key("has(object.a)", "has(object.b)"); a != b {
		t.Errorf("the same names give keys %q and %q", a, b)
	}
}
