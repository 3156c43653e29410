package rules

import "github.com/webhooklint/webhooklint/diag"

// HelmRenderRule names the finding for a chart that cannot be rendered.
const HelmRenderRule = "helm-render"

func init() {
	register(&Rule{
		Name:     HelmRenderRule,
		Summary:  "a Helm chart could not be rendered offline (missing dependencies, template or values errors)",
		Severity: diag.Error,
		Category: Input,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "`--helm CHART` (or a chart folder among the paths) renders the chart with the Helm engine, as " +
				"`helm template` does with the chart's values and any `--values` files, and lints the output. Rendering " +
				"is offline: dependencies must be vendored under `charts/` (`helm dependency build`), and `lookup` sees " +
				"no cluster, DNS functions return nothing. A chart that does not render would not install either. A template " +
				"that fails is reported at the line Helm names and the chart's other templates are rendered and linted " +
				"without it; a template that includes it is left out with it, named in the same finding (helm template " +
				"reports the first failure alone). A template that stops on purpose for a value with no default (`required`, `fail`) is a " +
				"warning that names the value to give (`--set`, or `charts:` in `.webhooklint.yaml`); info when the " +
				"template writes nothing the rules judge (its text, and the chart's helper files it may include, name " +
				"no webhook configuration, CRD or admission policy kind), since nothing was left unchecked. A values " +
				"schema error is reported at the values line it rejects. A chart is a program, so a render is bounded: 20 s, 512 MiB of memory, lists from `until`, " +
				"`untilStep` and `seq` of at most 2^20 elements, 64 MiB of output per template (`repeat` included); a " +
				"template that passes a bound is reported at the action that did.",
			Fix: "Run `helm dependency build <chart>`, fix the template or values error at the reported line, or give " +
				"the value the chart requires (`--set key=value`, or `set:`/`values:` under `charts:` in the configuration).",
			Sources: []string{
				"https://helm.sh/docs/helm/helm_template/",
				"https://helm.sh/docs/helm/helm_dependency_build/",
				"https://helm.sh/docs/chart_template_guide/function_list/",
			},
		},
	})
}
