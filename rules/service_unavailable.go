package rules

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/webhooklint/webhooklint/diag"
)

var _ = register(&Rule{
	Name:     "service-unavailable",
	Summary:  "the Service a webhook calls is missing, lacks the port, or has no ready endpoints (live cluster)",
	Severity: diag.Error,
	Category: Live,
	Since:    "0.1.0",
	Doc: Doc{
		Why: "The API server resolves `clientConfig.service` to the Service's cluster IP and the port whose " +
			"`port` equals `clientConfig.service.port` (default 443). A missing Service, a missing port " +
			"(`no service port 8443 found for service \"x\"`), a headless Service " +
			"(`cannot route to service with ClusterIP \"None\"`) or a Service with no ready endpoints makes " +
			"every call fail. With `failurePolicy: Fail` every request the webhook matches is then rejected; " +
			"with `Ignore` the webhook is silently skipped. Only a live cluster shows this, so the rule runs " +
			"under `webhooklint cluster` and is reported as a warning for webhooks that fail open. When the " +
			"pods could be read, a missing endpoint is explained if the Service itself causes it: a selector " +
			"that selects no pod, or a named targetPort no selected pod declares (the checks `service-reference` " +
			"makes on files).",
		Fix: "Point `clientConfig.service` at an existing, non-headless Service and one of its `spec.ports[].port` " +
			"values, give it a selector that selects the webhook server's pods and a targetPort they declare, and make sure its pods are ready (`kubectl get endpointslices -l " +
			"kubernetes.io/service-name=<name>`).",
		Sources: []string{
			srcServiceProxy,
			docsWebhooks + "#service-reference",
			srcWebhookClient,
		},
	},
	Check: checkServiceUnavailable,
})

func checkServiceUnavailable(p *Pass) {
	live := p.Input.Live
	if live == nil {
		return
	}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		ref := w.ClientConfig.Service
		if ref == nil {
			continue
		}
		sev := diag.Error
		consequence := "so every request it matches is rejected"
		if !w.FailsClosed() {
			sev = diag.Warning
			consequence = "so the webhook is silently skipped"
		}
		svcPath := w.FieldPath("clientConfig", "service")
		report := func(path string, msg string) {
			p.Emit(Finding{Severity: sev, Path: path, Message: msg + ", " + consequence})
		}
		svc, known := live.Service(ref.Namespace, ref.Name)
		if !known {
			continue
		}
		id := ref.Namespace + "/" + ref.Name
		if svc == nil {
			report(svcPath.String(), fmt.Sprintf("service %q does not exist in the cluster", id))
			continue
		}
		switch {
		case svc.Spec.Type == corev1.ServiceTypeExternalName:
			continue // resolved by name to an outside host: nothing to check here
		case svc.Spec.ClusterIP == corev1.ClusterIPNone:
			report(svcPath.String(), fmt.Sprintf("service %q is headless: the API server cannot route to service with ClusterIP \"None\"", id))
			continue
		}
		port := int32(443)
		portPath := svcPath.String()
		if ref.Port != nil {
			port = *ref.Port
			portPath = svcPath.Child("port").String()
		}
		var sp *corev1.ServicePort
		for j := range svc.Spec.Ports {
			if svc.Spec.Ports[j].Port == port {
				sp = &svc.Spec.Ports[j]
			}
		}
		if sp == nil {
			report(portPath, fmt.Sprintf("no service port %d found for service %q (it has %s)", port, id, describePorts(svc.Spec.Ports)))
			continue
		}
		slices, known := live.SlicesFor(ref.Namespace, ref.Name)
		if !known {
			continue
		}
		if readyEndpoints(slices, sp.Name) == 0 {
			report(svcPath.String(), fmt.Sprintf("service %q has no ready endpoints for port %d%s%s", id, port, portName(sp.Name),
				noEndpointsReason(p.Input, ref, svc, sp)))
		}
	}
}

// noEndpointsReason says, from the cluster's pods, why a Service has no
// endpoints when the cause is in its own spec: a selector that selects no
// pod, or a named targetPort no selected pod declares. Empty when the pods
// were not read or are merely not ready.
func noEndpointsReason(in *Inventory, ref *admissionv1.ServiceReference, svc *corev1.Service, sp *corev1.ServicePort) string {
	if len(svc.Spec.Selector) == 0 {
		return ""
	}
	bp := servingPods(in, ref)
	if !bp.PodsKnown {
		return ""
	}
	if len(bp.Groups) == 0 {
		return fmt.Sprintf(": its selector %s selects no pod", labels.SelectorFromSet(svc.Spec.Selector))
	}
	t := targetPortOf(sp)
	if t.Type != intstr.String {
		return ""
	}
	for _, g := range bp.Groups {
		if _, _, ok := resolveTargetPort(t, g.Pod); ok {
			return ""
		}
	}
	g := bp.Groups[0]
	return fmt.Sprintf(": targetPort %s names no container port of %s (it declares %s)", describeTargetPort(t), g.Who, declaredPorts(g.Pod))
}

// readyEndpoints counts endpoints serving the named Service port that are
// ready (a nil Ready condition means ready, as the API defines it).
func readyEndpoints(slices []*discoveryv1.EndpointSlice, port string) int {
	n := 0
	for _, s := range slices {
		if !slicePortNamed(s, port) {
			continue
		}
		for _, e := range s.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				n++
			}
		}
	}
	return n
}

func slicePortNamed(s *discoveryv1.EndpointSlice, name string) bool {
	for _, p := range s.Ports {
		n := ""
		if p.Name != nil {
			n = *p.Name
		}
		if n == name {
			return true
		}
	}
	return false
}

func describePorts(ports []corev1.ServicePort) string {
	if len(ports) == 0 {
		return "no ports"
	}
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = fmt.Sprintf("%d%s", p.Port, portName(p.Name))
	}
	return "ports " + strings.Join(parts, ", ")
}

func portName(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", name)
}
