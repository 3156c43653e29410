package celcheck

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The real runtime: how the API server evaluates a webhook's
// matchConditions (generic/webhook.go ShouldCallHook → accessors.go
// GetCompiledMatcher → matchconditions.Matcher.Match with a nil namespace).

// decision is what the matcher decided for one request.
type decision string

const (
	called   decision = "call"   // every condition true: the webhook is called
	skipped  decision = "skip"   // a condition is false
	rejected decision = "reject" // evaluation error under failurePolicy Fail
	ignored  decision = "ignore" // evaluation error under failurePolicy Ignore: skipped
)

type request struct {
	op          admission.Operation
	namespace   string
	user        user.Info
	object      runtime.Object // nil on DELETE
	oldObject   runtime.Object // nil on CREATE
	options     runtime.Object
	subresource string
}

type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

var runtimeCompiler = plugincel.NewConditionCompiler(environment.MustBaseEnvSet(CompatibilityVersion(MaxKubeMinor)))

// match evaluates the conditions like the API server does for a webhook
// with the given failure policy, and returns the decision and the error.
func match(t *testing.T, policy admissionregistrationv1.FailurePolicyType, req request, exprs ...string) (decision, error) {
	t.Helper()
	accessors := make([]plugincel.ExpressionAccessor, len(exprs))
	for i, e := range exprs {
		accessors[i] = &matchconditions.MatchCondition{Name: "c" + string(rune('0'+i)), Expression: e}
	}
	filter := runtimeCompiler.CompileCondition(accessors, WebhookVariables, environment.StoredExpressions)
	m := matchconditions.NewMatcher(filter, &policy, "webhook", "validating", "test.example.com")
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	name := "web"
	switch req.namespace {
	case "":
		req.namespace = "default"
	case "-": // cluster-scoped
		req.namespace = ""
	}
	if req.user == nil {
		req.user = &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	}
	attrs := admission.NewAttributesRecord(req.object, req.oldObject, gvk, req.namespace, name, gvr, req.subresource, req.op, req.options, false, req.user)
	va := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk}
	if req.object != nil {
		va.VersionedObject.Set(req.object)
	}
	if req.oldObject != nil {
		va.VersionedOldObject.Set(req.oldObject)
	}
	r := m.Match(context.Background(), va, nil, allowAll{})
	switch {
	case r.Error != nil:
		return rejected, r.Error
	case r.Matches:
		return called, nil
	case r.FailedConditionName != "":
		return skipped, nil
	default:
		return ignored, nil
	}
}

func pod(labels, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: labels, Annotations: annotations},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}
