package rules

import "github.com/webhooklint/webhooklint/diag"

// SchemaRule names the loader's findings for unknown, duplicate and mistyped fields.
const SchemaRule = "schema"

func init() {
	register(&Rule{
		Name:     SchemaRule,
		Summary:  "unknown or duplicate fields, values of the wrong type, and caBundle that is not base64",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "`kubectl apply` asks the API server for strict field validation: an unknown field (a typo such as " +
				"`timeoutSecond`, or `reinvocationPolicy` on a validating webhook), a field written twice, or a value of " +
				"the wrong JSON type rejects the whole object. Without strict validation the typo is silently dropped and " +
				"the default applies instead, which is worse. `caBundle` is bytes, so the server decodes it as base64 " +
				"before validation runs; anything else fails to decode.",
			Fix: "Spell the field as the API defines it (webhooklint suggests the closest name), write each field once, and base64-encode the PEM bundle (`base64 -w0 ca.crt`).",
			Sources: []string{
				"https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation",
				srcValidation,
			},
		},
	})
}
