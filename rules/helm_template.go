package rules

import "github.com/webhooklint/webhooklint/diag"

// HelmTemplateRule names the finding for unrendered templates.
const HelmTemplateRule = "helm-template"

func init() {
	register(&Rule{
		Name:     HelmTemplateRule,
		Summary:  "a Helm chart template or other unrendered template was found where a manifest was expected",
		Severity: diag.Warning,
		Category: Input,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "A file with template actions (`{{ .Values.failurePolicy }}`) is not a manifest: most do not even parse " +
				"as YAML, and those that do hold values that are not final. Reporting YAML syntax or schema errors on it " +
				"would be noise, and silently skipping it would pass a webhook configuration nobody checked. webhooklint " +
				"reports one finding per file that says what it is and how to lint what it produces.\n\nA document counts " +
				"as a template when an action stands where YAML expects a node (the start of a line or a value, a list " +
				"item, inside `[ ]` or `{ }`), when it is a webhook configuration holding Go template actions, or, in a " +
				"document that does not parse, when a line is one envsubst variable and nothing else (clusterctl " +
				"templates write lines of YAML there: `${CTLPLANE_KUBEADM_EXTRA_CONFIG}`). " +
				"Actions inside strings and comments are text: a ConfigMap carrying an injector's template is linted as " +
				"usual. Only the templated documents are dropped; the file's other documents, and their syntax errors, " +
				"are reported as usual.\n\nHelm is named only on evidence: the file is under `templates/` of a chart " +
				"(a folder with `Chart.yaml`), or its actions use what only Helm provides (`.Values`, `.Release`, " +
				"`.Chart`, `.Capabilities`, `.Files`, `include`). Other Go templates (operator bindata, e2e frameworks) " +
				"and sed markers (`{{caBundle}}`) are called templates with placeholders. A chart folder among the " +
				"linted paths is rendered instead (`--helm` does the same explicitly), so this finding appears for " +
				"templates met on their own, such as single files passed by pre-commit.\n\n" +
				"It is a warning, not an error: the file is not wrong, but it was not linted, and by default " +
				"(`--fail-on warning`) a run that could not check a webhook configuration should not pass silently. " +
				"Set the rule to info or off for folders of templates that are linted through their chart. A template met " +
				"on its own whose templated documents name no kind the rules judge (no webhook configuration, CRD or " +
				"admission policy; `kind:` lines all written out) is info, since nothing the rules judge was left " +
				"unchecked: a clusterctl template of a workload cluster, say. A Service or workload among them stays a " +
				"warning when a webhook configuration or CRD of its unit may call it.",
			Fix: "Lint the chart: `webhooklint --helm <chart dir> [--values file]...` (or pass the chart folder), or lint the " +
				"rendered output (`helm template . | webhooklint -`). For other templates, lint the generated manifest.",
			Sources: []string{
				"https://helm.sh/docs/helm/helm_template/",
			},
		},
	})
}
