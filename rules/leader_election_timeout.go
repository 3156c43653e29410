package rules

import (
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "leader-election-timeout",
		Summary:  "a fail-open webhook on kube-system Leases can hold leader-election renewals past their deadline",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.3.0",
		Doc: Doc{
			Why: "kube-controller-manager and kube-scheduler keep their leadership by updating a Lease in " +
				"`kube-system` every 2 s and give it up when a renewal has not succeeded within their renew " +
				"deadline (`--leader-elect-renew-deadline`, 10 s by default). A webhook that intercepts those " +
				"updates holds each one for up to `timeoutSeconds` while its backend hangs (a full node, a network " +
				"partition, a backend stuck on a lock). `failurePolicy: Ignore` lets the update through only " +
				"*after* the timeout, so with a timeout near the deadline the renewal still misses it: the " +
				"controller manager and the scheduler restart, and nothing reconciles or schedules until the " +
				"backend answers again (open-policy-agent/gatekeeper#870, kubernetes/kubernetes#107678, where " +
				"5 s was already too long).\n\n" +
				"The rule simulates the controller manager's Lease update against every webhook that fails open " +
				"(the fail-closed ones are system-critical-scope's: their failure rejects the renewal outright) " +
				"and reports those whose timeout reaches `max-seconds`: a hung backend then delays each renewal " +
				"by that many of its 10 s. \"May intercept\" marks a renewal the webhook's matchConditions may " +
				"exclude in ways the rule cannot decide. When the unit holds no Service (the configuration is a part " +
				"of an install, such as gatekeeper's `config/webhook/manifests.yaml`, whose `config/default` patches " +
				"timeoutSeconds down to 3) the finding is info and says what it assumes and how to state " +
				"otherwise: name the unit in `units.entries` (docs/sources.md, \"Parts of an install\").",
			Fix: "Exclude `kube-system` with a namespaceSelector on `kubernetes.io/metadata.name`, leave " +
				"`leases` out of the rules, or keep `timeoutSeconds` short (Gatekeeper ships 3 s).",
			Sources: []string{
				issueGatekeeperLeases,
				issueLeaderElection,
				"https://kubernetes.io/docs/reference/command-line-tools-reference/kube-controller-manager/",
				docsWebhooks + "#timeouts",
			},
		},
		Options: []Option{{
			Name:    "max-seconds",
			Doc:     "smallest timeoutSeconds reported for a fail-open webhook on kube-system Leases",
			Default: 5,
		}},
		// A v1beta1 default (30 s) is fixed by moving to v1.
		ExplainedBy: []Explanation{{Root: UnservedAPIVersionRule, DefaultsOnly: true}},
		Check:       checkLeaderElectionTimeout,
	})
}

// leaderElectionRenewal is kube-controller-manager's update of its Lease.
func leaderElectionRenewal(in *Inventory) *Request {
	labels := KnownLabels(nil)
	return &Request{
		Operation: admissionv1.Update, Group: "coordination.k8s.io", Version: "v1", Resource: "leases",
		Namespace: "kube-system", NamespaceLabels: in.AssumedNamespaceLabels("kube-system"),
		Object: labels, OldObject: labels,
		UserName: "system:kube-controller-manager", UserGroups: []string{"system:authenticated"},
	}
}

func checkLeaderElectionTimeout(p *Pass) {
	limit := p.IntOption("max-seconds")
	var renewal *Request // made for the first webhook it is asked of
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		t := w.EffectiveTimeout()
		if w.FailsClosed() || len(w.Rules) == 0 || t < 1 || t > 30 || int(t) < limit {
			continue
		}
		if renewal == nil {
			renewal = leaderElectionRenewal(p.Input)
		}
		sim := w.Simulate(renewal)
		if sim.Outcome != Called && !sim.OnlyUnknown(UnknownMatchConditions) {
			continue
		}
		path, why := w.FieldPath("timeoutSeconds"), ""
		if w.TimeoutSeconds == nil {
			path, why = w.Path(), " (v1 default)"
			if p.Config.IsV1beta1() {
				why = " (v1beta1 default)"
			}
		}
		verb := "intercepts"
		if sim.Outcome == MaybeCalled {
			verb = "may intercept" // unless matchConditions exclude them
		}
		// How much of the 10 s renew deadline that is, the doc says.
		// The timeout and the exclusion are what an overlay sets
		// (gatekeeper's config/default patches timeoutSeconds 3).
		p.Emit(Finding{Path: PathString(path), Assumes: Fragment(p, w), Message: fmt.Sprintf(
			"%s %s kube-system Leases with timeoutSeconds %d%s; exclude kube-system or lower the timeout",
			quoteWebhook(w), verb, t, why)})
	}
}
