package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/webhookclient"
)

// defaultServicePort is what the server fills in for an omitted service.port.
const defaultServicePort = 443

func init() {
	register(&Rule{
		Name:     "client-config",
		Summary:  "clientConfig needs exactly one of url or service, an https URL without user info, query or fragment, and a valid service reference",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server must know where to send the AdmissionReview: either `url` (an `https://host[/path]` " +
				"URL with no user information, query or fragment) or `service` (name, namespace, port 1–65535, " +
				"and a path made of lowercase DNS-subdomain segments), never both and never neither. " +
				"Anything else rejects the configuration. For a missing `service.name` the v1.37 server names " +
				"`service.namespace` in its error, and the other way round (it passes the two arguments " +
				"swapped); webhooklint keeps the server's message but points at the field that is really missing.",
			Fix: "Keep one of `url` and `service`. Use `https`, move parameters into the path, and write " +
				"path segments in lowercase with `-` instead of `_`.",
			Sources: []string{
				srcWebhookValidation,
				srcValidation,
				docsWebhooks + "#contacting-the-webhook",
			},
		},
		Check: checkClientConfig,
	})
}

func checkClientConfig(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		cc := w.ClientConfig
		path := w.FieldPath("clientConfig")
		switch {
		case (cc.URL == nil) == (cc.Service == nil):
			// On the clientConfig key: the problem is the block as a whole.
			e := field.Required(path, "exactly one of url or service is required")
			p.Emit(Finding{Path: e.Field, Message: e.Error(), AtKey: true})
		case cc.URL != nil:
			p.ReportFieldErrors(webhookclient.ValidateURL(path.Child("url"), *cc.URL, true))
		default:
			port := int32(defaultServicePort)
			if cc.Service.Port != nil {
				port = *cc.Service.Port
			}
			// Arguments in the declared order (namespace, name), so that a
			// missing name is reported on service.name.
			p.ReportFieldErrors(webhookclient.ValidateService(path.Child("service"), cc.Service.Namespace, cc.Service.Name, cc.Service.Path, port))
		}
	}
}
