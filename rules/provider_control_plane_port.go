package rules

import (
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/webhooklint/webhooklint/diag"
)

var _ = register(&Rule{
	Name:     "provider-control-plane-port",
	Summary:  "the webhook's pods listen on a port the managed control plane cannot reach by default (--provider gke, eks)",
	Severity: diag.Warning,
	Category: Practice,
	Since:    "0.2.0",
	Doc: Doc{
		Why: "The API server calls a webhook's Service by sending the request straight to one of its pods, on the " +
			"Service port's `targetPort`. On managed platforms the control plane runs outside the cluster's " +
			"network, and firewalls decide which node ports it may open:\n\n" +
			"- **GKE private clusters** (`--provider gke`): the firewall rule GKE creates lets the control plane " +
			"reach nodes only on TCP 443 and 10250. A webhook served on 8443 or 9443 (the kubebuilder and " +
			"controller-runtime default) is never reached: every call ends in `context deadline exceeded` " +
			"after the webhook's timeout, and with `failurePolicy: Fail` each request it matches is rejected. " +
			"Reported again and again: knative/serving#13045 and #4868, open-telemetry/opentelemetry-operator#1009, " +
			"chaos-mesh/chaos-mesh#1228, tektoncd/pipeline#3317. Chaos Mesh changed its default webhook port to " +
			"10250 for this reason (chaos-mesh/chaos-mesh#3877). Reported as a warning.\n" +
			"- **EKS** (`--provider eks`): the cluster security group EKS creates allows all traffic between the " +
			"control plane and nodes that use it, but nodes with their own security groups must allow the " +
			"control plane in on the webhook's port, or the calls time out the same way. Reported as info.\n\n" +
			"The port judged is the one the pods listen on: a numeric targetPort, or the container port a named " +
			"targetPort resolves to, from the Service and workloads in the input or a live cluster. `generic` " +
			"(the default provider) reports nothing: on other platforms the control plane reaches pods on any port.",
		Fix: "Serve the webhook on 443 or 10250 (mind that 10250 clashes with the kubelet for `hostNetwork` pods), " +
			"or add a firewall rule (GKE) or security group rule (EKS) that lets the control plane reach the nodes " +
			"on the webhook's port. Once the rule exists, disable this rule in `.webhooklint.yaml`.",
		Sources: []string{
			"https://cloud.google.com/kubernetes-engine/docs/how-to/private-clusters#add_firewall_rules",
			"https://cloud.google.com/kubernetes-engine/docs/concepts/firewall-rules",
			"https://github.com/knative/serving/issues/13045",
			"https://github.com/knative/serving/issues/4868",
			"https://github.com/open-telemetry/opentelemetry-operator/issues/1009",
			"https://github.com/chaos-mesh/chaos-mesh/issues/1228",
			"https://github.com/chaos-mesh/chaos-mesh/pull/3877",
			"https://github.com/tektoncd/pipeline/issues/3317",
			"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html",
		},
	},
	Check: checkControlPlanePort,
})

// controlPlanePorts are the node ports a managed control plane reaches by
// default.
var controlPlanePorts = map[int32]bool{443: true, 10250: true}

func checkControlPlanePort(p *Pass) {
	sev, explain, fix := diag.Warning, "", ""
	switch p.provider() {
	case GKE:
		explain = "which a GKE private cluster's control plane cannot reach (only 443, 10250)"
		fix = "add a firewall rule"
	case EKS:
		sev = diag.Info
		explain = "which EKS nodes outside the cluster security group must open to the control plane"
		fix = "open it in the node security group"
	default:
		return
	}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		ref := w.ClientConfig.Service
		if ref == nil || ref.Name == "" || ref.Namespace == "" {
			continue
		}
		bp := servingPods(p.Input, ref)
		if bp.Service == nil {
			continue
		}
		sp := servicePort(bp.Service, ref)
		if sp == nil {
			continue // service-reference or service-unavailable says so
		}
		port, ok := podPort(targetPortOf(sp), bp.Groups)
		if !ok || controlPlanePorts[port] {
			continue
		}
		if first, _ := firstCaller(p.Input, w, callers{samePort: true}); !first {
			continue
		}
		reportBackend(p, sev, w.FieldPath("clientConfig", "service"),
			"pods of service %q listen on %d, %s: calls time out and %s; use 443 or 10250, or %s",
			ref.Name, port, explain, callFailure(w), fix)
	}
}

// podPort is the port number pods receive calls on: a numeric targetPort,
// or what a named one resolves to in the first pods that declare it.
func podPort(t intstr.IntOrString, groups []podGroup) (int32, bool) {
	if t.Type == intstr.Int {
		return t.IntVal, true
	}
	for _, g := range groups {
		if g.Pod == nil {
			continue
		}
		if port, _, ok := resolveTargetPort(t, g.Pod); ok {
			return port, true
		}
	}
	return 0, false
}
