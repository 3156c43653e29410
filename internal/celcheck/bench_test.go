package celcheck

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/environment"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"

	"github.com/webhooklint/webhooklint/internal/openapi"
)

// BenchmarkBaseEnv is the server's versioned base environment alone
// (normally built once per version and process).
func BenchmarkBaseEnv(b *testing.B) {
	environment.DisableBaseEnvSetCachingForTests()
	for b.Loop() {
		environment.MustBaseEnvSet(CompatibilityVersion(MaxKubeMinor))
	}
}

// BenchmarkNewCompiler measures what the first matchCondition of a run
// pays for its version: the versioned base environment plus the server
// compiler's variable environments. (BenchmarkBaseEnv switched off the base
// environment cache; run alone, this measures the compiler part only.)
func BenchmarkNewCompiler(b *testing.B) {
	for b.Loop() {
		newCompiler(MaxKubeMinor).environment()
	}
}

// BenchmarkCompileMix compiles the realistic corpus without the cache:
// the cost of each distinct expression.
func BenchmarkCompileMix(b *testing.B) {
	c := mustFor(b, MaxKubeMinor)
	for b.Loop() {
		for _, expr := range corpus {
			c.compile(expr)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(corpus)), "ns/expr")
}

// BenchmarkCompileCached is the cost of a repeated expression.
func BenchmarkCompileCached(b *testing.B) {
	c := mustFor(b, MaxKubeMinor)
	for _, expr := range corpus {
		c.Compile(expr)
	}
	for b.Loop() {
		for _, expr := range corpus {
			c.Compile(expr)
		}
	}
}

// BenchmarkRuntimeHazards analyzes every accepted corpus expression as a
// one-condition webhook matching all operations (ns per condition).
func BenchmarkRuntimeHazards(b *testing.B) {
	c := mustFor(b, MaxKubeMinor)
	var ok []Result
	for _, expr := range corpus {
		if r := c.Compile(expr); r.OK() {
			ok = append(ok, r)
		}
	}
	for b.Loop() {
		for _, r := range ok {
			runtimeHazards([]Result{r}, allShapes)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ok)), "ns/condition")
}

// BenchmarkRuntimeHazardsWebhook is one webhook with four guarded
// conditions analyzed together.
func BenchmarkRuntimeHazardsWebhook(b *testing.B) {
	c := mustFor(b, MaxKubeMinor)
	var conds []Result
	for _, expr := range []string{
		`request.operation != "DELETE"`,
		`!(request.namespace == "ovn-kubernetes" && object.metadata.labels["name"] == "ovnkube-identity")`,
		`has(object.metadata.annotations) && "sidecar.istio.io/inject" in object.metadata.annotations`,
		`!request.userInfo.groups.exists(g, g == "system:masters")`,
	} {
		conds = append(conds, c.Compile(expr))
	}
	for b.Loop() {
		runtimeHazards(conds, allShapes) // uncached
	}
}

// BenchmarkNewObjectType is typing object with the Pod schema, which a run
// whose webhooks match pods does once.
func BenchmarkNewObjectType(b *testing.B) {
	cat, err := openapi.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	s, err := cat.ResolveSchema(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	if err != nil {
		b.Fatal(err)
	}
	meta, _ := cat.ObjectMeta()
	b.ReportAllocs()
	for b.Loop() {
		if NewObjectType("Pod", &celopenapi.Schema{Schema: s}, meta) == nil {
			b.Fatal("no type")
		}
	}
}

// BenchmarkPodTypeFor is typing Pod for a condition on a pod's metadata,
// with the whole schema and pruned to the condition's names (resolved
// each time; the component schemas are decoded once, as in a run).
func BenchmarkPodTypeFor(b *testing.B) {
	c := mustFor(b, MaxKubeMinor)
	r := c.Compile(`!has(object.metadata.annotations) || !('kubernetes.io/config.mirror' in object.metadata.annotations)`)
	if !r.OK() {
		b.Fatal(r.Err)
	}
	cat, err := openapi.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, names := range []*FieldNames{nil, NamesOf(r.AST)} {
		b.Run("names="+names.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := cat.ResolvePruned(pod, names.Keeps)
				if err != nil {
					b.Fatal(err)
				}
				meta, _ := cat.ObjectMetaPruned(names.Keeps)
				if NewObjectTypeFor("Pod", &celopenapi.Schema{Schema: s}, meta, names) == nil {
					b.Fatal("no type")
				}
			}
		})
	}
}
