package rules

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/webhooklint/webhooklint/internal/suggest"
)

// LiveInventory is the state of a running cluster that the live rules
// (Category Live) judge webhooks against. `webhooklint cluster` fills it
// in; file linting leaves Inventory.Live nil and the live rules stay
// silent.
//
// Each part may be missing because the reader was not allowed to read it
// (RBAC) or the read failed; a nil slice means "unknown" and the rules
// depending on it say nothing, while an empty non-nil slice means "read,
// and there are none". (The JSON form is what rule fixtures put in their
// `# fixture: {"live": …}` header.)
type LiveInventory struct {
	Namespaces     []*corev1.Namespace          `json:"namespaces"`
	Services       []*corev1.Service            `json:"services"`
	EndpointSlices []*discoveryv1.EndpointSlice `json:"endpointSlices"`
	// Pods and DisruptionBudgets feed the backend checks (ports,
	// availability) that files get from workloads and PodDisruptionBudgets.
	// The cluster front end keeps only the fields those checks read.
	Pods              []*corev1.Pod                   `json:"pods"`
	DisruptionBudgets []*policyv1.PodDisruptionBudget `json:"disruptionBudgets"`
	// Served lists every group/version/resource the API server serves
	// (discovery, CRDs and aggregated APIs included). Subresources appear
	// as "pods/status".
	Served []ServedResource `json:"served"`
	// UnavailableGroups are group/versions whose discovery failed (an
	// aggregated API server that is down): rules naming them are not
	// judged, since the cluster may well serve them.
	UnavailableGroups []string `json:"unavailableGroups"`
}

// ServedResource is one entry of the cluster's discovery documents.
type ServedResource struct {
	Group      string `json:"group"`
	Version    string `json:"version"`
	Resource   string `json:"resource"`
	Namespaced bool   `json:"namespaced"`
}

// Service returns the Service namespace/name, and whether services were
// read at all.
func (l *LiveInventory) Service(namespace, name string) (svc *corev1.Service, known bool) {
	if l == nil || l.Services == nil {
		return nil, false
	}
	for _, s := range l.Services {
		if s.Namespace == namespace && s.Name == name {
			return s, true
		}
	}
	return nil, true
}

// Namespace returns the named namespace, and whether namespaces were read.
func (l *LiveInventory) Namespace(name string) (ns *corev1.Namespace, known bool) {
	if l == nil || l.Namespaces == nil {
		return nil, false
	}
	for _, n := range l.Namespaces {
		if n.Name == name {
			return n, true
		}
	}
	return nil, true
}

// SlicesFor returns the EndpointSlices of a Service (those labeled
// kubernetes.io/service-name), and whether slices were read.
func (l *LiveInventory) SlicesFor(namespace, service string) (slices []*discoveryv1.EndpointSlice, known bool) {
	if l == nil || l.EndpointSlices == nil {
		return nil, false
	}
	for _, s := range l.EndpointSlices {
		if s.Namespace == namespace && s.Labels[discoveryv1.LabelServiceName] == service {
			slices = append(slices, s)
		}
	}
	return slices, true
}

// groupUnavailable reports whether discovery of group (any version) failed.
func (l *LiveInventory) groupUnavailable(group string) bool {
	for _, gv := range l.UnavailableGroups {
		g, _, _ := strings.Cut(gv, "/")
		if !strings.Contains(gv, "/") {
			g = "" // legacy "v1"
		}
		if g == group {
			return true
		}
	}
	return false
}

// closest returns the candidate nearest to s by edit distance (ties go to
// the alphabetically first), or "" without candidates. Unlike
// suggest.Closest it has no distance limit: a rule that can never match
// deserves the nearest served name, however far.
func closest(s string, candidates []string) string {
	best, bestDist := "", -1
	sorted := slices.Clone(candidates)
	slices.Sort(sorted)
	for _, c := range slices.Compact(sorted) {
		if d := suggest.Distance(strings.ToLower(s), strings.ToLower(c)); bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}
