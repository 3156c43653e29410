// Command validation-diff compares webhooklint's Server rules with the API
// server's own validation code, on random webhook configurations.
//
// It imports k8s.io/kubernetes (the validation package the API server runs,
// with its v1 defaulting and conversion), which needs replace directives for
// the staging modules; that is why it lives in its own module and never in
// webhooklint's. For each configuration it compares, message for message,
// the errors of validation.Validate{Validating,Mutating}WebhookConfiguration
// plus ValidateStaticSuffix (create, Kubernetes 1.37) with the Error
// findings of every Server rule. The only accepted difference is A45/A46,
// where the server names service.namespace for a missing service.name and
// vice versa and webhooklint names the missing field. matchConditions are
// not generated (the match-conditions rule has its own tests).
//
//	cd hack/validation-diff && go run . -n 20000 -seed 1
//
// After moving to a new Kubernetes version, bump k8s.io/kubernetes and the
// staging replaces in go.mod and run it again. Exit status 1 on a difference.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	"k8s.io/kubernetes/pkg/apis/admissionregistration/validation"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

var r *rand.Rand

func pick[T any](xs ...T) T { return xs[r.Intn(len(xs))] }

func list(pool ...string) []string {
	n := r.Intn(4)
	if r.Intn(8) == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = pick(pool...)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func maybe[T any](vs ...T) *T {
	if r.Intn(3) == 0 {
		return nil
	}
	return ptr(pick(vs...))
}

func selector() *metav1.LabelSelector {
	if r.Intn(2) == 0 {
		return nil
	}
	s := &metav1.LabelSelector{}
	if r.Intn(2) == 0 {
		s.MatchLabels = map[string]string{pick("app", "bad key", "a/b/c", "example.com/x", "", "-x"): pick("", "v", "v v", "-bad-", strings.Repeat("a", 64))}
	}
	for range r.Intn(3) {
		s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{
			Key:      pick("app", "bad key!", "", "Example.com/a", "example.com/a", strings.Repeat("k", 64)),
			Operator: metav1.LabelSelectorOperator(pick("In", "NotIn", "Exists", "DoesNotExist", "Equals", "in", "", "Gt")),
			Values:   list("a", "b", "not ok", ""),
		})
	}
	return s
}

func hook() admissionv1.ValidatingWebhook {
	h := admissionv1.ValidatingWebhook{
		Name:                    pick("a.b.c", "", "A.b.c", "k8s.io", "x", "a..b.c", "hook.example.com", "a.b.c."),
		FailurePolicy:           (*admissionv1.FailurePolicyType)(maybe("Fail", "Ignore", "fail", "")),
		MatchPolicy:             (*admissionv1.MatchPolicyType)(maybe("Exact", "Equivalent", "exact")),
		SideEffects:             (*admissionv1.SideEffectClass)(maybe("None", "NoneOnDryRun", "Some", "Unknown", "none")),
		TimeoutSeconds:          maybe[int32](-1, 0, 1, 10, 30, 31),
		AdmissionReviewVersions: list("v1", "v1beta1", "v2", "V1", "", "1v", "v1.0"),
		NamespaceSelector:       selector(),
		ObjectSelector:          selector(),
	}
	switch r.Intn(4) {
	case 0:
		h.ClientConfig.URL = ptr(pick("https://x.example.com", "http://x", "https://u:p@x/a?b#c", "x.example.com", "", "https:///a", "https://exa mple.com:xx", "HTTPS://x", "https://x/#", "https://x/?"))
	case 1, 2:
		h.ClientConfig.Service = &admissionv1.ServiceReference{
			Name: pick("svc", ""), Namespace: pick("ns", ""),
			Port: maybe[int32](0, 1, 443, 65535, 65536, -1),
			Path: maybe("/", "", "//", "///", "foo/", "/a//b/", "/Bad", "/ok/path/", "/a_b", "/--x"),
		}
	case 3:
		if r.Intn(2) == 0 {
			h.ClientConfig.URL = ptr("https://x")
			h.ClientConfig.Service = &admissionv1.ServiceReference{Name: "s", Namespace: "n"}
		}
	}
	for range r.Intn(3) {
		h.Rules = append(h.Rules, admissionv1.RuleWithOperations{
			Operations: func() []admissionv1.OperationType {
				var out []admissionv1.OperationType
				for _, s := range list("*", "CREATE", "UPDATE", "DELETE", "CONNECT", "PATCH", "") {
					out = append(out, admissionv1.OperationType(s))
				}
				return out
			}(),
			Rule: admissionv1.Rule{
				APIGroups:   list("", "*", "apps"),
				APIVersions: list("", "*", "v1"),
				Resources:   list("", "*", "*/*", "pods", "pods/*", "pods/log", "*/log", "*/scale", "deployments/scale", "pods/x/y", "configmaps"),
				Scope:       (*admissionv1.ScopeType)(maybe("*", "Cluster", "Namespaced", "x")),
			},
		})
	}
	return h
}

func main() {
	count := flag.Int("n", 20000, "number of random configurations")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	r = rand.New(rand.NewSource(*seed))
	n := *count
	bad, rejected, compared := 0, 0, 0
	for i := 0; i < n; i++ {
		obj := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{
			Name: pick("ok", "Bad_Name", "x.static.k8s.io", "a.b", "", "-x"),
		}}
		for range r.Intn(3) {
			obj.Webhooks = append(obj.Webhooks, hook())
		}
		if len(obj.Webhooks) == 2 && r.Intn(3) == 0 {
			obj.Webhooks[1].Name = obj.Webhooks[0].Name
		}
		mut := r.Intn(2) == 0
		var want []string
		var cfg *rules.Config
		if mut {
			m := &admissionv1.MutatingWebhookConfiguration{ObjectMeta: obj.ObjectMeta}
			for _, h := range obj.Webhooks {
				m.Webhooks = append(m.Webhooks, admissionv1.MutatingWebhook{
					Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy,
					MatchPolicy: h.MatchPolicy, NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector,
					SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds, AdmissionReviewVersions: h.AdmissionReviewVersions,
					ReinvocationPolicy: (*admissionv1.ReinvocationPolicyType)(maybe("Never", "IfNeeded", "Always")),
				})
			}
			cfg = rules.FromMutating(rules.V1, m.DeepCopy())
			legacyscheme.Scheme.Default(m)
			var in admissionregistration.MutatingWebhookConfiguration
			if err := legacyscheme.Scheme.Convert(m, &in, nil); err != nil {
				panic(err)
			}
			want = append(want, errs(validation.ValidateMutatingWebhookConfiguration(&in))...)
			want = append(want, errs(validation.ValidateStaticSuffix(in.Name, field.NewPath("metadata", "name")))...)
		} else {
			cfg = rules.FromValidating(rules.V1, obj.DeepCopy())
			legacyscheme.Scheme.Default(obj)
			var in admissionregistration.ValidatingWebhookConfiguration
			if err := legacyscheme.Scheme.Convert(obj, &in, nil); err != nil {
				panic(err)
			}
			want = append(want, errs(validation.ValidateValidatingWebhookConfiguration(&in))...)
			want = append(want, errs(validation.ValidateStaticSuffix(in.Name, field.NewPath("metadata", "name")))...)
		}
		for i, w := range want {
			// A45/A46: the server names the other field.
			if strings.HasSuffix(w, ".clientConfig.service.namespace: Required value") {
				want[i] = strings.TrimSuffix(w, "namespace: Required value") + "name: Required value"
			} else if strings.HasSuffix(w, ".clientConfig.service.name: Required value") {
				want[i] = strings.TrimSuffix(w, "name: Required value") + "namespace: Required value"
			}
		}
		var got []string
		for _, rule := range rules.All() {
			if rule.Category != rules.Server || rule.Check == nil {
				continue
			}
			rules.NewPass(rule, cfg, nil, nil, func(f rules.Finding) {
				if f.Severity == diag.Error {
					got = append(got, f.Message)
				}
			}).Run()
		}
		if len(want) > 0 {
			rejected++
		}
		compared += len(want)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			bad++
			if bad <= 5 {
				fmt.Printf("MISMATCH %d\n got: %q\nwant: %q\n", i, got, want)
			}
		}
	}
	fmt.Printf("%d/%d configurations differ (%d rejected by the real validation, %d field errors compared)\n", bad, n, rejected, compared)
	if bad > 0 {
		os.Exit(1)
	}
}

// errs is the server's field errors in the concise form webhooklint
// prints (no regular expressions, no CEL positions), so the comparison is
// of everything else of the server's text.
func errs(l field.ErrorList) []string {
	var out []string
	for _, e := range l {
		out = append(out, rules.ConciseServerMessage(e.Error()))
	}
	return out
}
