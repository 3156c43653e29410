package rules

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// The backend checks (service-reference, backend-availability,
// provider-control-plane-port, service-unavailable) judge the pods behind a
// webhook's Service. Files describe them with workloads and pod templates,
// a live cluster with pods; this file turns both into the same podGroups so
// that the two front ends report the same findings for the same objects.

// SummarizePod reads what the backend checks need from a pod spec; labels
// are the pod's own, which anti-affinity and spread constraints must select
// to keep its replicas apart.
func SummarizePod(podLabels map[string]string, spec *corev1.PodSpec) *PodSummary {
	s := &PodSummary{}
	add := func(c corev1.Container) {
		cs := ContainerSummary{Name: c.Name, Readiness: c.ReadinessProbe != nil}
		for _, p := range c.Ports {
			cs.Ports = append(cs.Ports, ContainerPort{Name: p.Name, Port: p.ContainerPort})
		}
		s.Containers = append(s.Containers, cs)
	}
	for _, c := range spec.Containers {
		add(c)
	}
	for _, c := range spec.InitContainers {
		// Restartable init containers are sidecars: they run beside the
		// main containers and may serve.
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(c)
		}
	}
	own := labels.Set(podLabels)
	selectsOwn := func(sel *metav1.LabelSelector) bool {
		if sel == nil {
			return false
		}
		s, err := metav1.LabelSelectorAsSelector(sel)
		return err == nil && !s.Empty() && s.Matches(own)
	}
	if a := spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if selectsOwn(t.LabelSelector) && t.TopologyKey != "" {
				s.SpreadKeys = append(s.SpreadKeys, t.TopologyKey)
			}
		}
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if selectsOwn(w.PodAffinityTerm.LabelSelector) && w.PodAffinityTerm.TopologyKey != "" {
				s.SpreadKeys = append(s.SpreadKeys, w.PodAffinityTerm.TopologyKey)
			}
		}
	}
	for _, c := range spec.TopologySpreadConstraints {
		if selectsOwn(c.LabelSelector) && c.TopologyKey != "" {
			s.SpreadKeys = append(s.SpreadKeys, c.TopologyKey)
		}
	}
	sort.Strings(s.SpreadKeys)
	s.SpreadKeys = slices.Compact(s.SpreadKeys)
	return s
}

// podGroup is one set of identical pods behind a Service: a workload of
// the input, or the live pods of one controller.
type podGroup struct {
	Who       string // e.g. Deployment "checker" (in the Service's namespace)
	Namespace string
	// Replicas is how many pods the group keeps (0: not a fixed number).
	Replicas  int32
	Defaulted bool // replicas unset in the manifest
	// Autoscaler names the HorizontalPodAutoscaler whose minReplicas
	// Replicas is, if one targets the workload.
	Autoscaler string
	// FromValues is set when a chart's default values chose Replicas,
	// GivenBy when the values the user gave did (`--set replicas=1`).
	FromValues bool
	GivenBy    string
	Labels     map[string]string
	Pod        *PodSummary // nil: not known
	// Object is the workload in the input (nil for live pods), and
	// AutoscalerObject the autoscaler that decides its replicas: where
	// findings on them are located.
	Object, AutoscalerObject *diag.Object
}

// backendPods is what the input says about the pods behind a service
// reference.
type backendPods struct {
	Service *corev1.Service // nil: not in the input (or the cluster)
	// Groups are the pod owners the Service's selector selects.
	Groups []podGroup
	// PodsKnown is set when the pods themselves were read (a live
	// cluster), so an empty Groups means "no pod is selected".
	PodsKnown bool
	// Live is set when the answer comes from a running cluster.
	Live bool
}

// servingPods resolves a service reference to its Service and pods: from
// the live cluster when its Services and pods were read, else from the
// Services and workloads of the input.
func servingPods(in *Inventory, ref *admissionv1.ServiceReference) backendPods {
	if in == nil {
		return backendPods{}
	}
	if l := in.Live; l != nil && l.Services != nil {
		svc, _ := l.Service(ref.Namespace, ref.Name)
		out := backendPods{Service: svc, Live: true}
		if svc == nil || l.Pods == nil || len(svc.Spec.Selector) == 0 {
			return out
		}
		out.PodsKnown = true
		out.Groups = livePodGroups(l.Pods, ref.Namespace, labels.SelectorFromSet(svc.Spec.Selector))
		return out
	}
	b := findBackend(in, ref)
	out := backendPods{Service: b.Service}
	for _, w := range b.Workloads {
		g := podGroup{
			Who:       fmt.Sprintf("%s %q", w.Object.Kind, w.Object.Name),
			Namespace: b.Namespace,
			Replicas:  w.Replicas, Defaulted: w.ReplicasDefaulted, FromValues: w.ReplicasFromValues, GivenBy: w.ReplicasGivenBy,
			Labels: w.PodLabels, Pod: w.Pod, Object: &w.Object,
		}
		for _, a := range in.Autoscalers {
			if a.TargetKind == w.Object.Kind && a.TargetName == w.Object.Name &&
				(a.Namespace == w.Object.Namespace || a.Namespace == "" || w.Object.Namespace == "") {
				g.Replicas, g.Defaulted, g.FromValues, g.GivenBy, g.Autoscaler = a.MinReplicas, false, a.MinReplicasFromValues, a.MinReplicasGivenBy, a.Name
				g.AutoscalerObject = &diag.Object{Kind: "HorizontalPodAutoscaler", Namespace: a.Namespace, Name: a.Name}
			}
		}
		out.Groups = append(out.Groups, g)
	}
	return out
}

// livePodGroups groups the selected, not terminating pods of a namespace by
// the workload that owns them. Pods of a ReplicaSet that a Deployment
// created (its name is the Deployment's plus the pod-template-hash label)
// are named after the Deployment, as files name them.
func livePodGroups(pods []*corev1.Pod, namespace string, sel labels.Selector) []podGroup {
	var order []string
	groups := map[string]*podGroup{}
	sorted := slices.Clone(pods)
	slices.SortFunc(sorted, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range sorted {
		if p.Namespace != namespace || p.DeletionTimestamp != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		kind, name := "Pod", p.Name
		if o := metav1.GetControllerOf(p); o != nil {
			kind, name = o.Kind, o.Name
			if hash := p.Labels["pod-template-hash"]; kind == "ReplicaSet" && hash != "" && strings.HasSuffix(name, "-"+hash) {
				kind, name = "Deployment", strings.TrimSuffix(name, "-"+hash)
			}
		}
		who := fmt.Sprintf("%s %q", kind, name) // the namespace is the Service's
		g, ok := groups[who]
		if !ok {
			g = &podGroup{Who: who, Namespace: namespace, Labels: p.Labels, Pod: SummarizePod(p.Labels, &p.Spec)}
			groups[who] = g
			order = append(order, who)
		}
		if kind != "DaemonSet" {
			g.Replicas++
		}
	}
	out := make([]podGroup, 0, len(order))
	for _, who := range order {
		out = append(out, *groups[who])
	}
	return out
}

// budgetsFor returns the PodDisruptionBudgets covering a group's pods: of
// the cluster when the answer is live, else of the input.
func budgetsFor(in *Inventory, live bool, g podGroup) (covering []DisruptionBudget, known bool) {
	var all []DisruptionBudget
	switch {
	case live && (in.Live == nil || in.Live.DisruptionBudgets == nil):
		return nil, false
	case live:
		for _, b := range in.Live.DisruptionBudgets {
			all = append(all, DisruptionBudget{Namespace: b.Namespace, Name: b.Name, Selector: b.Spec.Selector,
				MinAvailable: b.Spec.MinAvailable, MaxUnavailable: b.Spec.MaxUnavailable})
		}
	default:
		all = in.DisruptionBudgets
	}
	for _, b := range all {
		if b.Namespace != "" && g.Namespace != "" && b.Namespace != g.Namespace {
			continue
		}
		// A nil selector selects no pods; an empty one every pod of the
		// namespace (policy/v1).
		if b.Selector == nil {
			continue
		}
		s, err := metav1.LabelSelectorAsSelector(b.Selector)
		if err == nil && s.Matches(labels.Set(g.Labels)) {
			covering = append(covering, b)
		}
	}
	return covering, true
}

// allowedDisruptions is how many of replicas pods the budget lets a drain
// evict, rounding percentages up as the disruption controller does.
func allowedDisruptions(b DisruptionBudget, replicas int32) (int, bool) {
	switch {
	case b.MaxUnavailable != nil:
		n, err := intstr.GetScaledValueFromIntOrPercent(b.MaxUnavailable, int(replicas), true)
		return n, err == nil
	case b.MinAvailable != nil:
		n, err := intstr.GetScaledValueFromIntOrPercent(b.MinAvailable, int(replicas), true)
		return int(replicas) - n, err == nil
	}
	// Neither set: the API server defaults minAvailable to 1.
	return int(replicas) - 1, true
}

// servicePort finds the Service port a reference calls (default 443).
func servicePort(svc *corev1.Service, ref *admissionv1.ServiceReference) *corev1.ServicePort {
	port := serviceRefPort(ref)
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			return &svc.Spec.Ports[i]
		}
	}
	return nil
}

func serviceRefPort(ref *admissionv1.ServiceReference) int32 {
	if ref.Port != nil {
		return *ref.Port
	}
	return 443
}

// targetPortOf is the Service port's targetPort after defaulting (the port
// itself when unset).
func targetPortOf(sp *corev1.ServicePort) intstr.IntOrString {
	t := sp.TargetPort
	if t.Type == intstr.Int && t.IntVal == 0 || t.Type == intstr.String && t.StrVal == "" {
		return intstr.FromInt32(sp.Port)
	}
	return t
}

// resolveTargetPort finds the container port a targetPort reaches in a
// pod: by name, as the endpoints controller resolves it, or by number.
// ok is false when no container declares it.
func resolveTargetPort(t intstr.IntOrString, pod *PodSummary) (port int32, container string, ok bool) {
	for _, c := range pod.Containers {
		for _, p := range c.Ports {
			if t.Type == intstr.String && p.Name == t.StrVal || t.Type == intstr.Int && p.Port == t.IntVal {
				return p.Port, c.Name, true
			}
		}
	}
	return 0, "", false
}

// declaredPorts renders the container ports of a pod, for messages.
func declaredPorts(pod *PodSummary) string {
	var parts []string
	for _, c := range pod.Containers {
		for _, p := range c.Ports {
			parts = append(parts, strconv.Itoa(int(p.Port))+portName(p.Name))
		}
	}
	if len(parts) == 0 {
		return "no ports"
	}
	return "ports " + strings.Join(parts, ", ")
}

// describeTargetPort renders a targetPort for messages.
func describeTargetPort(t intstr.IntOrString) string {
	if t.Type == intstr.String {
		return strconv.Quote(t.StrVal)
	}
	return strconv.Itoa(int(t.IntVal))
}

// callers says which webhooks share a backend finding.
type callers struct {
	failClosedOnly bool // only webhooks with failurePolicy Fail
	samePort       bool // only those calling the same Service port
}

// firstCaller reports whether w is the first webhook of the input (of
// those c selects) calling the Service ref names, so a backend's finding is
// reported once however many webhooks it serves; it also counts the others.
func firstCaller(in *Inventory, w *Webhook, c callers) (first bool, others int) {
	ref := w.ClientConfig.Service
	first = true
	seen := false
	idx := webhooksCalling(in)
	calling := idx.byService[ref.Namespace+"/"+ref.Name]
	if !in.holds(w.Config) {
		calling = nil
		for _, cfg := range append([]*Config{w.Config}, in.Configs...) {
			for i := range cfg.Webhooks {
				calling = append(calling, &cfg.Webhooks[i])
			}
		}
	}
	for _, o := range calling {
		r := o.ClientConfig.Service
		if r == nil || r.Namespace != ref.Namespace || r.Name != ref.Name || c.failClosedOnly && !o.FailsClosed() ||
			c.samePort && serviceRefPort(r) != serviceRefPort(ref) {
			continue
		}
		if o.Config == w.Config && o.Index == w.Index {
			seen = true
			continue
		}
		if !seen {
			first = false
		}
		others++
	}
	return first, others
}

// callIndex is the unit's webhooks by the Service they call
// (namespace/name), in the unit's order.
type callIndex struct {
	byService map[string][]*Webhook
}

// webhooksCalling indexes the unit's webhooks once per unit, so that a
// folder of thousands of webhooks does not compare every pair.
func webhooksCalling(in *Inventory) callIndex {
	type key struct{}
	return in.Derived(key{}, func() any {
		x := callIndex{byService: map[string][]*Webhook{}}
		for _, cfg := range in.Configs {
			for i := range cfg.Webhooks {
				if r := cfg.Webhooks[i].ClientConfig.Service; r != nil {
					k := r.Namespace + "/" + r.Name
					x.byService[k] = append(x.byService[k], &cfg.Webhooks[i])
				}
			}
		}
		return x
	}).(callIndex)
}

// reportBackend reports a finding about a webhook's backend objects. They
// are what kustomize overlays rewrite (names, selectors, replicas, added
// PodDisruptionBudgets), so on a base linted alone the engine lowers it to
// info.
func reportBackend(p *Pass, sev diag.Severity, path *field.Path, format string, args ...any) {
	reportBackendAt(p, sev, path, nil, format, args...)
}

// reportBackendAt is reportBackend for a finding whose fix is on a backend
// object (cause): it is located there, with the webhook as related.
func reportBackendAt(p *Pass, sev diag.Severity, path *field.Path, cause *Cause, format string, args ...any) {
	p.Emit(Finding{Severity: sev, Path: PathString(path), Message: fmt.Sprintf(format, args...), DependsOnOverlay: true, Cause: cause})
}

// causeAt is the field path of object as a Cause; nil without an object.
func causeAt(object *diag.Object, path string) *Cause {
	if object == nil {
		return nil
	}
	return &Cause{Object: *object, Path: path}
}
