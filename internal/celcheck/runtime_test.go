package celcheck

import (
	"context"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestVariables(t *testing.T) {
	c, err := For(MaxKubeMinor)
	if err != nil {
		t.Fatal(err)
	}
	for expr, want := range map[string][]string{
		`request.namespace != "kube-system"`:                            {"request.namespace"},
		`has(request.userInfo.username) && object.metadata.name == "x"`: {"object", "request.userInfo"},
		`oldObject.spec.containers.all(c, c.image.startsWith("r/"))`:    {"oldObject"},
		`authorizer.group("").resource("pods").check("get").allowed()`:  {"authorizer"},
		`[1, 2].exists(object, object > 1)`:                             {"object"}, // shadowing is not resolved: conservative
		`[request].size() == 1`:                                         {"request"},
		`true`:                                                          {},
	} {
		r := c.Compile(expr)
		if !r.OK() {
			t.Fatalf("%s: %v", expr, r.Err)
		}
		if got := Variables(r); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", expr, got, want)
		}
	}
}

func TestParsedVariables(t *testing.T) {
	for expr, want := range map[string][]string{
		`object.spec.replicas <= params.maxReplicas`:              {"object", "params"},
		`variables.isProd && namespaceObject.metadata.name != ""`: {"namespaceObject", "variables"},
		`request.operation == "CREATE"`:                           {"request.operation"},
		`object.(`:                                                nil, // does not parse
	} {
		if got := ParsedVariables(expr); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", expr, got, want)
		}
	}
}

func TestEvaluate(t *testing.T) {
	e, err := EvaluatorFor(MaxKubeMinor)
	if err != nil {
		t.Fatal(err)
	}
	attrs := admission.NewAttributesRecord(pod(map[string]string{"app": "web"}, nil), nil,
		schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "default", "web",
		schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "", admission.Create, nil, false,
		&user.DefaultInfo{Name: "alice"})
	va := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}}
	va.VersionedObject.Set(attrs.GetObject())
	conds := func(exprs ...string) []admissionregistrationv1.MatchCondition {
		var out []admissionregistrationv1.MatchCondition
		for i, x := range exprs {
			out = append(out, admissionregistrationv1.MatchCondition{Name: string(rune('a' + i)), Expression: x})
		}
		return out
	}
	d := e.Evaluate(context.Background(), conds(`object.metadata.labels.app == "web"`, `request.userInfo.username == "alice"`), admissionregistrationv1.Fail, va, nil)
	if !d.Matches || d.Err != nil || !d.Values[0].Value || !d.Values[1].Value {
		t.Errorf("all true: %+v", d)
	}
	d = e.Evaluate(context.Background(), conds(`object.spec.template.spec.containers.size() > 0`, `false`), admissionregistrationv1.Fail, va, nil)
	if d.Matches || d.FailedCondition != "b" || d.Err != nil || d.Values[0].Err == nil {
		t.Errorf("a false condition wins over an error: %+v", d)
	}
	d = e.Evaluate(context.Background(), conds(`object.spec.template.spec.containers.size() > 0`), admissionregistrationv1.Fail, va, nil)
	if d.Err == nil || !strings.Contains(d.Values[0].Err.Error(), "no such key") {
		t.Errorf("error under Fail: %+v", d)
	}
	d = e.Evaluate(context.Background(), conds(`object.spec.template.spec.containers.size() > 0`), admissionregistrationv1.Ignore, va, nil)
	if d.Err != nil || d.Matches {
		t.Errorf("error under Ignore skips: %+v", d)
	}
}
