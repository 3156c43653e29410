package rules

import (
	"iter"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// webhookConfigResource is the resource name RBAC rules use for a webhook
// configuration kind.
func webhookConfigResource(kind string) string {
	return strings.ToLower(kind) + "s"
}

// configWriteGrant is a rule granted to a workload that lets it update or
// patch webhook configurations of one kind; explicit when the rule names
// the kind and its group as written, not through "*".
type configWriteGrant struct {
	rule     *rbacv1.PolicyRule
	explicit bool
}

// writeGrants holds, for one kind of configuration, the rules that
// grantedRules yields for a ServiceAccount in a namespace (all it reads of
// a workload) and that let it update or patch configurations of the kind,
// in order. Made once per unit and kind: ca-bundle asks about every
// workload that may write each webhook, and most rules are about other
// resources.
type writeGrants struct {
	in       *Inventory
	resource string
	bySA     map[[2]string][]configWriteGrant
}

func configWriters(in *Inventory, c *Config) *writeGrants {
	if in == nil {
		return &writeGrants{}
	}
	type key struct{ kind string }
	return in.Derived(key{c.Kind}, func() any {
		g := &writeGrants{in: in, resource: webhookConfigResource(c.Kind), bySA: map[[2]string][]configWriteGrant{}}
		for i := range in.Workloads {
			wl := &in.Workloads[i]
			if k := saOf(wl); wl.ServiceAccount != "" && g.bySA[k] == nil {
				g.bySA[k] = g.rulesOf(wl)
			}
		}
		return g
	}).(*writeGrants)
}

func saOf(wl *Workload) [2]string { return [2]string{wl.ServiceAccount, wl.Object.Namespace} }

func (g *writeGrants) rulesOf(wl *Workload) []configWriteGrant {
	out := []configWriteGrant{} // not nil: made
	for pr := range grantedRules(g.in, wl) {
		if !anyOf(pr.APIGroups, GroupName) || !anyOf(pr.Resources, g.resource) ||
			(!anyOf(pr.Verbs, "update") && !anyOf(pr.Verbs, "patch")) {
			continue
		}
		out = append(out, configWriteGrant{pr, slices.Contains(pr.APIGroups, GroupName) && slices.Contains(pr.Resources, g.resource)})
	}
	return out
}

// grant reports whether the unit's RBAC lets workload wl update or patch
// the webhook configuration c (of g's kind): a ClusterRoleBinding of its
// ServiceAccount to a ClusterRole with such a rule (a RoleBinding cannot
// grant a cluster-scoped object). named is set when the rule lists the
// configuration in resourceNames rather than granting every configuration
// of the kind (as cert-manager's cainjector, which writes only the
// annotated ones, is granted); explicit when a grant names the kind and
// its group as written: a role that may do anything, as a GitOps
// controller's, says nothing of the CA.
func (g *writeGrants) grant(wl *Workload, c *Config) (granted, named, explicit bool) {
	if g.in == nil || wl.ServiceAccount == "" {
		return false, false, false
	}
	rules, ok := g.bySA[saOf(wl)]
	if !ok {
		rules = g.rulesOf(wl) // a workload not of the unit's list
	}
	for _, r := range rules {
		if len(r.rule.ResourceNames) == 0 {
			granted = true
			explicit = explicit || r.explicit
			continue
		}
		if slices.ContainsFunc(r.rule.ResourceNames, func(n string) bool { return namesConfig(n, c.Meta.Name) }) {
			return true, true, true
		}
	}
	return granted, false, explicit
}

// grantedRules yields the rules of the ClusterRoles (aggregated ones
// included) that the unit's ClusterRoleBindings grant to workload wl's
// ServiceAccount.
func grantedRules(in *Inventory, wl *Workload) iter.Seq[*rbacv1.PolicyRule] {
	return func(yield func(*rbacv1.PolicyRule) bool) {
		ix := clusterRBACOf(in)
		for _, bi := range ix.bySubject[wl.ServiceAccount] {
			rb := &in.RoleBindings[bi]
			if !bindsServiceAccount(*rb, wl) {
				continue
			}
			for _, ri := range ix.roles[rb.RoleRef.Name] {
				for i := range in.Roles[ri].Rules {
					if !yield(&in.Roles[ri].Rules[i]) {
						return
					}
				}
			}
		}
	}
}

// clusterRBAC indexes a unit's cluster-wide grants once: writeGrants is
// asked for every webhook and every workload, and scanning every binding and
// role each time was a quarter of a run over the real-world corpus.
type clusterRBAC struct {
	// bySubject holds the ClusterRoleBindings of a ClusterRole by the name
	// of each ServiceAccount they bind, in input order.
	bySubject map[string][]int
	roles     map[string][]int // ClusterRoles by name, in input order
}

func clusterRBACOf(in *Inventory) *clusterRBAC {
	type key struct{}
	return in.Derived(key{}, func() any {
		ix := &clusterRBAC{bySubject: map[string][]int{}, roles: map[string][]int{}}
		for i, rb := range in.RoleBindings {
			if rb.Kind != "ClusterRoleBinding" || rb.RoleRef.Kind != "ClusterRole" {
				continue
			}
			for _, sub := range rb.Subjects {
				if at := ix.bySubject[sub.Name]; sub.Kind == "ServiceAccount" && (len(at) == 0 || at[len(at)-1] != i) {
					ix.bySubject[sub.Name] = append(at, i)
				}
			}
		}
		for i, r := range in.Roles {
			if r.Kind == "ClusterRole" {
				ix.roles[r.Name] = append(ix.roles[r.Name], i)
			}
		}
		// An aggregated ClusterRole grants what the ClusterRoles its
		// selectors match grant (one level: the controller manager
		// aggregates those roles' own rules).
		for i, r := range in.Roles {
			if r.Kind != "ClusterRole" || len(r.Aggregates) == 0 {
				continue
			}
			for j, other := range in.Roles {
				if j != i && other.Kind == "ClusterRole" && len(other.Aggregates) == 0 && selectsRole(r.Aggregates, other.Labels) {
					ix.roles[r.Name] = append(ix.roles[r.Name], j)
				}
			}
		}
		return ix
	}).(*clusterRBAC)
}

// selectsRole reports whether one of an aggregationRule's selectors
// matches a ClusterRole's labels (an empty selector matches none, as
// the controller manager's does not aggregate every role).
func selectsRole(selectors []metav1.LabelSelector, roleLabels map[string]string) bool {
	for i := range selectors {
		s, err := metav1.LabelSelectorAsSelector(&selectors[i])
		if err == nil && !s.Empty() && s.Matches(labels.Set(roleLabels)) {
			return true
		}
	}
	return false
}

// mayWriteCRD reports whether the unit's RBAC lets workload wl update or
// patch the CustomResourceDefinition named crd, as a controller that
// writes its conversion webhook's caBundle is allowed to: a
// ClusterRoleBinding of its ServiceAccount to a ClusterRole (or one that
// aggregates it) whose rule names the group and resource as written, not
// through "*" (a role that may do anything, as a GitOps controller's,
// says nothing of the CA), for every CRD or with crd among its
// resourceNames.
func mayWriteCRD(in *Inventory, wl *Workload, crd string) bool {
	if in == nil || wl.ServiceAccount == "" {
		return false
	}
	for pr := range grantedRules(in, wl) {
		if slices.Contains(pr.APIGroups, CRDGroupName) && slices.Contains(pr.Resources, "customresourcedefinitions") &&
			(anyOf(pr.Verbs, "update") || anyOf(pr.Verbs, "patch")) &&
			(len(pr.ResourceNames) == 0 || slices.Contains(pr.ResourceNames, crd)) {
			return true
		}
	}
	return false
}

// namesConfig reports whether a resourceNames entry names the
// configuration: exactly, or before kustomize's namePrefix, which renames
// the configuration but not the entries naming it.
func namesConfig(entry, config string) bool {
	return entry != "" && (entry == config || strings.HasSuffix(config, "-"+entry))
}

// bindsServiceAccount reports whether rb binds the workload's
// ServiceAccount. A namespace left out on either side (a kustomize base, a
// chart rendered without one) is taken to be the same.
func bindsServiceAccount(rb RoleBinding, wl *Workload) bool {
	for _, s := range rb.Subjects {
		if s.Kind == "ServiceAccount" && s.Name == wl.ServiceAccount &&
			(s.Namespace == "" || wl.Object.Namespace == "" || s.Namespace == wl.Object.Namespace) {
			return true
		}
	}
	return false
}

// anyOf reports whether an RBAC list holds want or the wildcard.
func anyOf(list []string, want string) bool {
	return slices.Contains(list, want) || slices.Contains(list, "*")
}
