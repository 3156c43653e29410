package celcheck

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"

	"github.com/webhooklint/webhooklint/internal/openapi"
)

// FuzzCompile: any text compiles to a verdict, never a panic, and a
// verdict is consistent (an AST exactly when accepted, a field error
// exactly when rejected). Accepted expressions also go through the
// runtime analysis, which must not panic either.
func FuzzCompile(f *testing.F) {
	for _, expr := range corpus {
		f.Add(expr)
	}
	f.Add(strings.Repeat("(", 300) + "true" + strings.Repeat(")", 300))
	f.Add(strings.Repeat("!", 1000) + "true")
	f.Add("object.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z == 1")
	f.Add("'\\xff' == '\uFFFD'")
	c := mustFor(f, MaxKubeMinor)
	path := field.NewPath("webhooks").Index(0).Child("matchConditions").Index(0).Child("expression")
	f.Fuzz(func(t *testing.T, expr string) {
		r := c.Compile(expr)
		if r.OK() != (r.AST != nil) {
			t.Fatalf("%q: OK=%v but AST=%v", expr, r.OK(), r.AST)
		}
		fe := r.FieldError(path)
		if r.OK() != (fe == nil) {
			t.Fatalf("%q: OK=%v but field error %v", expr, r.OK(), fe)
		}
		if fe != nil && fe.Detail == "" {
			t.Fatalf("%q: empty detail", expr)
		}
		if r.OK() {
			for _, h := range RuntimeHazards([]Result{r, r}, allShapes) {
				if h.Expr == "" || h.Offset < 0 || h.Offset > len(expr) {
					t.Fatalf("%q: malformed hazard %+v", expr, h)
				}
			}
			NamespaceObjectUse(r)
		}
	})
}

// FuzzPrunedTypes: an accepted expression checks with the Deployment type
// pruned to its names as with the whole type.
func FuzzPrunedTypes(f *testing.F) {
	for _, expr := range slices.Concat(corpus, prunedEdgeCases, typedExpressions()) {
		f.Add(expr)
	}
	c := mustFor(f, MaxKubeMinor)
	cat, err := openapi.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	s, err := cat.ResolveSchema(deploymentGVK)
	if err != nil {
		f.Fatal(err)
	}
	meta, _ := cat.ObjectMeta()
	full := NewObjectType("Deployment", &celopenapi.Schema{Schema: s}, meta)
	f.Fuzz(func(t *testing.T, expr string) {
		r := c.Compile(expr)
		if !r.OK() {
			return
		}
		names := NamesOf(r.AST)
		ps, err := cat.ResolvePruned(deploymentGVK, names.Keeps)
		if err != nil {
			t.Fatal(err)
		}
		pmeta, _ := cat.ObjectMetaPruned(names.Keeps)
		pruned := NewObjectTypeFor("Deployment", &celopenapi.Schema{Schema: ps}, pmeta, names)
		if got, want := c.CheckTyped(r, pruned), c.CheckTyped(r, full); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q pruned to %s:\n got %+v\nwant %+v", expr, names, got, want)
		}
	})
}
