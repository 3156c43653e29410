package rules

import (
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
)

const annotationInjectCAFrom = "cert-manager.io/inject-ca-from"

// CertificateCycleRule is the name of the rule, for the packages that judge its findings.
const CertificateCycleRule = "certificate-cycle"

func init() {
	register(&Rule{
		Name:     CertificateCycleRule,
		Summary:  "a fail-closed webhook blocks the cert-manager requests that issue its own serving certificate",
		Severity: diag.Warning,
		Category: Practice,
		// Namespaces, names and the injector annotation are what an
		// overlay sets.
		DependsOnOverlay: true,
		Since:            "0.3.0",
		Doc: Doc{
			Why: "A webhook whose serving certificate comes from cert-manager (`cert-manager.io/inject-ca-from: " +
				"<namespace>/<certificate>`) needs cert-manager to create a CertificateRequest in that namespace, " +
				"update the Certificate's status and write the certificate's Secret, first at install and then at " +
				"every renewal. Its backend cannot serve before the Secret exists (the pod waits for the volume). " +
				"If the webhook fails closed and its rules, selectors and matchConditions also take those requests " +
				"(a policy engine on `*`, a webhook on every Secret), the first issuance calls a webhook that has " +
				"no backend yet, the request is rejected, and the install never completes; the same happens at a " +
				"renewal while the backend is down, and once the old certificate has expired nothing brings it " +
				"back.\n\n" +
				"The rule follows the annotation to the Certificate's namespace and simulates cert-manager's " +
				"requests there against every fail-closed webhook of the unit. Secrets in the backend's own " +
				"namespace are self-deadlock's finding. \"May fail closed\" marks requests the webhook's matchConditions " +
				"may exclude in ways the rule cannot decide.",
			Fix: "Exclude the Certificate's namespace with a namespaceSelector on `kubernetes.io/metadata.name`, " +
				"leave `cert-manager.io` resources and Secrets out of the rules, or fail open.",
			Sources: []string{
				docsCAInjector,
				"https://cert-manager.io/docs/usage/certificate/",
				docsWebhooks + "#avoiding-deadlocks-in-self-hosted-webhooks",
			},
		},
		Check: checkCertificateCycle,
	})
}

// certManagerRequests are what cert-manager's controller sends in
// namespace ns to issue or renew a Certificate there: a CertificateRequest,
// the Certificate's status, and with withSecrets the Secret it writes
// (self-deadlock reports Secrets in the backend's own namespace). The
// objects are taken to carry none of the labels webhooks select on.
func certManagerRequests(in *Inventory, ns string, withSecrets bool) []backendRequest {
	l := in.AssumedNamespaceLabels(ns)
	mk := func(op admissionv1.OperationType, group, resource, sub string) *Request {
		r := &Request{Operation: op, Group: group, Version: "v1", Resource: resource, Subresource: sub,
			Namespace: ns, NamespaceLabels: l, Object: KnownLabels(nil),
			UserName: "system:serviceaccount:cert-manager:cert-manager"}
		if op == admissionv1.Update {
			r.OldObject = r.Object
		}
		return r
	}
	out := []backendRequest{
		{"", mk(admissionv1.Create, "cert-manager.io", "certificaterequests", "")},
		{"", mk(admissionv1.Update, "cert-manager.io", "certificates", "status")},
	}
	if withSecrets {
		out = append(out, backendRequest{"", mk(admissionv1.Create, "", "secrets", "")}, backendRequest{"", mk(admissionv1.Update, "", "secrets", "")})
	}
	return out
}

func checkCertificateCycle(p *Pass) {
	ref := p.Config.Meta.Annotations[annotationInjectCAFrom]
	ns, cert, ok := strings.Cut(strings.TrimSpace(ref), "/")
	if !ok || ns == "" || cert == "" || strings.Contains(cert, "/") {
		return // ca-bundle reports a malformed reference
	}
	// The configuration's own backend, to leave its Secrets to self-deadlock.
	backendNS := ""
	for i := range p.Config.Webhooks {
		if s := p.Config.Webhooks[i].ClientConfig.Service; s != nil {
			backendNS = s.Namespace
			break
		}
	}
	reqs := certManagerRequests(p.Input, ns, ns != backendNS)
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if !w.FailsClosed() || len(w.Rules) == 0 {
			continue
		}
		var hits []string
		rule, conditional := -1, false
		simulator := w.Simulator()
		for _, br := range reqs {
			sim := simulator.Simulate(br.req)
			if sim.Outcome != Called && !sim.OnlyUnknown(UnknownMatchConditions) {
				continue
			}
			if name := br.String(); !slices.Contains(hits, name) {
				hits = append(hits, name)
			}
			if rule < 0 {
				rule = sim.Rule
			}
			conditional = conditional || sim.Outcome == MaybeCalled
		}
		if len(hits) == 0 {
			continue
		}
		if s := w.ClientConfig.Service; s != nil && s.Namespace == ns && len(intercepts(w, findBackend(p.Input, s), p.Input).hits) > 0 {
			continue // self-deadlock's finding, fixed by the same exclusion
		}
		verb := "fails"
		if conditional {
			verb = "may fail" // unless matchConditions exclude them
		}
		// Which of cert-manager's requests it takes is the doc's; the
		// rule at the finding is the one that takes the first.
		p.Reportf(w.FieldPath("rules").Index(rule), "%s closed on cert-manager issuing Certificate %q; exclude its namespace or fail open",
			verb, ns+"/"+cert)
	}
}
