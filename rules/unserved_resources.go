package rules

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

var _ = register(&Rule{
	Name:     "unserved-resources",
	Summary:  "a rule names an API group, version or resource the cluster does not serve, so it never matches (live cluster)",
	Severity: diag.Warning,
	Category: Live,
	Since:    "0.1.0",
	Doc: Doc{
		Why: "The API server accepts any spelling in `rules[].apiGroups`, `apiVersions` and `resources`: " +
			"`deployment`, `app` or `v1beta1` of a group that no longer serves it are all valid. A rule " +
			"only matches requests for what the cluster serves, so a misspelled or removed name silently " +
			"never matches, and a security webhook relying on it enforces nothing. `matchPolicy: " +
			"Equivalent` does not help: equivalent resources are found among served versions only. The " +
			"rule compares every name with the cluster's discovery documents (built-in APIs, CRDs and " +
			"aggregated APIs) and suggests the closest served name. Groups whose discovery failed (an " +
			"aggregated API server that is down) are not judged.",
		Fix: "Use the names `kubectl api-resources` prints: lowercase plural resources, the group without " +
			"version, and versions the group serves. Install the CRD first if the resource comes from one.",
		Sources: []string{
			srcRulesMatcher,
			srcGenericWebhook,
			docsWebhooks + "#matching-requests-matchpolicy",
		},
	},
	Check: checkUnservedResources,
})

func checkUnservedResources(p *Pass) {
	live := p.Input.Live
	if live == nil || live.Served == nil {
		return
	}
	var groups []string
	for _, s := range live.Served {
		groups = append(groups, s.Group)
	}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		for j, r := range w.Rules {
			path := w.FieldPath("rules").Index(j)
			if slices.ContainsFunc(r.APIGroups, live.groupUnavailable) {
				continue
			}
			checkRuleNames(p, live, path, r.APIGroups, r.APIVersions, r.Resources, groups)
		}
	}
}

func checkRuleNames(p *Pass, live *LiveInventory, path *field.Path, groups, versions, resources, allGroups []string) {
	// Group: served at all?
	servedGroups := []string{}
	for k, g := range groups {
		if g == "*" {
			servedGroups = append(servedGroups, g)
			continue
		}
		if !slices.Contains(allGroups, g) {
			p.Reportf(path.Child("apiGroups").Index(k), "group %s is not served, so this rule never matches it%s",
				groupName(g), closestText(groupName(closest(g, allGroups))))
			continue
		}
		servedGroups = append(servedGroups, g)
	}
	if len(servedGroups) == 0 {
		return
	}
	// Version: served by any of the served groups?
	var inGroups []ServedResource
	for _, s := range live.Served {
		if anyMatches(servedGroups, s.Group) {
			inGroups = append(inGroups, s)
		}
	}
	var groupVersions []string
	for _, s := range inGroups {
		groupVersions = append(groupVersions, s.Version)
	}
	servedVersions := []string{}
	for k, v := range versions {
		if v == "*" || slices.Contains(groupVersions, v) {
			servedVersions = append(servedVersions, v)
			continue
		}
		p.Reportf(path.Child("apiVersions").Index(k), "version %q is not served in %s, so this rule never matches it%s",
			v, groupsText(servedGroups), closestText(fmt.Sprintf("%q", closest(v, groupVersions))))
	}
	if len(servedVersions) == 0 {
		return
	}
	// Resource (and subresource): served in any of those group/versions?
	var names []string
	for _, s := range inGroups {
		if anyMatches(servedVersions, s.Version) {
			names = append(names, s.Resource)
		}
	}
	for k, res := range resources {
		base, sub, hasSub := strings.Cut(res, "/")
		switch {
		case base == "*":
			continue // "*" and "*/sub" match whatever is served
		case hasSub && sub == "*":
			if !slices.Contains(names, base) {
				p.Reportf(path.Child("resources").Index(k), "resource %q is not served in %s, so this rule never matches it%s",
					base, groupsText(servedGroups), closestText(fmt.Sprintf("%q", closest(base, baseNames(names)))))
			}
		case !slices.Contains(names, res):
			candidates := baseNames(names)
			if hasSub {
				candidates = subNames(names)
			}
			p.Reportf(path.Child("resources").Index(k), "resource %q is not served in %s, so this rule never matches it%s",
				res, groupsText(servedGroups), closestText(fmt.Sprintf("%q", closest(res, candidates))))
		}
	}
}

func baseNames(names []string) []string {
	var out []string
	for _, n := range names {
		if !strings.Contains(n, "/") {
			out = append(out, n)
		}
	}
	return out
}

func subNames(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.Contains(n, "/") {
			out = append(out, n)
		}
	}
	return out
}

func groupName(g string) string {
	if g == "" {
		return `"" (core)`
	}
	return fmt.Sprintf("%q", g)
}

func groupsText(gs []string) string {
	if len(gs) == 1 {
		if gs[0] == "*" {
			return "any group"
		}
		return "group " + groupName(gs[0])
	}
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = groupName(g)
	}
	return "groups " + strings.Join(parts, ", ")
}

func closestText(closest string) string {
	if closest == "" || closest == `""` {
		return ""
	}
	return " (closest served: " + closest + ")"
}
