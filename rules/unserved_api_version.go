package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// UnservedAPIVersionRule is the name of the rule that reports a removed or
// never-served apiVersion.
const UnservedAPIVersionRule = "unserved-api-version"

func init() {
	register(&Rule{
		Name:     UnservedAPIVersionRule,
		Summary:  "webhook configurations are served only in admissionregistration.k8s.io/v1, CRDs only in apiextensions.k8s.io/v1 (v1beta1 was removed in 1.22)",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		// An archived install manifest has tens of v1beta1 CRDs: one
		// apiVersion to change throughout the file.
		OnePerFile: true,
		Doc: Doc{
			Why: "Since 1.22 the API server serves webhook configurations only in `admissionregistration.k8s.io/v1`; " +
				"any other version (`v1alpha1`, a typo) was never served. Both are errors from 1.22 on: " +
				"`kubectl apply` of a v1beta1 manifest fails with `no matches for kind`. With `--kube-version` below " +
				"1.22, where v1beta1 is still served (deprecated since 1.16), it is a warning. Changing only the apiVersion is not " +
				"enough either: v1 defaults differ (failurePolicy Fail instead of Ignore, matchPolicy Equivalent " +
				"instead of Exact, timeoutSeconds 10 instead of 30) and sideEffects and admissionReviewVersions become " +
				"required. webhooklint keeps linting the content with the v1beta1 defaults so the other findings " +
				"describe how the manifest behaved; those that follow only from the v1beta1 defaults are folded into this " +
				"finding (\"also causes\"), whose message names the values to write out in v1 for the defaults the object relies " +
				"on, as v1 defaults differ. What those defaults break: `sideEffects: Unknown` " +
				"fails every dry run (`kubectl diff`, `--dry-run=server`) and is rejected by v1, `failurePolicy: Ignore` " +
				"silently becomes `Fail` when the field is left out, and the 30 s timeout becomes 10 s.\n\n" +
				"CustomResourceDefinitions in `apiextensions.k8s.io/v1beta1` were removed in the same release. Below 1.22 " +
				"webhooklint reads them as the server did (`spec.version`, a shared `spec.validation`, " +
				"`spec.conversion.webhookClientConfig`, `conversionReviewVersions` defaulting to `v1beta1`, " +
				"`preserveUnknownFields` defaulting to true), so their conversion-webhook findings are reported; from 1.22 " +
				"on the CRD is never installed and this error is its only finding.\n\n" +
				"An archived install manifest holds tens of such objects, one change for the file: the finding is " +
				"reported once per file and kind, at the first object, counting them, with the others as related " +
				"locations (`related` in JSON, `relatedLocations` in SARIF). A suppression on one object (a " +
				"`# webhooklint:ignore` comment above it, the `webhooklint.io/ignore` annotation) leaves that object out.",
			Fix: "Move to v1 and write out the v1beta1 defaults you relied on. With `--unsafe-fixes` webhooklint does it: " +
				"it rewrites the apiVersion and writes, on each webhook that leaves them out, `failurePolicy: Ignore`, " +
				"`matchPolicy: Exact`, `timeoutSeconds: 30`, `admissionReviewVersions: [v1beta1]` and " +
				"`sideEffects: NoneOnDryRun` (see below for why these values, and why the fix is unsafe); the file's " +
				"other objects of the kind are fixed with it, as the finding counts them.",
			Sources: []string{
				docsDeprecation,
				srcDefaultsV1beta1,
				srcDefaultsV1,
				"https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/",
			},
		},
		Fixes: []FixDoc{{
			Name:          "v1-keeping-v1beta1-defaults",
			Title:         "move to admissionregistration.k8s.io/v1, writing out the v1beta1 defaults",
			Applicability: diag.Unsafe,
			Why: "Rewrites the apiVersion of a v1beta1 webhook configuration to v1 and writes out, on each webhook where the " +
				"field is absent, the value v1beta1 gave it and v1 would not: `failurePolicy: Ignore`, `matchPolicy: Exact`, " +
				"`timeoutSeconds: 30`, `admissionReviewVersions: [v1beta1]` and `sideEffects: NoneOnDryRun` (an explicit " +
				"`Unknown` or `Some`, which v1 rejects, becomes `NoneOnDryRun` too). The review versions stay `[v1beta1]` " +
				"alone: the API server sends the first listed version it supports, so adding `v1` (first or second) would " +
				"send, or with the `review-versions-order` fix soon send, v1 AdmissionReviews to a server that was only ever " +
				"sent v1beta1 ones; `review-versions-order` then says, at info, to serve v1 and list it. The fix is unsafe " +
				"because of `sideEffects`: v1 accepts only `None` or `NoneOnDryRun`, and both change behavior, since the " +
				"API server then calls the webhook on dry runs, which `Unknown` made it refuse. `NoneOnDryRun` is the " +
				"weaker of the two claims (as in `side-effects-value`), and holds only if the webhook skips its side effects " +
				"when the request has `dryRun: true`: a maintainer must check its code. The fix is not offered when a field " +
				"it would write cannot be written in the file's text (an alias, a mapping under an anchor).",
		}},
		Check:       checkUnservedAPIVersion,
		CheckCRD:    checkUnservedCRD,
		CheckPolicy: checkUnservedPolicy,
	})
}

// checkUnservedAPIVersion judges a v1beta1 configuration against the
// target version: the loader decoded it with the v1beta1 defaults, and only
// this rule knows which server it is for.
func checkUnservedAPIVersion(p *Pass) {
	if !p.Config.IsV1beta1() {
		return
	}
	sev, msg := unservedV1beta1(p.Config, p.Settings.KubeVersion)
	p.emit(Finding{Severity: sev, Path: "apiVersion", Message: msg, Fixes: []FieldFix{v1KeepingDefaults(p.Config)}})
}

// v1KeepingDefaults is the fix that moves a v1beta1 configuration to v1
// without changing what its webhooks do, but for sideEffects, which v1
// makes it declare (see the fix's Why).
func v1KeepingDefaults(c *Config) FieldFix {
	fix := FieldFix{Fix: "v1-keeping-v1beta1-defaults", Edits: []FieldEdit{{Path: "apiVersion", Old: V1beta1, New: V1}}}
	insert := func(w *Webhook, name string, v any) {
		fix.Edits = append(fix.Edits, FieldEdit{Path: w.FieldString(name), Insert: true, Value: v, After: webhookFieldsBefore(name)})
	}
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		// In webhookFieldOrder: fields inserted at one place keep it.
		if w.FailurePolicy == nil {
			insert(w, "failurePolicy", string(admissionv1.Ignore))
		}
		if w.MatchPolicy == nil {
			insert(w, "matchPolicy", string(admissionv1.Exact))
		}
		switch {
		case w.SideEffects == nil:
			insert(w, "sideEffects", string(admissionv1.SideEffectClassNoneOnDryRun))
		case !slices.Contains(noSideEffectClasses, *w.SideEffects):
			fix.Edits = append(fix.Edits, FieldEdit{Path: w.FieldString("sideEffects"),
				Old: string(*w.SideEffects), New: string(admissionv1.SideEffectClassNoneOnDryRun)})
		}
		if w.TimeoutSeconds == nil {
			insert(w, "timeoutSeconds", 30)
		}
		if len(w.AdmissionReviewVersions) == 0 {
			insert(w, "admissionReviewVersions", []string{"v1beta1"})
		}
	}
	if len(fix.Edits) == 1 {
		fix.Message = "move to " + V1 // no default to write out (a patch's identity, say)
	}
	return fix
}

// checkUnservedCRD judges a v1beta1 CustomResourceDefinition against the
// target version, as checkUnservedAPIVersion a configuration; Pass.Run
// runs no other rule on one the target does not serve.
func checkUnservedCRD(p *Pass) {
	if !IsV1beta1CRD(p.CRD) {
		return
	}
	const fix = "; use apiextensions.k8s.io/v1"
	if v1beta1Served(p.Settings.KubeVersion) {
		p.ReportSeverity(diag.Warning, field.NewPath("apiVersion"), CRDV1beta1+" is deprecated, removed in 1.22"+fix)
		return
	}
	p.ReportSeverity(diag.Error, field.NewPath("apiVersion"), CRDV1beta1+" was removed in 1.22"+fix)
}

// checkUnservedPolicy reports a policy kind the target does not serve in
// v1; Pass.Run runs no other rule on it.
func checkUnservedPolicy(p *Pass) {
	if !PolicyServed(p.Policy.Kind, p.Settings.KubeVersion) {
		p.Reportf(field.NewPath("apiVersion"), "Kubernetes %s does not serve %s in %s; it is served from 1.%d: raise --kube-version or drop it",
			p.Settings.KubeVersion, p.Policy.Kind, V1, PolicyServedFrom(p.Policy.Kind))
	}
}

// NeverServedMessage is the finding on a webhook configuration kind in a
// version of admissionregistration.k8s.io no server ever served: the loader
// reports it, as such an object has no schema to decode into and no rule
// sees it.
func NeverServedMessage(kind string) string {
	// The finding is at the apiVersion: the message need not repeat it.
	return fmt.Sprintf("no server serves %s in this apiVersion; use %s", kind, V1)
}

// servedV1beta1Until is the last minor release that served
// admissionregistration.k8s.io/v1beta1.
const servedV1beta1Until = 21

// v1beta1Served reports whether a server of version v still serves the
// v1beta1 webhook configuration API.
func v1beta1Served(v KubeVersion) bool { return !v.AtLeast(servedV1beta1Until + 1) }

// unservedV1beta1 is the severity and message of the finding on a v1beta1
// configuration for a server of version v: an error (the apply fails) from
// 1.22 on, a warning before. The message names the v1beta1 defaults the
// configuration relies on that change meaning, or break, once it is moved
// to v1.
func unservedV1beta1(c *Config, v KubeVersion) (diag.Severity, string) {
	fix := "use v1"
	if set := reliedV1beta1Defaults(c); set != "" {
		// Terse: with the folded findings ("also causes 2 findings") the
		// line of a webhook relying on all three defaults is at the
		// 200-column bound (issue 38).
		fix = "in v1: " + set
	}
	// The finding is at the apiVersion, which names the group.
	if v1beta1Served(v) {
		return diag.Warning, "v1beta1 is deprecated, removed in 1.22; " + fix
	}
	return diag.Error, "v1beta1 removed in 1.22; " + fix
}

// reliedV1beta1Defaults says, in a fixed order, which fields some webhook
// of c leaves to a v1beta1 default, as the values to write out in v1 (the
// doc says what each default does there). "" when none is left.
func reliedV1beta1Defaults(c *Config) string {
	var failure, sideEffects, timeout bool
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		failure = failure || w.FailurePolicy == nil
		sideEffects = sideEffects || w.SideEffects == nil
		timeout = timeout || w.TimeoutSeconds == nil
	}
	var out []string
	if sideEffects {
		// The value the fix writes (the doc says why, and what the
		// default Unknown breaks: every dry run).
		out = append(out, "sideEffects "+string(admissionv1.SideEffectClassNoneOnDryRun))
	}
	if failure {
		out = append(out, "failurePolicy Ignore")
	}
	if timeout {
		out = append(out, "timeoutSeconds 30")
	}
	return strings.Join(out, ", ")
}

// CRDV1beta1 is the apiVersion of CustomResourceDefinitions removed in 1.22,
// together with v1beta1 webhook configurations.
const CRDV1beta1 = "apiextensions.k8s.io/v1beta1"

// IsV1beta1CRD reports whether crd is written in CRDV1beta1 (the loader
// reads it into v1's shape and keeps the version it was written in).
func IsV1beta1CRD(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return crd.APIVersion == CRDV1beta1
}

// CRDServed reports whether a server of version v serves crd's apiVersion:
// one that does not never installs it.
func CRDServed(crd *apiextensionsv1.CustomResourceDefinition, v KubeVersion) bool {
	return !IsV1beta1CRD(crd) || v1beta1Served(v)
}
