package config

import (
	"fmt"
	"strings"

	"github.com/webhooklint/webhooklint/rules"
)

// DefaultFile renders a configuration file that spells out every default,
// with comments, from the rule registry. Loading it changes nothing; it is
// a starting point to edit (webhooklint --init-config).
func DefaultFile() string {
	var b strings.Builder
	b.WriteString(`# webhooklint configuration. Every value below is the default; edit what you
# need and delete the rest. Reference: docs/configuration.md; JSON schema:
# docs/config.schema.json. Suppress single findings in the manifests instead:
#   # webhooklint:ignore <rule> -- <reason>

# Kubernetes version the manifests are for (MAJOR.MINOR). Decides which CEL
# libraries matchConditions may use and which API behavior applies.
kubeVersion: "` + rules.DefaultKubeVersion.String() + `"

# Platform the manifests are installed on: generic, gke, eks, aks or
# openshift. The provider-* rules judge the facts that differ by platform
# (ports the control plane reaches, AKS's admissions enforcer, OpenShift's
# CA injection); generic reports only what holds everywhere.
provider: generic

# Paths not to lint: globs relative to this file's folder, with '/'
# separators; '**' matches any number of folders, and a folder covers
# everything below it.
ignore: []
#  - vendor
#  - charts/*/templates/**

# false: webhooklint:ignore comments and webhooklint.io/ignore annotations
# are findings, not suppressions (as --no-inline-suppressions), so every
# exception is listed below, in this reviewed file.
inlineSuppressions: true

# Findings to accept: a rule, optionally files (globs as above) and a
# webhook name, and the reason. They apply even when inline suppressions
# are forbidden.
suppressions: []
#  - rule: self-deadlock
#    paths: [deploy/policy/**]
#    webhook: pods.policy.example.com
#    reason: the backend runs outside the cluster

# How to render Helm charts (as helm template would be told); paths are
# relative to this file's folder. A chart named twice is linted with each.
charts: []
#  - path: deploy/chart
#    values: [deploy/chart/values-prod.yaml]
#    set: ["webhook.failurePolicy=Fail"]
#    setString: []
#    releaseName: my-app
#    namespace: my-app-system

# What is deployed together. By default each root kustomization, each
# chart and the loose manifests of each folder are one unit, and
# cross-object rules compare the objects of one unit only.
units:
  # Root kustomization and chart folders that are deployed; when listed,
  # the other roots (e2e, OLM, samples) are linted as bases.
  entries: []
  #  - config/default
  # Loose manifests: a folder and those below it as one unit (kubectl
  # apply -R, Argo CD directory.recurse, Flux), or each file on its own.
  folders: []
  #  - {path: deploy, recursive: true}
  #  - {path: examples, split: true}

# Per rule: enabled (true/false), severity (error, warning or info) and
# options. ` + "`webhooklint --explain RULE`" + ` documents each rule.
rules:
`)
	for _, r := range allRules() {
		fmt.Fprintf(&b, "  # %s.\n", r.Summary)
		fmt.Fprintf(&b, "  %s:\n    enabled: true\n    severity: %s\n", r.Name, r.Severity)
		if len(r.Options) > 0 {
			b.WriteString("    options:\n")
			for _, o := range r.Options {
				for _, line := range wrap(o.Doc, 70) {
					fmt.Fprintf(&b, "      # %s\n", line)
				}
				fmt.Fprintf(&b, "      %s: %s\n", o.Name, yamlValue(o.Default))
			}
		}
	}
	if len(allRules()) == 0 {
		b.WriteString("  {}\n")
	}
	return b.String()
}

func yamlValue(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case []string:
		if len(v) == 0 {
			return "[]"
		}
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
