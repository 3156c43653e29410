package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/cel-go/common/ast"

	"github.com/webhooklint/webhooklint/internal/celcheck"
	"github.com/webhooklint/webhooklint/internal/openapi"
)

// wildcardFieldsConfig is n webhooks on every resource and subresource,
// each with conditions that read kind-specific fields.
func wildcardFieldsConfig(t *testing.T, n int) *Config {
	var doc strings.Builder
	doc.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: bench}\nwebhooks:\n")
	for i := range n {
		fmt.Fprintf(&doc, `- name: w%d.example.com
  clientConfig: {url: "https://hooks.example.com/%d"}
  matchConditions:
  - {name: a, expression: 'object.metadata.name != "w%d" && object.spec.replicas > 1'}
  - {name: b, expression: 'request.resource.resource == "pods" ? object.spec.nodeName != "" : true'}
  rules:
  - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*", "*/*"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`, i, i, i)
	}
	return decodeTestConfig(t, doc.String())
}

// A wildcard webhook is checked against every served kind: kinds without
// spec, and kinds whose spec has no replicas, are named; the ternary
// routes the pods-only read, except for the pods subresources that carry
// another kind.
func TestMatchConditionFieldsWildcard(t *testing.T) {
	got := runRuleFindings(t, "match-condition-fields", wildcardFieldsConfig(t, 1), nil, nil)
	if len(got) != 3 {
		t.Fatalf("got %d findings, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, want := range []string{
		"fails for bindings and 23 more: no field \"spec\"",
		"fails for apiservices.apiregistration.k8s.io and 74 more: no field \"replicas\"",
		"fails for pods/binding and 1 more: no field \"spec\"",
	} {
		if !strings.Contains(got[i], want) {
			t.Errorf("finding %d = %s\nwant it to contain %s", i, got[i], want)
		}
	}
	for _, f := range got {
		if strings.Contains(f, "<input>") || len(f) > 400 {
			t.Errorf("message too long or with CEL positions: %s", f)
		}
	}
}

// BenchmarkMatchConditionFields types the conditions of 20 wildcard
// webhooks against every served kind (the types are built once per process).
func BenchmarkMatchConditionFields(b *testing.B) {
	c := wildcardFieldsConfig(&testing.T{}, 20)
	r := MustLookup("match-condition-fields")
	b.ResetTimer()
	for range b.N {
		NewPass(r, c, nil, nil, func(Finding) {}).Run()
	}
}

// Every served kind has a type, whole or pruned, and checking conditions
// with the type pruned to their names gives the issues of the whole type
// (internal/celcheck TestPrunedTypesCheckAlike does the same for many
// more conditions on fewer kinds). builtinTypeFor relies on both.
func TestPrunedTypesOfEveryKind(t *testing.T) {
	cat, compiler := builtinCatalogAndCompiler(t)
	var results []celcheck.Result
	var asts []*ast.AST
	for _, expr := range []string{
		`object.metadata.name != "w0" && object.spec.replicas > 1`,
		`request.resource.resource == "pods" ? object.spec.nodeName != "" : true`,
		`object.metadata.name == 1 || object.metadata.?labels[?"app"].orValue(1) == 1`,
		`object.spec.replicas == "3" || has(object.status.conditions)`,
		`object.spec.template.spec.containers.exists(c, c.image == 1)`,
		`object.?data.?x.orValue(1) == 1 || object.rules.exists(r, r.verbs.exists(v, v == 1))`,
		`object.spec.selector.matchLabels.app == 1 || object.subsets[0].ports[0].port == "80"`,
	} {
		r := compiler.Compile(expr)
		if !r.OK() {
			t.Fatalf("%s: %v", expr, r.Err)
		}
		results = append(results, r)
		asts = append(asts, r.AST)
	}
	all := celcheck.NamesOf(asts...)
	rule := wildcardFieldsConfig(t, 1).Webhooks[0].Rules[0]
	kinds := map[openapi.GVK]bool{}
	for _, res := range ExpandRule(rule).Builtin {
		for _, v := range cat.Versions(res.Group, res.Resource, res.Subresource) {
			if gvk, ok := cat.ObjectKind(res.Group, v, res.Resource, res.Subresource); ok {
				kinds[gvk] = true
			}
		}
	}
	typed, issues := 0, 0
	for gvk := range kinds {
		full := builtinType(cat, gvk)
		for _, names := range []*celcheck.FieldNames{all, celcheck.NamesOf(asts[0])} {
			if pruned := prunedBuiltinType(cat, gvk, names); (full == nil) != (pruned == nil) {
				t.Errorf("%s: whole type %v, pruned to %s %v", gvk, full != nil, names, pruned != nil)
			}
		}
		if full == nil {
			continue // a kind without a schema, such as PodExecOptions
		}
		typed++
		pruned := prunedBuiltinType(cat, gvk, all)
		for _, r := range results {
			want := compiler.CheckTyped(r, full)
			issues += len(want)
			if got := compiler.CheckTyped(r, pruned); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s:\n got %+v\nwant %+v", gvk, r.Expression, got, want)
			}
		}
	}
	t.Logf("%d kinds typed, %d issues", typed, issues)
	if typed < 50 || issues < 100 {
		t.Errorf("%d kinds typed, %d issues: too few for the comparison to mean much", typed, issues)
	}
}

// builtinTypeFor widens a kind's type as conditions read new names, each
// version checking like the whole type, and past maxPrunedBuilds versions
// settles on the whole type.
func TestBuiltinTypeForWidens(t *testing.T) {
	cat, compiler := builtinCatalogAndCompiler(t)
	gvk := openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"}
	prunedTypes.Delete(gvk) // start from nothing, whatever other tests built
	full := builtinType(cat, gvk)
	exprs := []string{
		`object.metadata.name == "a"`,
		`object.metadata.name == "b"`, // no new name: the same version
		`object.spec.replicas == "3"`,
		`object.spec.template.spec.containers.exists(c, c.image == 1)`,
		`object.status.nope == 1`,
		`object.spec.strategy.type == 1`,
		`object.spec.paused == "no"`,
		`object.metadata.labels.app == 1`,
	}
	var seen []*celcheck.ObjectType
	for i, expr := range exprs {
		r := compiler.Compile(expr)
		if !r.OK() {
			t.Fatalf("%s: %v", expr, r.Err)
		}
		typ := builtinTypeFor(cat, gvk, celcheck.NamesOf(r.AST))
		if !slices.Contains(seen, typ) {
			seen = append(seen, typ)
		}
		// Every condition so far checks alike with the current type.
		for _, prev := range exprs[:i+1] {
			pr := compiler.Compile(prev)
			if got, want := compiler.CheckTyped(pr, typ), compiler.CheckTyped(pr, full); !reflect.DeepEqual(got, want) {
				t.Errorf("after %q, %q:\n got %+v\nwant %+v", expr, prev, got, want)
			}
		}
	}
	v, _ := prunedTypes.Load(gvk)
	if cur := v.(*prunedType).current.Load(); cur.names != nil || cur.typ != full {
		t.Errorf("after %d widenings the type is pruned to %s, want the whole type", len(seen), cur.names)
	}
	if len(seen) != maxPrunedBuilds+1 {
		t.Errorf("%d versions, want %d pruned and the whole type", len(seen), maxPrunedBuilds)
	}
}

// builtinCatalogAndCompiler is the schemas and the newest compiler the
// pruned-type tests check with.
func builtinCatalogAndCompiler(t *testing.T) (*openapi.Catalog, *celcheck.Compiler) {
	t.Helper()
	cat, err := openapi.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	compiler, err := celcheck.For(celcheck.MaxKubeMinor)
	if err != nil {
		t.Fatal(err)
	}
	return cat, compiler
}
