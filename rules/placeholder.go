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
	report := func(path *field.Path, value string) {
		if tok, ok := placeholder.Find(value); ok {
			p.Reportf(path, "%s", PlaceholderMessage(tok))
		}
	}
	report(field.NewPath("metadata", "name"), c.Meta.Name)
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		wp := w.Path()
		report(wp.Child("name"), w.Name)
		cc := wp.Child("clientConfig")
		if w.ClientConfig.URL != nil {
			report(cc.Child("url"), *w.ClientConfig.URL)
		}
		if s := w.ClientConfig.Service; s != nil {
			sp := cc.Child("service")
			report(sp.Child("name"), s.Name)
			report(sp.Child("namespace"), s.Namespace)
			if s.Path != nil {
				report(sp.Child("path"), *s.Path)
			}
		}
		// Enumerations: a placeholder is not an unsupported value, it is
		// an unsubstituted one.
		if w.FailurePolicy != nil {
			report(wp.Child("failurePolicy"), string(*w.FailurePolicy))
		}
		if w.MatchPolicy != nil {
			report(wp.Child("matchPolicy"), string(*w.MatchPolicy))
		}
		if w.ReinvocationPolicy != nil {
			report(wp.Child("reinvocationPolicy"), string(*w.ReinvocationPolicy))
		}
		if w.SideEffects != nil {
			report(wp.Child("sideEffects"), string(*w.SideEffects))
		}
		selectorPlaceholders(report, wp.Child("namespaceSelector"), w.NamespaceSelector)
		selectorPlaceholders(report, wp.Child("objectSelector"), w.ObjectSelector)
	}
}

// selectorPlaceholders checks label keys and values of a selector: an
// opt-in label chosen at deploy time (`${namespaceSelectorLabel}: enabled`).
func selectorPlaceholders(report func(*field.Path, string), path *field.Path, s *metav1.LabelSelector) {
	if s == nil {
		return
	}
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		report(path.Child("matchLabels").Key(k), k)
		report(path.Child("matchLabels").Key(k), s.MatchLabels[k])
	}
	for i, e := range s.MatchExpressions {
		ep := path.Child("matchExpressions").Index(i)
		report(ep.Child("key"), e.Key)
		for j, v := range e.Values {
			report(ep.Child("values").Index(j), v)
		}
	}
}

// PlaceholderMessage is the one wording for a placeholder finding, shared
// with the loader's caBundle check. The finding is located at the field,
// so the message does not name it.
func PlaceholderMessage(token string) string {
	return "placeholder `" + token + "` is not substituted: fill it in before the manifest is applied"
}
