package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/webhooklint/webhooklint/diag"
)

// ServiceReferenceRule is the name of the rule, for the packages that judge its findings.
const ServiceReferenceRule = "service-reference"

func init() {
	register(&Rule{
		Name:     ServiceReferenceRule,
		Summary:  "clientConfig.service names a Service, port or pods that cannot answer",
		Severity: diag.Warning,
		Category: Practice,
		// The backend's namespace, the Service and the selectors are what
		// a kustomize overlay sets.
		DependsOnOverlay: true,
		Since:            "0.1.0",
		Doc: Doc{
			Why: "The API server only checks that `clientConfig.service.name` and `.namespace` are not empty. " +
				"A Service name must be a DNS-1035 label and a namespace name a DNS-1123 label; a reference " +
				"that is neither (upper case, underscores, dots, too long) can never resolve to a Service, so " +
				"every call to the webhook fails: requests are rejected with failurePolicy Fail, and the " +
				"webhook is silently skipped with Ignore.\n\n" +
				"When the Service is in the same input (a kustomize build, a rendered chart, one bundle), the " +
				"rule also follows the call the way the API server and the endpoints controller do:\n\n" +
				"- `clientConfig.service.port` (default 443) must be one of the Service's `spec.ports[].port`; " +
				"otherwise the server fails the call with `no service port 8443 found for service`. A headless " +
				"Service (`clusterIP: None`) cannot be called at all.\n" +
				"- The Service's selector must select the pods of some workload in the input, or it gets no " +
				"endpoints and every call fails (`no endpoints available for service`).\n" +
				"- A named `targetPort` must be the name of a container port of those pods; otherwise the " +
				"endpoints controller leaves them out and every call fails. (A numeric targetPort need not be " +
				"declared: `containerPort` is informational, and servers often listen on an undeclared 9443.)\n\n" +
				"Each finding is reported once per Service, on the first webhook that calls it; the same " +
				"checks run against a live cluster as `service-unavailable`.",
			Fix: "Use the exact name and namespace of the Service in front of the webhook server, one of its ports, " +
				"and give that port a targetPort the webhook server's container declares (by name or number).",
			Sources: []string{
				docsNames + "#rfc-1035-label-names",
				"https://kubernetes.io/docs/concepts/services-networking/service/#field-spec-ports",
				docsWebhooks + "#service-reference",
				srcServiceProxy,
				srcWebhookValidation,
				srcWebhookClient,
			},
		},
		Check: checkServiceReference,
	})
}

func checkServiceReference(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		svc := w.ClientConfig.Service
		if svc == nil {
			continue
		}
		path := w.FieldPath("clientConfig", "service")
		// Empty values are the server's Required errors.
		if svc.Name != "" && len(validation.IsDNS1035Label(svc.Name)) > 0 {
			p.Reportf(path.Child("name"), "%s: service name %q is not a DNS-1035 label; use the name of the Service in front of the webhook",
				quoteWebhook(w), excerpt(svc.Name, maxQuoted))
		}
		if svc.Namespace != "" && len(validation.IsDNS1123Label(svc.Namespace)) > 0 {
			p.Reportf(path.Child("namespace"), "%s: service namespace %q is not a DNS-1123 label; use the Service's namespace",
				quoteWebhook(w), excerpt(svc.Namespace, maxQuoted))
		}
		checkServiceBackend(p, w)
	}
}

// checkServiceBackend follows a service reference to the Service, its
// port and the pods its selector selects, within the input. A live
// cluster's Services are service-unavailable's to judge.
func checkServiceBackend(p *Pass, w *Webhook) {
	ref := w.ClientConfig.Service
	if ref.Name == "" || ref.Namespace == "" {
		return
	}
	bp := servingPods(p.Input, ref)
	svc := bp.Service
	if bp.Live || svc == nil || svc.Spec.Type == corev1.ServiceTypeExternalName || len(svc.Spec.Ports) == 0 {
		return // a Service without ports is a patch or partial object, not what gets installed
	}
	// A finding about the Service or its pods is reported once, on the
	// first webhook calling it; a wrong port is each webhook's own.
	firstForService, _ := firstCaller(p.Input, w, callers{})
	firstForPort, _ := firstCaller(p.Input, w, callers{samePort: true})
	id := ref.Namespace + "/" + ref.Name
	// What a failing call does (rejected, skipped) is the doc's: it
	// follows from the failurePolicy.
	path := w.FieldPath("clientConfig", "service")
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		if !firstForService {
			return
		}
		reportBackendAt(p, p.rule.Severity, path, serviceCause(svc, "spec.clusterIP"), "service %q is headless, which the API server cannot call; "+
			"remove clusterIP: None", id)
		return
	}
	sp := servicePort(svc, ref)
	if sp == nil {
		portPath := path
		if ref.Port != nil {
			portPath = path.Child("port")
		}
		reportBackend(p, p.rule.Severity, portPath, "no service port %d found for service %q (it has %s); use one of them",
			serviceRefPort(ref), id, describePorts(svc.Spec.Ports))
		return
	}
	if len(svc.Spec.Selector) == 0 {
		return // endpoints managed by hand
	}
	if len(bp.Groups) == 0 {
		if !firstForService {
			return
		}
		if len(workloadsIn(p.Input, ref.Namespace)) > 0 {
			reportBackendAt(p, p.rule.Severity, path, serviceCause(svc, "spec.selector"), "service %q selects no pods: no workload here has labels %s; match the server's pod labels",
				id, labels.SelectorFromSet(svc.Spec.Selector))
		}
		return
	}
	if !firstForPort {
		return
	}
	// A named targetPort must be declared to resolve; a number need not
	// be (containerPort is informational, and servers commonly listen on
	// an undeclared 9443), so only names are judged.
	target := targetPortOf(sp)
	if target.Type != intstr.String {
		return
	}
	var judged []podGroup
	for _, g := range bp.Groups {
		if g.Pod == nil {
			continue
		}
		if _, _, ok := resolveTargetPort(target, g.Pod); ok {
			return
		}
		judged = append(judged, g)
	}
	if len(judged) == 0 {
		return
	}
	g := judged[0]
	at := "spec.ports"
	for i := range svc.Spec.Ports {
		if &svc.Spec.Ports[i] == sp {
			at = fmt.Sprintf("spec.ports[%d].targetPort", i)
		}
	}
	// The Service is the finding's cause, located at its targetPort.
	if declared := declaredPorts(g.Pod); declared != "no ports" {
		reportBackendAt(p, p.rule.Severity, path, serviceCause(svc, at), "targetPort %s names no container port of %s (it declares %s); "+
			"use one of them", describeTargetPort(target), g.Who, declared)
		return
	}
	reportBackendAt(p, p.rule.Severity, path, serviceCause(svc, at), "targetPort %s: %s declares no container ports; declare it",
		describeTargetPort(target), g.Who)
}

// callFailure says what happens to requests when every call fails.
func callFailure(w *Webhook) string {
	if w.FailsClosed() {
		return "requests it matches are rejected"
	}
	return "it is silently skipped"
}

// workloadsIn names the input's workloads stated to run in namespace: the
// evidence that the Service's pods should be in the input. (Workloads
// without a namespace may belong to another install.)
func workloadsIn(in *Inventory, namespace string) []string {
	var out []string
	for _, w := range in.Workloads {
		if w.Object.Namespace == namespace {
			out = append(out, fmt.Sprintf("%s %q", w.Object.Kind, w.Object.Name))
		}
	}
	return out
}

// serviceCause locates a finding on the Service a webhook calls, where a
// maintainer fixes it.
func serviceCause(svc *corev1.Service, path string) *Cause {
	return &Cause{Object: diag.Object{APIVersion: "v1", Kind: "Service", Namespace: svc.Namespace, Name: svc.Name}, Path: path}
}
