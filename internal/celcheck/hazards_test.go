package celcheck

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

// allShapes are the requests on pods and pods/exec.
var allShapes = []RequestShape{{"CREATE", false, true}, {"UPDATE", false, true}, {"DELETE", false, true}, {"CONNECT", true, true}}

// clusterShapes add requests on a cluster-scoped resource.
var clusterShapes = append(slices.Clone(allShapes), RequestShape{"CREATE", false, false}, RequestShape{"DELETE", false, false})

// battery is a set of concrete requests covering every shape with labeled,
// partly labeled and bare pods, two namespaces and two kinds of users.
func battery() []request {
	full := pod(map[string]string{"app": "web", "name": "ovnkube-identity", "color": "red", "kubernetes.io/metadata.name": "x"},
		map[string]string{"sidecar.istio.io/inject": "true", "k8s.v1.cni.cncf.io/networks": "net", "kubernetes.io/config.mirror": "x"})
	partial := pod(map[string]string{"other": "x"}, map[string]string{"other": "x"})
	bare := pod(nil, nil)
	sa := &user.DefaultInfo{Name: "system:serviceaccount:kubeflow:katib-controller", UID: "u-1",
		Groups: []string{"system:serviceaccounts", "system:authenticated"},
		Extra:  map[string][]string{"authentication.kubernetes.io/pod-name": {"p"}}}
	exec := &corev1.PodExecOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodExecOptions"}, Command: []string{"sh"}}
	var out []request
	for _, ns := range []string{"default", "ovn-kubernetes"} {
		for _, u := range []user.Info{nil, sa} {
			for _, o := range []*corev1.Pod{full, partial, bare} {
				out = append(out,
					request{op: admission.Create, namespace: ns, user: u, object: o, options: &metav1.CreateOptions{}},
					request{op: admission.Update, namespace: ns, user: u, object: o, oldObject: o, options: &metav1.UpdateOptions{}},
					request{op: admission.Delete, namespace: ns, user: u, oldObject: o, options: &metav1.DeleteOptions{}},
				)
			}
			out = append(out, request{op: admission.Connect, namespace: ns, user: u, object: exec, subresource: "exec"})
		}
	}
	// Cluster-scoped requests (namespace "-": none at all).
	for _, o := range []*corev1.Pod{full, bare} {
		out = append(out,
			request{op: admission.Create, namespace: "-", object: o, options: &metav1.CreateOptions{}},
			request{op: admission.Delete, namespace: "-", oldObject: o, options: &metav1.DeleteOptions{}})
	}
	return out
}

func shapeOf(r request) RequestShape {
	return RequestShape{string(r.op), r.subresource != "", r.namespace != "-"}
}

type hazardCase struct {
	name  string
	exprs []string
	// want lists the hazards as "condition:kind:OPERATION" (one per
	// reported hazard, in order).
	want []string
}

// caseShapes are the request shapes of cases that are not about pods.
var caseShapes = map[string][]RequestShape{
	"namespace is absent on cluster-scoped requests": clusterShapes,
	"namespace guarded": clusterShapes,
}

var kindNames = map[HazardKind]string{NullObject: "null-object", NullOldObject: "null-oldObject",
	OptionsObject: "options-object", NamespaceObject: "namespaceObject", MissingKey: "missing-key"}

var hazardCases = []hazardCase{
	{"ovn-kubernetes self exclusion (F18)",
		[]string{`!(request.namespace == "ovn-kubernetes" && object.metadata.labels["name"] == "ovnkube-identity")`},
		[]string{"0:null-object:DELETE", "0:options-object:CONNECT", "0:missing-key:CREATE"}},
	{"ovn fixed with guards",
		[]string{`request.operation == "DELETE" || request.operation == "CONNECT" || !(request.namespace == "ovn-kubernetes" && has(object.metadata.labels) && "name" in object.metadata.labels && object.metadata.labels["name"] == "ovnkube-identity")`},
		nil},
	{"ovn fixed with optionals",
		[]string{`!(request.namespace == "ovn-kubernetes" && object.?metadata.?labels[?"name"].orValue("") == "ovnkube-identity")`},
		nil},
	{"katib username exclusion",
		[]string{`request.userInfo.username != "system:serviceaccount:kubeflow:katib-controller"`},
		nil},
	{"kyverno kind dispatch, guarded",
		[]string{`!((object.apiVersion == 'v1' && object.kind =='Pod')) || (has(object.metadata.labels) && 'prod' in object.metadata.labels && object.metadata.labels['prod'] == 'true')`},
		[]string{"0:null-object:DELETE"}},
	{"kyverno label check",
		[]string{`object.metadata.labels['color'] == 'red'`},
		[]string{"0:null-object:DELETE", "0:options-object:CONNECT", "0:missing-key:CREATE"}},
	{"label as field",
		[]string{`!(object.metadata.labels.app == "kubernetes-bootcamp")`},
		[]string{"0:null-object:DELETE", "0:options-object:CONNECT", "0:missing-key:CREATE"}},
	{"guard in reverse order still absorbs (false && error is false)",
		[]string{`object.metadata.labels['color'] == 'red' && has(object.metadata.labels) && 'color' in object.metadata.labels && request.operation != 'DELETE' && request.operation != 'CONNECT'`},
		nil},
	{"has on the map only",
		[]string{`has(object.metadata.labels) && object.metadata.labels['color'] == 'red'`},
		[]string{"0:null-object:DELETE", "0:options-object:CONNECT", "0:missing-key:CREATE"}},
	{"ternary guard",
		[]string{`request.operation == 'CREATE' ? object.metadata.name != '' : true`},
		nil},
	{"oldObject on create",
		[]string{`oldObject.metadata.name != object.metadata.name`},
		[]string{"0:null-oldObject:CREATE", "0:null-object:DELETE", "0:options-object:CONNECT"}},
	{"oldObject guarded by null check",
		[]string{`oldObject == null || object == null || object.metadata.name == oldObject.metadata.name`},
		nil},
	{"namespaceObject fails everywhere",
		[]string{`namespaceObject.metadata.labels['env'] == 'prod'`},
		[]string{"0:namespaceObject:CREATE"}},
	{"another condition that is false hides the error",
		[]string{`request.operation in ['CREATE', 'UPDATE']`, `object.metadata.name != 'x'`},
		nil},
	{"subResource is absent outside subresources",
		[]string{`request.subResource == ''`},
		[]string{"0:missing-key:CREATE"}},
	{"subResource guarded",
		[]string{`!has(request.subResource) || request.subResource == 'exec'`},
		nil},
	{"extra key",
		[]string{`request.userInfo.extra['authentication.kubernetes.io/pod-name'] != ['p']`},
		[]string{"0:missing-key:CREATE"}},
	{"annotation in computed map",
		[]string{`!("kubernetes.io/config.mirror" in object.metadata.?annotations.orValue({}))`},
		[]string{"0:null-object:DELETE", "0:options-object:CONNECT"}},
	{"index of a computed map",
		[]string{`request.operation != 'DELETE' && request.operation != 'CONNECT' && object.metadata.?labels.orValue({})['app'] == 'web'`},
		[]string{"0:missing-key:CREATE"}},
	{"comprehension over labels",
		[]string{`request.operation == 'CREATE' && object.metadata.labels.exists(k, k.startsWith('team-'))`},
		[]string{"0:missing-key:CREATE"}},
	{"dyn field reads are not claimed",
		[]string{`request.operation == 'CREATE' && object.spec.containers.all(c, c.image != '')`},
		nil},
	{"uid guarded by has",
		[]string{`has(request.userInfo.uid) && request.userInfo.uid != ""`},
		nil},
	{"kind dispatch protects CONNECT",
		[]string{`object.kind == "Pod" && object.metadata.name != "debug"`},
		[]string{"0:null-object:DELETE"}},
	{"optional subresource read",
		[]string{`request.?subResource.orValue("") == ""`},
		nil},
	{"namespace is absent on cluster-scoped requests",
		[]string{`request.namespace != "kube-system"`},
		[]string{"0:missing-key:CREATE"}},
	{"namespace guarded",
		[]string{`!has(request.namespace) || request.namespace != "kube-system"`},
		nil},
	{"namespaced requests only",
		[]string{`request.namespace != "kube-system"`},
		nil},
	{"object null check",
		[]string{`object != null && request.operation != 'CONNECT' && object.metadata.name.startsWith('web')`},
		nil},
}

func TestRuntimeHazardsAgainstRealMatcher(t *testing.T) {
	c := mustFor(t, MaxKubeMinor)
	reqs := battery()
	for _, tc := range hazardCases {
		t.Run(tc.name, func(t *testing.T) {
			var results []Result
			for _, e := range tc.exprs {
				r := c.Compile(e)
				if !r.OK() {
					t.Fatalf("%q: %v", e, r.Err)
				}
				results = append(results, r)
			}
			shapes := caseShapes[tc.name]
			if shapes == nil {
				shapes = allShapes
			}
			hz := RuntimeHazards(results, shapes)
			var got []string
			for _, h := range hz {
				got = append(got, fmt.Sprintf("%d:%s:%s", h.Condition, kindNames[h.Kind], h.Shape.Operation))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("hazards %v, want %v", got, tc.want)
				for _, h := range hz {
					t.Logf("  %+v", h)
				}
			}
			var inShapes []request
			for _, r := range reqs {
				if slices.Contains(shapes, shapeOf(r)) {
					inShapes = append(inShapes, r)
				}
			}
			checkAgainstMatcher(t, tc.exprs, hz, inShapes)
		})
	}
}

// checkAgainstMatcher grounds the analysis in real evaluation: every
// reported shape has a concrete request the matcher rejects, and shapes
// reported clean have none.
func checkAgainstMatcher(t *testing.T, exprs []string, hz []Hazard, reqs []request) {
	t.Helper()
	claimed := map[RequestShape]bool{}
	for _, h := range hz {
		claimed[h.Shape] = true
	}
	witnessed := map[RequestShape]string{}
	for _, r := range reqs {
		d, err := match(t, admissionregistrationv1.Fail, r, exprs...)
		if d != rejected {
			continue
		}
		witnessed[shapeOf(r)] = strings.ReplaceAll(err.Error(), "\n", " ")
		// The same error under Ignore skips the webhook silently.
		if d2, _ := match(t, admissionregistrationv1.Ignore, r, exprs...); d2 != ignored {
			t.Errorf("%s with failurePolicy Ignore: %s, want %s", r.op, d2, ignored)
		}
	}
	for shape := range claimed {
		if _, ok := witnessed[shape]; !ok {
			t.Errorf("claimed a failure on %v, but the matcher rejects no request of that shape", shape)
		}
	}
	for shape, msg := range witnessed {
		if !hazardOnShape(hz, shape) {
			t.Errorf("matcher fails on %v (%s) but no hazard was reported for it", shape, msg)
		}
	}
}

// hazardOnShape: a hazard reported on one operation also covers others
// where it fails (one finding per site), so accept any hazard whose site
// fails in this shape.
func hazardOnShape(hz []Hazard, shape RequestShape) bool {
	for _, h := range hz {
		if h.Shape == shape || h.Kind == MissingKey || h.Kind == NamespaceObject {
			return true
		}
	}
	return false
}

// TestRuntimeHazardsCorpusClaims: on the realistic corpus every failure the
// analysis claims is reproduced by the real matcher on a battery request
// of that shape. (The converse does not hold in general: reads of
// arbitrary object fields are not modeled.)
func TestRuntimeHazardsCorpusClaims(t *testing.T) {
	c := mustFor(t, MaxKubeMinor)
	reqs := battery()
	claims := 0
	for _, expr := range corpus {
		r := c.Compile(expr)
		if !r.OK() {
			continue
		}
		for _, h := range RuntimeHazards([]Result{r}, allShapes) {
			claims++
			ok := false
			for _, rq := range reqs {
				if shapeOf(rq) != h.Shape {
					continue
				}
				if d, _ := match(t, admissionregistrationv1.Fail, rq, expr); d == rejected {
					ok = true
					break
				}
			}
			if !ok {
				t.Errorf("%q: claimed %s on %v (%s), but the matcher rejects no request of that shape", expr, kindNames[h.Kind], h.Shape, h.Expr)
			}
		}
	}
	if claims == 0 {
		t.Error("no claims on the corpus: the analysis found nothing at all")
	}
}

func TestHazardDetails(t *testing.T) {
	c := mustFor(t, MaxKubeMinor)
	r := c.Compile(`!(request.namespace == "ovn-kubernetes" && object.metadata.labels["name"] == "ovnkube-identity")`)
	hz := RuntimeHazards([]Result{r}, []RequestShape{{"CREATE", false, true}})
	if len(hz) != 1 {
		t.Fatalf("got %+v", hz)
	}
	h := hz[0]
	if h.Kind != MissingKey || h.Missing != `object.metadata.labels["name"]` || h.Container != "object.metadata.labels" || h.Offset != 43 || h.Line != 1 || h.Column != 44 {
		t.Errorf("got %+v", h)
	}
	multi := c.Compile("request.operation == 'CREATE' &&\n  oldObject.metadata.name != ''")
	if hz := RuntimeHazards([]Result{multi}, []RequestShape{{"CREATE", false, true}}); len(hz) != 1 || hz[0].Line != 2 || hz[0].Column != 3 {
		t.Errorf("multi-line location: %+v", hz)
	}
	if RuntimeHazards([]Result{r}, nil) != nil {
		t.Error("no request shapes (a webhook without rules) cannot fail")
	}
	for expr, want := range map[string]string{
		`has(namespaceObject.metadata) && request.name != ""`: "has(namespaceObject.metadata)",
		`namespaceObject == null`:                             "namespaceObject == null",
		`namespaceObject.?metadata.hasValue()`:                `namespaceObject.?metadata`,
		`request.name != ""`:                                  "",
	} {
		got, ok := NamespaceObjectUse(c.Compile(expr))
		if got != want || ok != (want != "") {
			t.Errorf("NamespaceObjectUse(%q) = %q, %v; want %q", expr, got, ok, want)
		}
	}
}

// TestErrorMeansFalse: a failing read where a guarded read would make the
// condition false (so failurePolicy Ignore skipping the webhook changes
// nothing) against reads under a negation, in a ternary's condition or in a
// comprehension.
func TestErrorMeansFalse(t *testing.T) {
	c := mustFor(t, MaxKubeMinor)
	for expr, want := range map[string]bool{
		`object.metadata.labels["color"] == "red"`:                                          true,
		`object.metadata.labels.app == "web" && request.namespace == "default"`:             true,
		`request.namespace == "default" || object.metadata.labels.app in ["a", "b"]`:        true,
		`object.metadata.labels["env"].startsWith("prod")`:                                  true,
		`!(object.metadata.labels["app"] == "web")`:                                         false,
		`object.metadata.labels["app"] != "web"`:                                            false,
		`!!(object.metadata.labels["app"] == "web")`:                                        true,
		`object.metadata.labels["app"] == "web" ? true : false`:                             false,
		`object.metadata.labels["app"] == "web" && !(object.metadata.labels["app"] == "x")`: false,
		`object.metadata.labels.all(k, k.startsWith("a"))`:                                  false,
	} {
		hz := RuntimeHazards([]Result{c.Compile(expr)}, []RequestShape{{"CREATE", false, true}})
		if len(hz) == 0 {
			t.Errorf("%s: no hazard", expr)
			continue
		}
		for _, h := range hz {
			if h.ErrorMeansFalse != want {
				t.Errorf("%s: %s ErrorMeansFalse = %v, want %v", expr, h.Expr, h.ErrorMeansFalse, want)
			}
		}
	}
}
