package rules

import (
	"fmt"
	"strings"
	"testing"
)

// hpaWebhooks are two fail-open webhooks, so that every timeout is waited
// for (a fail-closed one would end the chain, see unreachableCost).
func hpaWebhooks(policy string) string {
	var b strings.Builder
	for i, v := range []string{"v1", "v2"} {
		fmt.Fprintf(&b, `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: hpa-%d}
webhooks:
- name: hpa-%s.example.com
  timeoutSeconds: 30
  failurePolicy: Ignore
  matchPolicy: %s
  rules: [{apiGroups: [autoscaling], apiVersions: [%s], operations: [UPDATE], resources: [horizontalpodautoscalers]}]
`, i, v, policy, v)
	}
	return b.String()
}

func TestTimeoutBudgetMatchPolicy(t *testing.T) {
	// autoscaling serves v1 and v2: with Equivalent a v2 request also
	// reaches the webhook registered for v1.
	fs := runRuleOn(t, "timeout-budget", hpaWebhooks("Equivalent"), testSettings())
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "UPDATE horizontalpodautoscalers.autoscaling can wait 60 s") ||
		fs[0].Path != "webhooks[0].timeoutSeconds" || fs[0].Webhook != "hpa-v1.example.com" {
		t.Fatalf("Equivalent: %+v", fs)
	}
	if fs := runRuleOn(t, "timeout-budget", hpaWebhooks("Exact"), testSettings()); len(fs) != 0 {
		t.Fatalf("Exact: %+v", fs)
	}
}

func TestTimeoutBudgetEventsAreOneResource(t *testing.T) {
	// core events and events.k8s.io events share storage: with Equivalent
	// a webhook on either sees requests for both.
	src := `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: core-events.example.com
  timeoutSeconds: 30
  failurePolicy: Ignore
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [events]}]
- name: events-api.example.com
  timeoutSeconds: 30
  failurePolicy: Ignore
  rules: [{apiGroups: [events.k8s.io], apiVersions: [v1], operations: [CREATE], resources: [events]}]
`
	fs := runRuleOn(t, "timeout-budget", src, testSettings())
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "CREATE events can wait 60 s") {
		t.Fatalf("Equivalent: %+v", fs)
	}
	exact := strings.ReplaceAll(src, "timeoutSeconds: 30", "timeoutSeconds: 30\n  matchPolicy: Exact")
	if fs := runRuleOn(t, "timeout-budget", exact, testSettings()); len(fs) != 0 {
		t.Fatalf("Exact: %+v", fs)
	}
}

func TestTimeoutBudgetDeadlineOption(t *testing.T) {
	s := testSettings()
	s.Options = map[string]map[string]any{"timeout-budget": {"request-timeout-seconds": 90}}
	if fs := runRuleOn(t, "timeout-budget", hpaWebhooks("Equivalent"), s); len(fs) != 0 {
		t.Fatalf("90 s deadline: %+v", fs)
	}
}

func TestTimeoutBudgetReportedOnceAcrossConfigs(t *testing.T) {
	src := hpaWebhooks("Equivalent")
	per := runRuleOnConfigs(t, "timeout-budget", decodeTestConfigs(t, src), testSettings())
	if len(per[0]) != 1 || len(per[1]) != 0 {
		t.Fatalf("want one finding on the first configuration, got %v / %v", per[0], per[1])
	}
}

func TestTimeoutBudgetSameObjectTwice(t *testing.T) {
	// Two manifests of one object (say, v1 and v1beta1 variants) are one
	// webhook in a cluster: 30 + 30 from the same name is not a chain.
	one := `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: same}
webhooks:
- name: a.example.com
  timeoutSeconds: 30
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`
	if fs := runRuleOn(t, "timeout-budget", one+one, testSettings()); len(fs) != 0 {
		t.Fatalf("got %+v", fs)
	}
}

func TestCoMatchingRuleSetsWildcards(t *testing.T) {
	// A "*" group with resource "foo" and a custom group with resource "*"
	// meet only on foo.example.com: a pairwise check on concrete values
	// from one rule at a time would miss it.
	src := `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: m}
webhooks:
- name: a.example.com
  timeoutSeconds: 30
  failurePolicy: Ignore
  rules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE], resources: [foo]}]
- name: b.example.com
  timeoutSeconds: 30
  failurePolicy: Ignore
  rules: [{apiGroups: [example.com], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
`
	fs := runRuleOn(t, "timeout-budget", src, testSettings())
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "CREATE foo.example.com can wait 60 s") {
		t.Fatalf("got %+v", fs)
	}
}

// benchmarkInput is a large input: 300 mutating and 100 validating
// webhooks on 60 custom groups, a third of them with wildcards.
func benchmarkInput(b *testing.B) []*Config {
	var src strings.Builder
	for i := 0; i < 400; i++ {
		kind := "MutatingWebhookConfiguration"
		if i%4 == 3 {
			kind = "ValidatingWebhookConfiguration"
		}
		group := fmt.Sprintf("g%d.example.com", i%60)
		resources := fmt.Sprintf("[r%d, r%d/status]", i%40, i%13)
		if i%3 == 0 {
			resources = `["*"]`
		}
		if i%17 == 0 {
			group = "*"
		}
		fmt.Fprintf(&src, `---
apiVersion: admissionregistration.k8s.io/v1
kind: %s
metadata: {name: c%03d}
webhooks:
- name: w%03d.example.com
  timeoutSeconds: 10
  failurePolicy: Ignore
  rules: [{apiGroups: ["%s"], apiVersions: [v%d], operations: [CREATE, UPDATE], resources: %s}]
`, kind, i, i, group, i%3, resources)
	}
	return decodeTestConfigs(b, src.String())
}

// BenchmarkWorstChain is one search over the large input.
func BenchmarkWorstChain(b *testing.B) {
	cs := benchmarkInput(b)
	for b.Loop() {
		worstChain(cs, 60)
	}
}

// BenchmarkTimeoutBudgetRun runs the rule over every configuration of the
// large input, as the engine does: the search is shared between them.
func BenchmarkTimeoutBudgetRun(b *testing.B) {
	cs := benchmarkInput(b)
	r := MustLookup("timeout-budget")
	s := testSettings()
	for b.Loop() {
		in := &Inventory{Configs: cs}
		for _, c := range cs {
			NewPass(r, c, in, s, func(Finding) {}).Run()
		}
	}
}

// TestTimeoutBudgetConcurrentPasses runs the passes of one input
// concurrently, as the engine does; run with -race.
func TestTimeoutBudgetConcurrentPasses(t *testing.T) {
	cs := decodeTestConfigs(t, hpaWebhooks("Equivalent")+hpaWebhooks("Equivalent"))
	in := &Inventory{Configs: cs}
	r := MustLookup("timeout-budget")
	results := make([][]Finding, len(cs))
	done := make(chan int)
	for i, c := range cs {
		go func() {
			NewPass(r, c, in, testSettings(), func(f Finding) { results[i] = append(results[i], f) }).Run()
			done <- i
		}()
	}
	for range cs {
		<-done
	}
	total := 0
	for _, fs := range results {
		total += len(fs)
	}
	if total != 1 || len(results[0]) != 1 {
		t.Fatalf("want exactly one finding, on the first configuration: %v", results)
	}
}

// With every backend unreachable, a fail-closed mutating webhook rejects
// the request at its timeout: the chain ends there (cert-manager's
// mutating and validating webhooks, 30 s each, wait 30 s, not 60), and a
// failed call is not reinvoked (fluid's two IfNeeded injectors).
func TestTimeoutBudgetEndsAtTheFirstFailClosedWebhook(t *testing.T) {
	failClosed := strings.ReplaceAll(hpaWebhooks("Equivalent"), "failurePolicy: Ignore", "failurePolicy: Fail")
	if fs := runRuleOn(t, "timeout-budget", failClosed, testSettings()); len(fs) != 0 {
		t.Fatalf("fail-closed pair: %+v", fs)
	}
	// Fail-open first, fail-closed second: 30 + 30.
	mixed := strings.Replace(failClosed, "failurePolicy: Fail", "failurePolicy: Ignore", 1)
	fs := runRuleOn(t, "timeout-budget", mixed, testSettings())
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "can wait 60 s") {
		t.Fatalf("fail-open then fail-closed: %+v", fs)
	}
	fluid := `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: fluid-pod-admission-webhook}
webhooks:
- name: sidecar.fuse.fluid.io
  timeoutSeconds: 15
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
- name: fuse.serverful.fluid.io
  timeoutSeconds: 15
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`
	if fs := runRuleOn(t, "timeout-budget", fluid, testSettings()); len(fs) != 0 {
		t.Fatalf("fluid's fail-closed injectors: %+v", fs)
	}
}
