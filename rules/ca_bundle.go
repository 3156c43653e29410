package rules

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"strings"
	"time"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "ca-bundle",
		Summary:  "caBundle that cannot verify the webhook: not PEM, no certificate, expired, not a CA, missing or overwritten",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server never validates `caBundle`; it loads it when it first calls the webhook. " +
				"Bytes that are not PEM, or PEM without a parsable certificate, make the client fail to build " +
				"(`unable to parse bytes as PEM block`), and an expired or not yet valid CA fails every TLS " +
				"handshake (`x509: certificate has expired or is not yet valid`): every call fails, and " +
				"failurePolicy decides whether requests are rejected or the webhook silently skipped. " +
				"A certificate without `CA:TRUE` can only verify a server presenting exactly that certificate, " +
				"and a CA close to expiry is an outage on a known date. All of these are warnings: the API server " +
				"stores such a configuration, the failure comes at call time.\n\n" +
				"An empty caBundle makes the API server verify the backend against its own system trust roots, " +
				"which cannot verify a service reference's in-cluster certificate (`x509: certificate signed " +
				"by unknown authority`) unless something fills the bundle in. CA injectors do that from an " +
				"annotation on the configuration: cert-manager's cainjector (`cert-manager.io/inject-ca-from`, " +
				"`inject-ca-from-secret`, `inject-apiserver-ca`) and OpenShift's service-ca operator " +
				"(`service.beta.openshift.io/inject-cabundle: \"true\"`). Webhooks without rules are left " +
				"alone: their rules and caBundle are filled in at runtime by their controller (the Knative " +
				"pattern). With an injector annotation, a caBundle written in the manifest is overwritten, and " +
				"GitOps tools that re-apply it keep bringing back the stale CA.",
			Bad: "apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: policy\n" +
				"webhooks:\n" +
				"- name: check.policy.example.com\n" +
				"  clientConfig:\n" +
				"    service: {name: policy, namespace: policy}\n" +
				"  rules:\n" +
				"  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}\n" +
				"  sideEffects: None\n" +
				"  admissionReviewVersions: [v1]\n" +
				"  # no caBundle, no injector annotation\n",
			Good: "apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: policy\n" +
				"  annotations:\n" +
				"    cert-manager.io/inject-ca-from: policy/policy-serving-cert\n" +
				"webhooks:\n" +
				"- name: check.policy.example.com\n" +
				"  clientConfig:\n" +
				"    service: {name: policy, namespace: policy}\n" +
				"  rules:\n" +
				"  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}\n" +
				"  sideEffects: None\n" +
				"  admissionReviewVersions: [v1]\n",
			Fix: "Put the base64-encoded PEM of the CA that signed the serving certificate in `caBundle`, " +
				"renew it well before it expires, or let cert-manager or OpenShift inject it and remove the " +
				"caBundle from the manifest.",
			Sources: []string{
				"webhook-facts.md A.7 (caBundle content not validated), C11 (REST client errors from a bad caBundle are subject to failurePolicy), C15 (empty caBundle uses system roots), C21 (CA injection annotations), D32, G12",
				"webhook-facts.md F15 (x509: certificate has expired / signed by unknown authority incidents)",
				"https://cert-manager.io/docs/concepts/ca-injector/",
			},
		},
		Options: []Option{{
			Name:    "expiry-days",
			Doc:     "warn when a CA certificate in caBundle expires within this many days",
			Default: 30,
		}},
		Check: checkCABundle,
	})
}

// caInjectors are the annotations that make a controller write caBundle.
var caInjectors = []struct{ annotation, by string }{
	{"cert-manager.io/inject-ca-from", "cert-manager's cainjector"},
	{"cert-manager.io/inject-ca-from-secret", "cert-manager's cainjector"},
	{"cert-manager.io/inject-apiserver-ca", "cert-manager's cainjector"},
	{"service.beta.openshift.io/inject-cabundle", "the OpenShift service-ca operator"},
}

func checkCABundle(p *Pass) {
	injector, injectorBy := caInjectorOf(p)
	var missing []*Webhook // service references without any CA
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		path := w.Path().Child("clientConfig", "caBundle")
		bundle := bytes.TrimSpace(w.ClientConfig.CABundle)
		switch {
		case injector != "" && len(bundle) > 0:
			p.Reportf(path, "%s sets caBundle, but %s overwrites it (annotation %s): the value here is replaced at "+
				"runtime, and tools that re-apply the manifest bring the stale CA back until the injector runs "+
				"again; remove caBundle from the manifest", quoteWebhook(w), injectorBy, injector)
		case injector != "":
		case len(bundle) == 0:
			if w.ClientConfig.Service != nil && len(w.Rules) > 0 {
				missing = append(missing, w)
			}
		default:
			checkBundleContent(p, w, path, bundle)
		}
	}
	if len(missing) == 0 {
		return
	}
	// The cure (a CA or an injector annotation) is one per configuration:
	// report once, on the first webhook, rather than once per webhook.
	first := missing[0]
	who := fmt.Sprintf("%s calls service %s/%s", quoteWebhook(first), first.ClientConfig.Service.Namespace, first.ClientConfig.Service.Name)
	if len(missing) > 1 {
		others := "other webhooks"
		if len(missing) == 2 {
			others = "other webhook"
		}
		who = fmt.Sprintf("%s and %d %s of this configuration call services", quoteWebhook(first), len(missing)-1, others)
	}
	// An overlay usually adds the injector annotation (kubebuilder's
	// config/default), so on a base this depends on the overlay.
	p.Emit(Finding{Path: PathString(first.Path().Child("clientConfig", "caBundle")), DependsOnOverlay: true,
		Message: fmt.Sprintf("%s with an empty caBundle and no CA injector annotation: "+
			"the API server then verifies the serving certificate against its system trust roots (x509: certificate "+
			"signed by unknown authority), so every call fails unless a controller fills caBundle in at runtime; set "+
			"caBundle, or annotate the configuration with cert-manager.io/inject-ca-from or "+
			"service.beta.openshift.io/inject-cabundle: \"true\"", who)})
}

// caInjectorOf finds an active injector annotation on the configuration and
// reports a malformed cert-manager reference.
func caInjectorOf(p *Pass) (annotation, by string) {
	ann := p.Config.Meta.Annotations
	for _, inj := range caInjectors {
		v, ok := ann[inj.annotation]
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		apath := field.NewPath("metadata", "annotations").Key(inj.annotation)
		switch inj.annotation {
		case "cert-manager.io/inject-ca-from", "cert-manager.io/inject-ca-from-secret":
			ns, name, ok := strings.Cut(v, "/")
			if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
				p.Reportf(apath, "annotation %s is %q, but cert-manager expects <namespace>/<name>: nothing is "+
					"injected and caBundle stays as written", inj.annotation, v)
				continue
			}
		default:
			if v != "true" {
				continue // only "true" turns these injectors on
			}
		}
		if annotation == "" {
			annotation, by = inj.annotation, inj.by
		}
	}
	return annotation, by
}

// checkBundleContent parses the PEM bundle the way client-go does
// (x509.CertPool.AppendCertsFromPEM) and checks each certificate.
func checkBundleContent(p *Pass, w *Webhook, path *field.Path, bundle []byte) {
	var certs []*x509.Certificate
	var otherBlocks []string
	var parseErrs []string
	rest := bundle
	blocks := 0
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		blocks++
		if b.Type != "CERTIFICATE" || len(b.Headers) != 0 {
			otherBlocks = append(otherBlocks, b.Type)
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			parseErrs = append(parseErrs, fmt.Sprintf("PEM block %d: %v", blocks, err))
			continue
		}
		certs = append(certs, c)
	}
	switch {
	case blocks == 0:
		hint := ""
		if decoded, err := base64.StdEncoding.DecodeString(string(bundle)); err == nil && bytes.HasPrefix(bytes.TrimSpace(decoded), []byte("-----BEGIN")) {
			hint = " (it is base64-encoded twice: caBundle takes the PEM text encoded once)"
		}
		if hint == "" && len(bundle) <= 40 && isPrintable(bundle) {
			hint = fmt.Sprintf(" (it holds %q, a placeholder?)", bundle)
		}
		p.ReportSeverity(diag.Warning, path, fmt.Sprintf("%s: caBundle is not PEM%s: the API server cannot load it "+
			"(unable to parse bytes as PEM block), so every call fails; set it to the base64 of the PEM of the CA "+
			"that signed the serving certificate", quoteWebhook(w), hint))
		return
	case len(certs) == 0 && len(parseErrs) > 0:
		p.ReportSeverity(diag.Warning, path, fmt.Sprintf("%s: no certificate in caBundle parses (%s): the API server "+
			"cannot load it, so every call fails; set it to the PEM of the CA that signed the serving certificate",
			quoteWebhook(w), strings.Join(parseErrs, "; ")))
		return
	case len(certs) == 0:
		extra := ""
		for _, t := range otherBlocks {
			if strings.Contains(t, "PRIVATE KEY") {
				extra = "; a private key does not belong in a webhook configuration, replace it"
			}
		}
		p.ReportSeverity(diag.Warning, path, fmt.Sprintf("%s: caBundle holds no certificate, only %s: the API server "+
			"cannot load it, so every call fails; set it to the CA certificate that signed the serving certificate%s",
			quoteWebhook(w), strings.Join(otherBlocks, ", "), extra))
		return
	}
	for _, e := range parseErrs {
		p.Reportf(path, "%s: a certificate in caBundle does not parse (%s) and is ignored by the API server; "+
			"remove or replace it", quoteWebhook(w), e)
	}

	now := p.Settings.Now
	if now.IsZero() {
		now = time.Now()
	}
	horizon := now.AddDate(0, 0, p.IntOption("expiry-days"))
	invalid := 0
	for _, c := range certs {
		if now.After(c.NotAfter) || now.Before(c.NotBefore) {
			invalid++
		}
	}
	// While another certificate is valid it may still verify the server.
	consequence := ""
	if invalid == len(certs) {
		consequence = ", so every call fails"
	}
	for i, c := range certs {
		name := certName(c, i, len(certs))
		switch {
		case now.After(c.NotAfter):
			p.ReportSeverity(diag.Warning, path, fmt.Sprintf("%s: %s in caBundle expired on %s: TLS verification against it "+
				"fails (x509: certificate has expired or is not yet valid)%s; replace it with the current CA",
				quoteWebhook(w), name, c.NotAfter.UTC().Format(time.DateOnly), consequence))
		case now.Before(c.NotBefore):
			p.ReportSeverity(diag.Warning, path, fmt.Sprintf("%s: %s in caBundle is not valid before %s: TLS verification "+
				"against it fails until then (x509: certificate has expired or is not yet valid)%s; check the clock "+
				"of whatever issued it", quoteWebhook(w), name, c.NotBefore.UTC().Format(time.DateOnly), consequence))
		case horizon.After(c.NotAfter):
			days := int(c.NotAfter.Sub(now).Hours() / 24)
			p.Reportf(path, "%s: %s in caBundle expires on %s (in %d days): after that every call to the webhook "+
				"fails; rotate the CA and update caBundle before then", quoteWebhook(w), name,
				c.NotAfter.UTC().Format(time.DateOnly), days)
		}
		if !c.IsCA {
			p.Reportf(path, "%s: %s in caBundle is not a CA (no basicConstraints CA:TRUE): it verifies only a server "+
				"that presents exactly this certificate, so renewing the serving certificate breaks every call; put "+
				"the issuing CA in caBundle", quoteWebhook(w), name)
		}
	}
}

// certName identifies a certificate in messages.
func certName(c *x509.Certificate, i, total int) string {
	s := "certificate"
	if total > 1 {
		s = fmt.Sprintf("certificate %d", i+1)
	}
	if cn := c.Subject.CommonName; cn != "" {
		return fmt.Sprintf("%s %q", s, cn)
	}
	if subj := c.Subject.String(); subj != "" {
		return fmt.Sprintf("%s %q", s, subj)
	}
	return s
}

// isPrintable reports whether b is short readable text, worth quoting.
func isPrintable(b []byte) bool {
	for _, r := range string(b) {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
