package rules

import (
	"fmt"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
)

var _ = register(&Rule{
	Name:     "backend-availability",
	Summary:  "a fail-closed webhook's backend runs one replica, has no usable PodDisruptionBudget, readiness probe or spread across nodes",
	Severity: diag.Warning,
	Category: Practice,
	Since:    "0.2.0",
	Doc: Doc{
		Why: "A webhook with `failurePolicy: Fail` (the v1 default) is part of the API: while none of its pods " +
			"answers, every request it matches is rejected; when the same pods convert CRDs, reads and writes of " +
			"those in their other versions fail too, and the finding counts them (\"serving 3 webhooks and 2 CRD conversions\": the other fail-closed webhooks and the CRDs the same pods serve; \"and 1 more workload\": another workload behind the Service with gaps of its own; PDB: PodDisruptionBudget). Its backend therefore needs what " +
			"any API server replica would have:\n\n" +
			"- **At least two replicas.** With one, every rollout, node drain, eviction or crash leaves no pod to " +
			"answer, and the requests the webhook matches fail until a new pod is scheduled and ready (`no endpoints " +
			"available for service`, as in knative/eventing#8161 when the webhook was scaled down during a " +
			"downgrade). Gatekeeper made several webhook replicas its default for this reason " +
			"(open-policy-agent/gatekeeper#723).\n" +
			"- **A PodDisruptionBudget that allows a disruption.** Without one, a drain may evict every replica " +
			"at once (all on one node, or several nodes drained together by an upgrade). A budget that allows " +
			"none — `maxUnavailable: 0`, or `minAvailable` equal to the replicas or `100%` — blocks the drain " +
			"instead: `kubectl drain` and managed node upgrades retry `Cannot evict pod as it would violate the " +
			"pod's disruption budget` until they time out (foriequal0/pod-graceful-drain#34, a webhook with one " +
			"replica and a budget).\n" +
			"- **A readinessProbe.** Without it a pod receives calls as soon as its containers start, before " +
			"the server has loaded its certificate or policies, and those calls fail.\n" +
			"- **Anti-affinity or a topology spread across nodes** when there are several replicas. Otherwise " +
			"the scheduler may put them all on one node, and losing that node is losing the webhook " +
			"(anchore/anchore-charts#250, scylladb/scylla-operator#696, openshift/addon-operator#272).\n\n" +
			"The rule follows `clientConfig.service` to the Service and the workloads it selects in the same " +
			"input, or to the live pods and PodDisruptionBudgets under `webhooklint cluster`, and reports " +
			"once per backend what is missing. It is silent for `failurePolicy: Ignore`, where a short outage " +
			"only skips the webhook, and for DaemonSets' replica count and budget (one pod per node; drains " +
			"leave DaemonSet pods alone). A HorizontalPodAutoscaler targeting the workload decides its " +
			"replicas: its `minReplicas` (default 1) is judged instead of `spec.replicas`. In a Helm chart " +
			"whose template takes the replica count from values, a single replica is the values' choice, " +
			"which whoever installs the chart makes.\n\n" +
			"Severity: one level per gap, whatever field carries it (`spec.replicas`, an autoscaler's " +
			"`minReplicas`, a chart value behind either). What leaves the webhook without a pod on an ordinary " +
			"event is a warning; what matters only when several things go wrong at once is info (the default " +
			"scheduler already spreads a workload's pods over nodes when it can); a gap a chart's default " +
			"values decide is info, since whoever installs the chart chooses it (values given to the render, by a " +
			"GitOps entry, `.webhooklint.yaml`'s `charts:`, `--values` or `--set`, are what is deployed: judged as " +
			"written, and the message names them, `1 replica (--set replicas=1)`):\n\n" +
			"| gap | written in the manifest, or a GitOps entry's value | a chart value |\n" +
			"|---|---|---|\n" +
			"| 1 replica (`replicas`, an autoscaler's `minReplicas`, or `replicas` unset) | warning: every rollout or eviction | info |\n" +
			"| a PodDisruptionBudget that allows no disruption | warning: drains hang | info (the replicas it is measured against are a value) |\n" +
			"| no readinessProbe | warning: every new pod gets calls before it serves | warning (the probe is the template's own) |\n" +
			"| no PodDisruptionBudget, several replicas | info | info |\n" +
			"| several replicas not spread over nodes | info | info |\n\n" +
			"A finding on a missing budget or spread is located at the workload's own document (its name, or " +
			"its pod template), where the fix goes, never at a patch that only names the workload. The finding " +
			"takes its worst gap's level, and its message gives that gap's fix; the table says what each leads to. Helm test hook pods (`helm.sh/hook: test`) are not backends.",
		Fix: "Run two or more replicas spread over nodes (`topologySpreadConstraints` or `podAntiAffinity` on " +
			"`kubernetes.io/hostname`), add a PodDisruptionBudget with `maxUnavailable: 1` (or a `minAvailable` " +
			"below the replica count), and give the serving container a readinessProbe. If the webhook can " +
			"tolerate being skipped while its backend is down, `failurePolicy: Ignore` avoids the outage instead.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/cluster-administration/admission-webhooks-good-practices/",
			"https://kubernetes.io/docs/tasks/run-application/configure-pdb/",
			"https://kubernetes.io/docs/concepts/workloads/pods/disruptions/",
			"https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/",
			"https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/",
			"https://docs.redhat.com/en/documentation/openshift_container_platform/4.20/html/postinstallation_configuration/post-install-pod-disruption-budgets (maxUnavailable 0 or minAvailable equal to the replicas can block nodes from being drained)",
			"https://github.com/knative/eventing/issues/8161",
			"https://github.com/open-policy-agent/gatekeeper/pull/723",
			"https://github.com/foriequal0/pod-graceful-drain/issues/34",
			"https://github.com/anchore/anchore-charts/issues/250",
			"https://github.com/scylladb/scylla-operator/issues/696",
			"https://github.com/openshift/addon-operator/pull/272",
		},
	},
	Check: checkBackendAvailability,
})

func checkBackendAvailability(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		ref := w.ClientConfig.Service
		if !w.FailsClosed() || ref == nil || ref.Name == "" || ref.Namespace == "" {
			continue
		}
		bp := servingPods(p.Input, ref)
		if bp.Service == nil || len(bp.Groups) == 0 {
			continue // nothing to judge (or service-reference's finding)
		}
		first, others := firstCaller(p.Input, w, callers{failClosedOnly: true})
		if !first {
			continue
		}
		// One workload is named (the Service rarely selects more). The
		// severity is the worst gap's (availabilityGaps).
		var named, fix string
		var cause *Cause
		more := 0
		sev := diag.Info
		for _, g := range bp.Groups {
			gaps := availabilityGaps(p.Input, bp.Live, g)
			if len(gaps) == 0 {
				continue
			}
			if named != "" {
				more++
				continue
			}
			var text []string
			worst := gaps[0]
			for _, gp := range gaps {
				text = append(text, gp.what)
				if gp.sev > worst.sev {
					worst = gp
				}
			}
			// The gaps are listed; the worst one's fix is spelled out (the
			// others' fixes are what they name). What each leads to is in
			// the doc.
			sev, fix, cause = worst.sev, worst.fix, worst.at
			// Located on the workload, the report's header names it;
			// anywhere else (its budget, its autoscaler, live pods) the
			// message does.
			named = strings.Join(text, ", ")
			if cause == nil || g.Object == nil || cause.Object != *g.Object {
				named = g.Who + ": " + named
			}
		}
		if named == "" {
			continue
		}
		if sev > p.rule.Severity {
			sev = p.rule.Severity // a configuration may lower the rule
		}
		if more > 0 {
			if more == 1 {
				named += " (and 1 more workload)"
			} else {
				named += fmt.Sprintf(" (and %d more workloads)", more)
			}
		}
		// What else the pods serve, when more than this webhook: other
		// fail-closed webhooks, and CRD conversions (while the pods are
		// down, reads and writes of those CRDs in their other versions
		// fail too: there is no failure policy; conversion-webhook leaves
		// the finding here).
		var serving []string
		if others > 0 {
			serving = append(serving, fmt.Sprintf("%d webhooks", others+1))
		}
		switch crds := conversionCRDsOf(p.Input, ref.Namespace, ref.Name); len(crds) {
		case 0:
		case 1:
			serving = append(serving, fmt.Sprintf("%s.%s conversion", crds[0].Spec.Names.Plural, crds[0].Spec.Group))
		default:
			serving = append(serving, fmt.Sprintf("%d CRD conversions", len(crds)))
		}
		if len(serving) > 0 {
			named += ", serving " + strings.Join(serving, " and ")
		}
		reportBackendAt(p, sev, w.FieldPath("clientConfig", "service"), cause, "%s; %s", named, fix)
	}
}

// gap is one availability shortfall, its fix, how much it endangers the
// webhook, and the field the fix changes (nil when the pods are live).
type gap struct {
	what, fix string
	sev       diag.Severity
	at        *Cause
}

// The severity model, one level per gap: what leaves the webhook without
// a pod on an ordinary event (one replica: every rollout or eviction; a
// budget that blocks drains; no readiness probe: every new pod gets calls
// before it serves) is a warning; what only matters when several things
// go wrong at once (no budget or no spread with several replicas: the
// default scheduler already spreads replicas over nodes as it can) is
// info. A gap that the chart's values decide (the replica count, and so
// whether a budget can help) is one level lower: whoever installs the
// chart chooses it. The finding takes its worst gap's level and fix.

// lowerIf lowers a warning to info when the chart's values decide it.
func lowerIf(fromValues bool, sev diag.Severity) diag.Severity {
	if fromValues {
		return diag.Info
	}
	return sev
}

// availabilityGaps lists what keeps a group of backend pods from staying
// available, in the order a reader fixes them.
func availabilityGaps(in *Inventory, live bool, g podGroup) (gaps []gap) {
	if g.Replicas == 1 {
		what, at := "1 replica", causeAt(g.Object, "spec.replicas")
		switch {
		case g.Autoscaler != "" && g.FromValues:
			what = "1 replica (autoscaler minReplicas, chart value)"
			at = causeAt(g.AutoscalerObject, "spec.minReplicas")
		case g.Autoscaler != "" && g.GivenBy != "":
			what = "1 replica (autoscaler minReplicas, " + g.GivenBy + ")"
			at = causeAt(g.AutoscalerObject, "spec.minReplicas")
		case g.Autoscaler != "":
			what = "1 replica (autoscaler minReplicas)"
			at = causeAt(g.AutoscalerObject, "spec.minReplicas")
		case g.FromValues:
			what = "1 replica (chart value)"
		case g.GivenBy != "":
			// The deployment chose it: as if written in the manifest.
			what = "1 replica (" + g.GivenBy + ")"
		case g.Defaulted:
			what = "1 replica (replicas unset)"
		}
		gaps = append(gaps, gap{what, "run 2+ replicas", lowerIf(g.FromValues, diag.Warning), at})
	}
	if g.Replicas > 0 {
		if covering, known := budgetsFor(in, live, g); known {
			switch {
			case len(covering) == 0 && g.Replicas > 1:
				// With one replica no budget helps: the replica is the gap.
				gaps = append(gaps, gap{"no PDB", "add a PodDisruptionBudget", diag.Info, causeAt(g.Object, "metadata.name")})
			case g.Replicas > 1 || len(gaps) == 0:
				// With one replica any budget must block drains or allow the
				// outage; the missing replica is the finding then.
				blocking := true
				for _, b := range covering {
					if n, ok := allowedDisruptions(b, g.Replicas); !ok || n > 0 {
						blocking = false
					}
				}
				if blocking {
					gaps = append(gaps, gap{fmt.Sprintf("PDB %q allows no disruption", covering[0].Name),
						"allow 1 disruption", lowerIf(g.FromValues, diag.Warning), budgetCause(covering[0])})
				}
			}
		}
	}
	if g.Pod != nil {
		ready := false
		for _, c := range g.Pod.Containers {
			ready = ready || c.Readiness
		}
		if !ready && len(g.Pod.Containers) > 0 {
			// The probe is the template's own, not a value's.
			gaps = append(gaps, gap{"no readinessProbe", "add a readinessProbe", diag.Warning, causeAt(g.Object, "spec.template.spec.containers")})
		}
		if g.Replicas > 1 && len(g.Pod.SpreadKeys) == 0 {
			gaps = append(gaps, gap{fmt.Sprintf("%d replicas not spread", g.Replicas),
				"spread them over nodes", diag.Info, causeAt(g.Object, "spec.template.spec")})
		}
	}
	return gaps
}

// budgetCause locates a finding on a PodDisruptionBudget at its limits.
func budgetCause(b DisruptionBudget) *Cause {
	path := "spec"
	switch {
	case b.MaxUnavailable != nil:
		path = "spec.maxUnavailable"
	case b.MinAvailable != nil:
		path = "spec.minAvailable"
	}
	return &Cause{Object: diag.Object{Kind: "PodDisruptionBudget", Namespace: b.Namespace, Name: b.Name}, Path: path}
}
