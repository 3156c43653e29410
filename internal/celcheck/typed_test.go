package celcheck

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"

	"github.com/webhooklint/webhooklint/internal/openapi"
)

var deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

func deploymentType(t *testing.T) (*ObjectType, *openapi.Catalog) {
	t.Helper()
	cat, err := openapi.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := cat.ResolveSchema(deploymentGVK)
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := cat.ObjectMeta()
	return NewObjectType("Deployment", &celopenapi.Schema{Schema: s}, meta), cat
}

func deployment() *appsv1.Deployment {
	replicas := int32(3)
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"team": "a"}, CreationTimestamp: metav1.Now()},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

// typedCases are expressions on deployments with what CheckTyped says and
// what the API server's matcher does with them on a real Deployment.
var typedCases = []struct {
	expr    string
	kind    TypeIssueKind // 0: no issue
	runtime decision      // with failurePolicy Fail
	errText string        // in the runtime error
}{
	{`object.spec.containers.exists(c, c.name == "c")`, NoSuchField, rejected, "no such key: containers"},
	{`object.spec.template.spec.containers.all(c, c.imagee == "nginx")`, NoSuchField, rejected, "no such key: imagee"},
	{`has(object.spec.containers)`, NoSuchFieldTested, skipped, ""},
	{`object.?spec.?containers.hasValue()`, NoSuchFieldOptional, skipped, ""},
	{`object.spec.replicas == "3"`, NeverEqual, skipped, ""},
	{`object.spec.replicas != "3"`, NeverEqual, called, ""},
	{`object.metadata.name.first == "w"`, NoFields, rejected, ""},
	{`object.spec.replicas.startsWith("3")`, NoOverload, rejected, "no such overload"},
	// No issue: what the typed checker would reject but the schemaless
	// runtime accepts, and plain correct reads.
	{`object.spec.replicas == 3.0`, 0, called, ""},
	{`object.spec.replicas > 1u`, 0, called, ""},
	{`object.metadata.creationTimestamp != null`, 0, called, ""},
	{`object.spec["replicas"] == 3`, 0, called, ""},
	{`"replicas" in object.spec`, 0, called, ""},
	{`object.spec.strategy.rollingUpdate.maxSurge == "25%" || true`, 0, called, ""},
	{`object.spec.template.spec.containers.exists(c, c.image == "nginx")`, 0, called, ""},
	{`object.metadata.labels.team == "a"`, 0, called, ""},
	// ObjectMeta's namespace is __namespace__ in the type, and found by
	// its name from 1.31 (DeclTypeProvider.SetRecognizeKeywordAsFieldName).
	{`object.metadata.namespace == "default"`, 0, called, ""},
}

func TestCheckTypedPredictsTheRuntime(t *testing.T) {
	typ, _ := deploymentType(t)
	c, err := For(MaxKubeMinor)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range typedCases {
		r := c.Compile(tc.expr)
		if !r.OK() {
			t.Fatalf("%s: rejected: %v", tc.expr, r.Err)
		}
		issues := c.CheckTyped(r, typ)
		switch {
		case tc.kind == 0 && len(issues) > 0:
			t.Errorf("%s: unexpected issues %+v", tc.expr, issues)
		case tc.kind != 0 && (len(issues) != 1 || issues[0].Kind != tc.kind):
			t.Errorf("%s: issues %+v, want one of kind %d", tc.expr, issues, tc.kind)
		}
		obj := deployment()
		if strings.Contains(tc.expr, "strategy") {
			obj.Spec.Strategy.RollingUpdate = nil // maxSurge unset: the || true still decides
		}
		got, err := match(t, admissionregistrationv1.Fail, request{op: admission.Update, object: obj, oldObject: deployment()}, tc.expr)
		if got != tc.runtime {
			t.Errorf("%s: the matcher decided %s (%v), want %s", tc.expr, got, err, tc.runtime)
		}
		if tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)) {
			t.Errorf("%s: runtime error %v, want it to contain %q", tc.expr, err, tc.errText)
		}
	}
}

// The missing fields CheckTyped reports are the ones the API server's own
// ValidatingAdmissionPolicy TypeChecker reports with the same schemas.
func TestCheckTypedAgreesWithServerTypeChecker(t *testing.T) {
	typ, cat := deploymentType(t)
	c, _ := For(MaxKubeMinor)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(deploymentGVK, meta.RESTScopeNamespace)
	checker := &validating.TypeChecker{SchemaResolver: cat, RestMapper: mapper}
	for _, tc := range typedCases {
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{
					APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: tc.expr}},
		}}
		warnings := checker.Check(policy)
		server := ""
		if len(warnings) > 0 {
			server = warnings[0].Warning
		}
		issues := c.CheckTyped(c.Compile(tc.expr), typ)
		switch tc.kind {
		case NoSuchField, NoSuchFieldTested, NoSuchFieldOptional:
			if want := "undefined field '" + issues[0].Field + "'"; !strings.Contains(server, want) {
				t.Errorf("%s: the server's TypeChecker says %q, want %q", tc.expr, server, want)
			}
		case NeverEqual, NoOverload:
			if !strings.Contains(server, "found no matching overload") {
				t.Errorf("%s: the server's TypeChecker says %q, want no matching overload", tc.expr, server)
			}
		}
	}
}

func TestSignatureTypes(t *testing.T) {
	for sig, want := range map[string]string{
		"(int, string)":                    "int|string",
		"int.(string)":                     "int|string",
		"(list(string), map(string, int))": "list(string)|map(string, int)",
		"string.()":                        "string",
		"bad":                              "",
	} {
		if got := strings.Join(signatureTypes(sig), "|"); got != want {
			t.Errorf("signatureTypes(%q) = %q, want %q", sig, got, want)
		}
	}
	for typ, want := range map[string]bool{"int": true, "list(string)": true, "Deployment.spec": false, "list(Deployment.spec)": false, "dyn": false, "map(string, dyn)": false} {
		if primitive(typ) != want {
			t.Errorf("primitive(%q) = %v", typ, !want)
		}
	}
}

func TestFieldPath(t *testing.T) {
	typ, _ := deploymentType(t)
	for field, want := range map[string]string{"containers": "spec.template.spec.containers", "strategy": "spec.strategy", "replicas": "" /* spec and status */, "nope": ""} {
		if got := typ.FieldPath(field); got != want {
			t.Errorf("FieldPath(%q) = %q, want %q", field, got, want)
		}
	}
}
