package rules

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/placeholder"
)

// PlaceholderRule is the rule's name; the loader reports caBundle
// placeholders under it too (the typed object only has the bytes).
const PlaceholderRule = "placeholder"

func init() {
	register(&Rule{
		Name:     PlaceholderRule,
		Summary:  "a caBundle, URL, service or name that is still a substitution placeholder (${CA_BUNDLE}, __CA_BUNDLE__, CA_BUNDLE)",
		Severity: diag.Warning,
		Category: Input,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "Many repositories keep webhook configurations with placeholders that a deploy step fills in: " +
				"`envsubst` (`${CA_BUNDLE}`, `${NAMESPACE}`), `sed` markers (`__CA_BUNDLE__`, `{{caBundle}}`), bare tokens " +
				"(`CA_BUNDLE`, `REPLACE_WITH_SECRET`). Applied as is, the API server rejects the object (a placeholder is " +
				"neither base64 nor a DNS name) or, for a URL or path, the webhook calls an address that does not exist. " +
				"webhooklint names the placeholder instead of reporting a base64 or name-syntax error, so the finding says " +
				"what is actually wrong. A placeholder is normal in a template kept in the repository and fatal in a " +
				"release manifest, so its severity is yours to choose: `--placeholders=error|warning|info|off` " +
				"(default warning), or `rules: {placeholder: {severity: error}}` in `.webhooklint.yaml` (the flag wins).\n\nRecognized: `${VAR}`, `$(VAR)`, `$VAR` (upper case), `{{name}}`, `__VAR__`, " +
				"`%VAR%`, `@VAR@` anywhere in the value, and whole values that are an upper-case identifier with an " +
				"underscore (`CA_BUNDLE`) or text in angle brackets (`<ca-bundle>`); and, in a caBundle that is not " +
				"base64, words that ask for it (a sample's `-- your CARoot comes here --`: wrapped in `--`, `<>` or `[]`, " +
				"or two words with a space between) — a truncated bundle or a PEM certificate pasted unencoded stays a " +
				"schema error, as the API server rejects it. Checked fields: `metadata.name`, " +
				"`webhooks[].name`, `clientConfig.url`, `clientConfig.service.name`, `.namespace`, `.path`, " +
				"`clientConfig.caBundle`, the enumerations (failurePolicy, matchPolicy, reinvocationPolicy, sideEffects), " +
				"selector label keys and values, and any field where a placeholder string stands for a number, list or " +
				"object (`timeoutSeconds: HELMSUBST_TIMEOUT`). Other findings on the same field (schema, service reference) are dropped: " +
				"they only restate that the placeholder is not a valid value.",
			Fix: "Lint the manifest after substitution (`envsubst < webhook.yaml | webhooklint -`), or keep the " +
				"placeholder and lower the rule's severity for template folders (`--placeholders=info`). For caBundle, " +
				"consider a CA injector (cert-manager's `cert-manager.io/inject-ca-from` annotation) instead of substitution.",
			Sources: []string{
				docsWebhooks + "#contacting-the-webhook",
				issueEmptyCABundle,
			},
		},
		Check: checkPlaceholders,
	})
}

func checkPlaceholders(p *Pass) {
	c := p.Config
	report := func(value string, at func() *field.Path) { reportPlaceholder(p, value, at) }
	report(c.Meta.Name, func() *field.Path { return field.NewPath("metadata", "name") })
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		wp := w.Path()
		report(w.Name, func() *field.Path { return wp.Child("name") })
		if w.ClientConfig.URL != nil {
			report(*w.ClientConfig.URL, func() *field.Path { return wp.Child("clientConfig", "url") })
		}
		if s := w.ClientConfig.Service; s != nil {
			report(s.Name, func() *field.Path { return wp.Child("clientConfig", "service", "name") })
			report(s.Namespace, func() *field.Path { return wp.Child("clientConfig", "service", "namespace") })
			if s.Path != nil {
				report(*s.Path, func() *field.Path { return wp.Child("clientConfig", "service", "path") })
			}
		}
		// Enumerations: a placeholder is not an unsupported value, it is
		// an unsubstituted one.
		if w.FailurePolicy != nil {
			report(string(*w.FailurePolicy), func() *field.Path { return wp.Child("failurePolicy") })
		}
		if w.MatchPolicy != nil {
			report(string(*w.MatchPolicy), func() *field.Path { return wp.Child("matchPolicy") })
		}
		if w.ReinvocationPolicy != nil {
			report(string(*w.ReinvocationPolicy), func() *field.Path { return wp.Child("reinvocationPolicy") })
		}
		if w.SideEffects != nil {
			report(string(*w.SideEffects), func() *field.Path { return wp.Child("sideEffects") })
		}
		selectorPlaceholders(p, func() *field.Path { return wp.Child("namespaceSelector") }, w.NamespaceSelector)
		selectorPlaceholders(p, func() *field.Path { return wp.Child("objectSelector") }, w.ObjectSelector)
	}
}

// selectorPlaceholders checks label keys and values of a selector: an
// opt-in label chosen at deploy time (`${namespaceSelectorLabel}: enabled`).
// path makes the selector's path, for a finding only.
func selectorPlaceholders(p *Pass, path func() *field.Path, s *metav1.LabelSelector) {
	if s == nil {
		return
	}
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		at := func() *field.Path { return path().Child("matchLabels").Key(k) }
		reportPlaceholder(p, k, at)
		reportPlaceholder(p, s.MatchLabels[k], at)
	}
	for i, e := range s.MatchExpressions {
		ep := func() *field.Path { return path().Child("matchExpressions").Index(i) }
		reportPlaceholder(p, e.Key, func() *field.Path { return ep().Child("key") })
		for j, v := range e.Values {
			reportPlaceholder(p, v, func() *field.Path { return ep().Child("values").Index(j) })
		}
	}
}

// reportPlaceholder reports a placeholder in value at the path at makes.
// The path is made only then: made for every value checked, paths were
// most of what this rule allocated on units of thousands of
// configurations.
func reportPlaceholder(p *Pass, value string, at func() *field.Path) {
	if tok, ok := placeholder.Find(value); ok {
		p.Reportf(at(), "%s", PlaceholderMessage(tok))
	}
}

// PlaceholderMessage is the one wording for a placeholder finding, shared
// with the loader's caBundle check. The finding is located at the field,
// so the message does not name it.
func PlaceholderMessage(token string) string {
	return "placeholder `" + token + "` is not substituted: fill it in before the manifest is applied"
}
