package rules

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "client-url-host",
		Summary:  "clientConfig.url points at a loopback address or an in-cluster DNS name",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server calls `clientConfig.url` itself, resolving the host with its own resolver. " +
				"That resolver normally has no cluster DNS, so `*.svc` and `*.cluster.local` names do not " +
				"resolve and every call fails. `localhost`, `127.0.0.0/8` and `::1` reach the API server's own " +
				"host: this works only when a webhook server listens there next to every API server instance, " +
				"which in-cluster pods and managed control planes do not provide. The server accepts any host " +
				"(it checks only the scheme, userinfo, query and fragment). Static manifest configurations " +
				"(names ending in `.static.k8s.io`) may use loopback addresses: they are loaded by the API " +
				"server from its own disk and cannot use a service reference.",
			Fix: "Use `clientConfig.service` for a backend running in the cluster (the API server then " +
				"routes to the Service itself), or a URL with a host the API server can resolve and reach.",
			Sources: []string{
				docsWebhooks + "#url",
				srcWebhookClient,
			},
		},
		Check: checkClientURLHost,
	})
}

func checkClientURLHost(p *Pass) {
	static := strings.HasSuffix(p.Config.Meta.Name, ".static.k8s.io")
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if w.ClientConfig.URL == nil || *w.ClientConfig.URL == "" {
			continue
		}
		raw := *w.ClientConfig.URL
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			continue // the server rejects it; a server rule reports that
		}
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		path := w.FieldPath("clientConfig", "url")
		if loopback(host) {
			if !static {
				p.Reportf(path, "%s calls the API server's own host (%s) by URL; use clientConfig.service for an in-cluster backend",
					quoteWebhook(w), excerpt(host, maxQuoted))
			}
			continue
		}
		if inClusterName(host) {
			// The URL is where the finding is; its host is the suggestion's.
			p.Reportf(path, "%s calls an in-cluster name by URL; %s", quoteWebhook(w), serviceSuggestion(host, u))
		}
	}
}

// loopback reports localhost names and loopback or unspecified addresses.
func loopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// inClusterName reports names only cluster DNS resolves.
func inClusterName(host string) bool {
	return strings.HasSuffix(host, ".svc") || strings.HasSuffix(host, ".cluster.local")
}

// serviceSuggestion spells out the service reference for <name>.<ns>.svc[.…].
func serviceSuggestion(host string, u *url.URL) string {
	parts := strings.Split(host, ".")
	if len(parts) >= 3 && parts[2] == "svc" {
		port := u.Port()
		if port == "" {
			port = "443"
		}
		return fmt.Sprintf("use clientConfig.service %s/%s port %s instead", parts[1], parts[0], port)
	}
	return "use clientConfig.service for an in-cluster backend"
}
