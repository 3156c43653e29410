package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "timeout-budget",
		Summary:  "webhooks that can be called for the same request may together outlast the API server's request deadline",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "Mutating webhooks run one after another, then validating webhooks run in parallel, all " +
				"inside the API server's request deadline (60 s by default, `--request-timeout`). A " +
				"`reinvocationPolicy: IfNeeded` webhook can be called a second time. In the worst case (every " +
				"backend unreachable, as behind a firewall that drops the control plane's packets) each call fails at " +
				"its timeout: a request waits for the fail-open mutating webhooks' timeouts, IfNeeded ones twice, " +
				"up to the first fail-closed mutating webhook, whose failure rejects the request after its own " +
				"timeout; with none, the longest validating timeout follows. When that reaches the deadline, the " +
				"request times out before the remaining webhooks' failurePolicy is applied: even " +
				"`failurePolicy: Ignore` cannot save it. Fail-closed webhooks alone (cert-manager's mutating and " +
				"validating webhook at 30 s each) cannot: the first timeout rejects the request.\n\n" +
				"The rule looks at every configuration in the input, finds the webhooks whose rules can match " +
				"one and the same request (groups, versions, resources and subresources including wildcards, " +
				"operations, scope, matchPolicy Equivalent), and reports the worst chain once, on its first " +
				"mutating webhook. Selectors and matchConditions are not considered: they depend on the object, " +
				"so the result is what can happen, not what always happens. Webhooks without rules match nothing.",
			Fix: "Lower `timeoutSeconds` (webhooks should answer in well under a second), narrow the rules so " +
				"fewer webhooks see the same request, merge webhooks of one backend, or drop `IfNeeded` where " +
				"reinvocation is not needed.",
			Sources: []string{
				docsWebhooks + "#timeouts",
				srcMutatingCalls,
				srcServerConfig,
				srcGenericWebhook,
			},
		},
		Options: []Option{{
			Name:    "request-timeout-seconds",
			Doc:     "the API server's request deadline (kube-apiserver --request-timeout)",
			Default: 60,
		}},
		Check: checkTimeoutBudget,
	})
}

// budgetWebhook is one webhook of the input with its worst-case cost.
type budgetWebhook struct {
	w        *Webhook
	mutating bool
	cost     int // seconds; IfNeeded mutating webhooks count twice
}

// budgetChain is the webhooks one request can pass through.
type budgetChain struct {
	request    requestClass
	mutating   []budgetWebhook // in the order the API server calls them
	validating *budgetWebhook  // the longest one; they run in parallel
	total      int
}

func checkTimeoutBudget(p *Pass) {
	deadline := p.IntOption("request-timeout-seconds")
	chain, ok := cachedWorstChain(p, deadline)
	if !ok || chain.total < deadline || len(chain.mutating) == 0 {
		return
	}
	first := chain.mutating[0].w
	if first.Config != p.Config {
		return // reported once, by the configuration of the first webhook
	}
	var steps []string
	for _, b := range chain.mutating {
		steps = append(steps, describeCost(b))
	}
	if chain.validating != nil {
		steps = append(steps, describeCost(*chain.validating))
	}
	// The scope of a custom resource's request class is detail here.
	request := excerpt(strings.Replace(chain.request.String(), " (namespaced)", "", 1), 60)
	msg := fmt.Sprintf("%s can wait %d s in webhooks (%s), %s the %d s deadline; lower timeoutSeconds",
		request, chain.total, listNames(steps, 1), reachOrExceed(chain.total, deadline), deadline)
	path := first.FieldPath("timeoutSeconds")
	if first.TimeoutSeconds == nil {
		path = first.Path()
	}
	p.Reportf(path, "%s", msg)
}

func reachOrExceed(total, deadline int) string {
	if total == deadline {
		return "all of"
	}
	return "over"
}

func describeCost(b budgetWebhook) string {
	t := b.w.EffectiveTimeout()
	s := fmt.Sprintf("%q %d s", excerpt(b.w.Name, 40), t)
	if b.cost > int(t) {
		s = fmt.Sprintf("%q 2×%d s (IfNeeded)", excerpt(b.w.Name, 40), t)
	}
	return s
}

// The worst chain depends only on the input and the deadline, but the rule
// runs once per configuration (concurrently): compute it once per input.
// A configuration outside its input (the analyzer's, a live object checked
// on its own) is part of the chain it is judged in, so that one is not
// shared.
func cachedWorstChain(p *Pass, deadline int) (budgetChain, bool) {
	if p.Input == nil || !p.Input.holds(p.Config) {
		return worstChain(inputConfigs(p), deadline)
	}
	type key struct{ deadline int }
	type result struct {
		chain budgetChain
		ok    bool
	}
	r := p.Input.Derived(key{deadline}, func() any {
		chain, ok := worstChain(inputConfigs(p), deadline)
		return result{chain, ok}
	}).(result)
	return r.chain, r.ok
}

// inputConfigs is every configuration of the input, the current one
// included, each once. Configurations of the same kind and name are one
// object in a cluster (alternative manifests of one project): the first
// one in the input stands for it.
func inputConfigs(p *Pass) []*Config {
	var out []*Config
	seen := map[string]bool{}
	added := map[*Config]bool{}
	add := func(c *Config) {
		key := ""
		if c != nil {
			key = c.Kind + "/" + c.Meta.Name
		}
		if c == nil || added[c] || seen[key] {
			return
		}
		seen[key], added[c] = true, true
		out = append(out, c)
	}
	if p.Input != nil {
		for _, c := range p.Input.Configs {
			add(c)
		}
	}
	add(p.Config)
	return out
}

// unreachableCost is how long a request of the chain waits when every
// backend is unreachable: each call fails at its timeout. A fail-open
// mutating webhook is then skipped (and may be called again if it is
// IfNeeded); a fail-closed one rejects the request, which ends the chain
// there, before any validating webhook. The chain is cut to what is
// waited for.
func unreachableCost(chain *budgetChain) int {
	total := 0
	for i := range chain.mutating {
		b := &chain.mutating[i]
		if b.w.FailsClosed() {
			b.cost = int(b.w.EffectiveTimeout()) // a failed call is not reinvoked
			chain.mutating, chain.validating = chain.mutating[:i+1], nil
			return total + b.cost
		}
		total += b.cost
	}
	if chain.validating != nil {
		total += chain.validating.cost
	}
	return total
}

// worstChain finds the request whose webhooks can take longest. It gives
// up early when even all webhooks together stay under the deadline.
func worstChain(configs []*Config, deadline int) (budgetChain, bool) {
	// The API server calls mutating configurations sorted by name, then
	// webhooks in list order (C13); validating ones likewise, in parallel.
	sorted := slices.Clone(configs)
	slices.SortStableFunc(sorted, func(a, b *Config) int { return strings.Compare(a.Meta.Name, b.Meta.Name) })
	// Sized once: grown by appending, a unit of 48,000 webhooks left
	// every smaller copy of both lists behind (26 MB of garbage).
	nHooks, nRules := 0, 0
	for _, c := range configs {
		nHooks += len(c.Webhooks)
		for i := range c.Webhooks {
			nRules += len(c.Webhooks[i].Rules)
		}
	}
	hooks := make([]budgetWebhook, 0, nHooks)
	rules := make([]indexedRule, 0, nRules)
	maxMutating, maxValidating := 0, 0
	for _, c := range sorted {
		for i := range c.Webhooks {
			w := &c.Webhooks[i]
			t := int(w.EffectiveTimeout())
			if t < 1 || t > 30 || len(w.Rules) == 0 {
				continue // rejected by the server, or matches nothing
			}
			b := budgetWebhook{w: w, mutating: c.IsMutating(), cost: t}
			if b.mutating && w.EffectiveReinvocationPolicy() == admissionv1.IfNeededReinvocationPolicy {
				b.cost = 2 * t
			}
			if b.mutating {
				maxMutating += b.cost
			} else {
				maxValidating = max(maxValidating, b.cost)
			}
			for _, r := range w.Rules {
				rules = append(rules, indexedRule{
					Rule: r, Webhook: len(hooks), Anchor: b.mutating,
					Equivalent: w.EffectiveMatchPolicy() == admissionv1.Equivalent,
				})
			}
			hooks = append(hooks, b)
		}
	}
	if maxMutating == 0 || maxMutating+maxValidating < deadline {
		return budgetChain{}, false
	}
	var best budgetChain
	found := false
	for _, set := range coMatchingRuleSets(rules) {
		chain := budgetChain{request: set.Example}
		seen := map[int]bool{}
		set.Rules.each(func(i int) {
			h := rules[i].Webhook
			if seen[h] {
				return
			}
			seen[h] = true
			b := hooks[h]
			if b.mutating {
				chain.mutating = append(chain.mutating, b)
			} else if chain.validating == nil || b.cost > chain.validating.cost {
				chain.validating = &hooks[h]
			}
		})
		chain.total = unreachableCost(&chain)
		if !found || chain.total > best.total {
			best, found = chain, true
		}
		if best.total == maxMutating+maxValidating {
			break // cannot get worse
		}
	}
	// Rule indexes follow call order, so chain.mutating does too.
	return best, found
}
