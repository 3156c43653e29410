package rules

import (
	"bytes"
	"cmp"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// CABundleRule is the name of the rule, for the packages that judge its findings.
const CABundleRule = "ca-bundle"

func init() {
	register(&Rule{
		Name:     CABundleRule,
		Summary:  "caBundle that cannot verify the webhook: not PEM, no certificate, expired, not a CA, missing or overwritten",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server never validates `caBundle`; it loads it when it first calls the webhook. " +
				"Bytes that are not PEM, or PEM without a parsable certificate, make the client fail to build " +
				"(`unable to parse bytes as PEM block`), and an expired or not yet valid CA fails every TLS " +
				"handshake (`x509: certificate has expired or is not yet valid`): every call fails, and " +
				"failurePolicy decides whether requests are rejected or the webhook silently skipped; while " +
				"another certificate of the bundle is valid, an expired one fails only the verification against itself. " +
				"A certificate without `CA:TRUE` can only verify a server presenting exactly that certificate " +
				"(renewing the serving certificate breaks every call), " +
				"and a CA close to expiry is an outage on a known date. All of these are warnings: the API server " +
				"stores such a configuration, the failure comes at call time.\n\n" +
				"An empty caBundle makes the API server verify the backend against its own system trust roots, " +
				"which cannot verify a service reference's in-cluster certificate (`x509: certificate signed " +
				"by unknown authority`) unless something fills the bundle in. CA injectors do that from an " +
				"annotation on the configuration: cert-manager's cainjector (`cert-manager.io/inject-ca-from`, " +
				"`inject-ca-from-secret`, `inject-apiserver-ca`, and `certmanager.k8s.io/inject-ca-from` before " +
				"cert-manager 0.11) and OpenShift's service-ca operator " +
				"(`service.beta.openshift.io/inject-cabundle: \"true\"`); an injection annotation that is not " +
				"`<namespace>/<name>` injects nothing. Webhooks without rules are left " +
				"alone: their rules and caBundle are filled in at runtime by their controller (the Knative " +
				"pattern), and so are webhooks whose certificate something in the same unit manages at runtime. " +
				"That evidence comes with the backend: when the unit holds neither the Service the webhook calls " +
				"nor any other (a configuration linted apart from its install, such as controller-gen's " +
				"`config/webhook/manifests.yaml`; on a folder only assumed one install, its own file counts), " +
				"what installs the rest may fill caBundle, and an empty one is info. " +
				"So it is when the backend's serving certificate is made outside the unit: its pods need a Secret " +
				"that no object of the unit makes (a Secret, SealedSecret or ExternalSecret of that name, a " +
				"cert-manager Certificate's `secretName`, a Service's OpenShift `serving-cert-secret-name`, a flag " +
				"naming it such as kube-webhook-certgen's `create --secret-name`). What makes that Secret alone knows " +
				"the CA and may fill caBundle too: an operator that installs the unit as its data (KubeVirt's " +
				"virt-operator makes the Secrets of virt-template's bundle and injects their CA), OLM (which mounts a " +
				"certificate in the Deployment of a ClusterServiceVersion and fills caBundle), a script that makes the " +
				"Secret and patches the configuration. The finding names the Secret; adding what makes it to the unit " +
				"states the fact. How the unit is applied (`units.entries`, a GitOps entry) does not say what else " +
				"makes the Secret, so that alone changes nothing. So it is, too, when the backend mounts no certificate " +
				"at all: a server needs one, and it is either given one at install (OLM adds it to the Deployment " +
				"of an operator-sdk bundle input, which then has no ClusterServiceVersion yet) or makes its own and " +
				"then writes caBundle itself, with RBAC the unit does not hold; either way what knows the CA is " +
				"outside the unit. No real tree judged so far had a backend without a certificate and a caBundle " +
				"nothing fills. A backend that mounts a Secret the unit makes serves from it, and nothing in the " +
				"unit passes that CA on: that stays a warning (cert-manager fills only what is annotated, even when " +
				"the unit's CRD asks it for the CA of the webhooks' Service), and when a cert-manager Certificate " +
				"of the unit makes that Secret the finding names the annotation that fixes it. " +
				"The evidence, strongest first: RBAC that lets the backend's ServiceAccount `update` or `patch` " +
				"this configuration (a ClusterRoleBinding to a ClusterRole that grants it; every controller that " +
				"writes its own caBundle needs one), or lets another workload write it by name; an OLM bundle " +
				"(a ClusterServiceVersion in the unit: OLM installs the webhooks with its own CA); a " +
				"kube-webhook-certgen `patch` Job that names the configuration (`--webhook-name`); a backend " +
				"or controller flag that names the configuration (`--validating-webhook-configuration-name`, as " +
				"cert-controller rotators are configured). As a fallback, a backend image known to rotate its " +
				"own certificate (Gatekeeper and MetalLB through cert-controller unless `--disable-cert-rotation`, " +
				"Kueue's internal certificate management, CloudNativePG, istiod), or External Secrets' separate " +
				"`certcontroller` Deployment, or a controller beside the backend, in its namespace (an operator's " +
				"manager that deploys it), granted `update` or `patch` on every configuration of the kind, named as such " +
				"(Knative Serving's webhook, through the aggregated ClusterRole knative-serving-admin: " +
				"https://github.com/knative/serving/blob/41a3ae714a56b7a2bcd09e372ec8f3a02c753e0b/config/core/200-roles/clusterrole.yaml; " +
				"a ClusterRole grants what the ClusterRoles its aggregationRule selects grant): a " +
				"role of every verb on every resource (a GitOps controller's) and cert-manager's cainjector " +
				"(which writes only annotated ones) are no evidence. Where " +
				"something else writes caBundle, adding an injector annotation would make two controllers " +
				"fight over the field, so the rule does not suggest one; where the unit has both an injector " +
				"annotation and a backend that names or is known to write the configuration, it warns that each " +
				"replaces the other's CA (a grant of every configuration, or an OLM bundle, is not enough for " +
				"that: controllers keep such RBAC after they stop writing caBundle). A certificate may start up to an hour in the future (clock skew; charts that generate certificates while rendering start them \"now\"). A bundle of only whitespace (`Cg==`, a newline) is treated like an empty " +
				"one, but reported as not PEM. A chart that generates its CA while rendering (`genCA`, `genSelfSignedCert`) " +
				"and does not reuse the installed Secret through `lookup` writes a new caBundle at every `helm upgrade` " +
				"(and every GitOps render), while the running pods keep serving the old certificate until they " +
				"restart: every call fails TLS verification meanwhile (aws-load-balancer-controller#2473, #4605). " +
				"webhooklint renders such a chart twice and reports the caBundles that differ. A chart that calls " +
				"`lookup` is rendered a third time with a lookup that finds what the first render installed, as " +
				"at `helm upgrade`: a caBundle that still differs is not kept by that lookup (a warning). One that " +
				"is kept there still changes at every render without a cluster, where `lookup` finds nothing: " +
				"`helm template`, Argo CD's sync, a CI render; how the chart is deployed is not in the unit, so " +
				"that is info. With an injector annotation, a caBundle written in the manifest is " +
				"overwritten, and GitOps tools that re-apply it keep bringing back the stale CA. Webhooks of one " +
				"configuration with the same problem share one finding: the cure is one edit.",
			Fix: "Put the base64-encoded PEM of the CA that signed the serving certificate in `caBundle`, " +
				"renew it well before it expires, or let cert-manager or OpenShift inject it and remove the " +
				"caBundle from the manifest.",
			Sources: []string{
				docsWebhooks + "#contacting-the-webhook",
				srcWebhookClient,
				docsCAInjector,
				issueEmptyCABundle,
				issueExpiredCA,
				"https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/2473",
				"https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/4605",
				"https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/1828",
				"https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/2312",
				"https://helm.sh/docs/chart_template_guide/functions_and_pipelines/#using-the-lookup-function",
				"https://github.com/kubevirt/enhancements/blob/88c04162695742bd92e49d1d580d4438ca6ed0eb/veps/sig-compute/76-vmtemplates/vmtemplate-proposal.md#deployment-through-virt-operator-v180",
				"https://olm.operatorframework.io/docs/advanced-tasks/adding-admission-and-conversion-webhooks/",
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
	// cert-manager before 0.11 (API group certmanager.k8s.io).
	{"certmanager.k8s.io/inject-ca-from", "cert-manager's cainjector (before 0.11)"},
	{"certmanager.k8s.io/inject-ca-from-secret", "cert-manager's cainjector (before 0.11)"},
}

func checkCABundle(p *Pass) {
	injector, injectorBy := caInjectorOf(p)
	// The cure is one per configuration (one CA, one annotation, one
	// controller), so webhooks with the same problem share one finding.
	var problems caProblems
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		raw := w.ClientConfig.CABundle
		bundle := bytes.TrimSpace(raw)
		switch {
		case injector != "" && len(bundle) > 0:
			problems.add(w, fmt.Sprintf("%s overwrites caBundle (annotation %s); remove caBundle", injectorBy, injector))
		case injector != "":
			// Two controllers writing one field keep replacing each
			// other's CA: the webhook fails whenever the wrong one won.
			if who, named := caWriter(p, w); named && w.ClientConfig.Service != nil && len(w.Rules) > 0 {
				problems.add(w, fmt.Sprintf("%s and %s write caBundle; keep one", injector, who))
			}
		case len(bundle) == 0:
			// Empty, or only whitespace (Cg== is a newline): both wait for
			// something to fill them in, unless nothing in the input does.
			if w.ClientConfig.Service == nil || len(w.Rules) == 0 || selfManagedCertificates(p, w) {
				continue // filled in at runtime
			}
			// An overlay usually adds the injector annotation (kubebuilder's
			// config/default), so on a base this depends on the overlay.
			problem := "empty caBundle and no CA injector; " +
				"set caBundle or annotate cert-manager.io/inject-ca-from"
			if len(raw) > 0 {
				problem = "caBundle is not PEM (only whitespace); set it to the base64 " +
					"of the CA's PEM or annotate cert-manager.io/inject-ca-from"
			}
			// What installs the Service, or what makes the backend's
			// certificate and so knows its CA, may fill caBundle.
			note := Fragment(p, w)
			if note == "" {
				note = certificateElsewhere(p, w)
			}
			if note == "" && len(raw) == 0 {
				// The fix may be known: cert-manager passes on the CA
				// of the certificate the backend serves from.
				if ns, name := servingCertificate(p, w); name != "" {
					problem = fmt.Sprintf("empty caBundle and no CA injector; annotate cert-manager.io/inject-ca-from: %s/%s", ns, name)
				}
			}
			if note != "" {
				problems.addAssumed(w, problem, note)
			} else {
				problems.add(w, problem)
			}
			if !slices.Contains(problems.overlay, problem) {
				problems.overlay = append(problems.overlay, problem)
			}
		case w.CABundleRegenerated && w.CABundleLookup:
			problems.add(w, "caBundle is a new CA at every helm upgrade: the chart's lookup does not keep it; "+
				"look up the Secret that holds the CA, or use cert-manager")
		case w.CABundleRegenerated:
			// One cause: whatever the generated certificate is, the next
			// render replaces it.
			problems.add(w, "caBundle is regenerated at each render: helm upgrade breaks calls; "+
				"reuse the Secret via lookup, or use cert-manager")
		case w.CABundleLookup:
			// Kept at helm upgrade; whether the chart is rendered without
			// a cluster is how it is deployed, which the unit does not say.
			problems.addInfo(w, "caBundle is kept through lookup, so renders without a cluster (helm template, "+
				"Argo CD) make a new CA at every sync; deploy with helm, or use cert-manager")
		default:
			for _, msg := range bundleContentProblems(p, bundle) {
				problems.add(w, msg)
			}
		}
	}
	problems.report(p)
}

// caProblems collects problems in webhook order, each with the webhooks
// that have it. A configuration has one or two, so they are a list.
type caProblems struct {
	list []caProblem
	// overlay lists problems that depend on what a kustomize overlay
	// changes (it usually adds the injector annotation).
	overlay []string
}

// caProblem is one problem and the webhooks that have it.
type caProblem struct {
	text string
	// assumes is the assumption the problem holds only under
	// (Finding.Assumes): the same problem under no assumption is another
	// finding.
	assumes string
	// info marks a problem reported at info.
	info bool
	// first is the first webhook that has it, of count.
	first *Webhook
	count int
}

func (c *caProblems) entry(w *Webhook, text, assumes string) *caProblem {
	for i := range c.list {
		if e := &c.list[i]; e.text == text && e.assumes == assumes {
			e.count++
			return e
		}
	}
	c.list = append(c.list, caProblem{text: text, assumes: assumes, first: w, count: 1})
	return &c.list[len(c.list)-1]
}

// addAssumed adds a problem of w that holds only under the assumption
// note. A webhook under no assumption with the same problem is another
// finding.
func (c *caProblems) addAssumed(w *Webhook, problem, note string) { c.entry(w, problem, note) }

// addInfo adds a problem reported at info.
func (c *caProblems) addInfo(w *Webhook, problem string) { c.entry(w, problem, "").info = true }

func (c *caProblems) add(w *Webhook, problem string) { c.entry(w, problem, "") }

// report gives one finding per problem, on the first webhook that has it.
func (c *caProblems) report(p *Pass) {
	for _, e := range c.list {
		who := quoteWebhook(e.first)
		switch e.count {
		case 1:
		case 2:
			who += " and 1 more"
		default:
			who += fmt.Sprintf(" and %d more", e.count-1)
		}
		f := Finding{Path: e.first.FieldString("clientConfig", "caBundle"),
			Message: who + ": " + e.text, DependsOnOverlay: slices.Contains(c.overlay, e.text), Assumes: e.assumes}
		if e.info {
			f.Severity = diag.Info
		}
		p.Emit(f)
	}
}

// clockSkew is how far in the future a certificate may start and still be
// taken as valid now.
const clockSkew = time.Hour

// certManagingImages are webhook backends that create their serving
// certificate and write their own configurations' caBundle at runtime,
// each with the flag that turns this off, if any. The evidence is the
// image the webhook's backend runs (the Service's pods in the input).
var certManagingImages = []struct {
	repository, disabledBy string
}{
	// Gatekeeper and MetalLB embed open-policy-agent/cert-controller.
	{"openpolicyagent/gatekeeper", "--disable-cert-rotation"},
	{"metallb/controller", "--disable-cert-rotation"},
	// Kueue's internalCertManagement is on unless its configuration
	// turns it off.
	{"kueue/kueue", ""},
	{"cloudnative-pg/cloudnative-pg", ""},
	// istiod patches its injector's and validator's caBundle.
	{"istio/pilot", ""},
	{"istio-release/pilot", ""},
}

// selfManagedCertificates reports whether the unit shows something that
// fills in w's caBundle at runtime. The evidence, strongest first: RBAC
// that lets the webhook's backend update or patch this configuration (how
// every self-injecting controller is allowed to write caBundle), or lets
// another workload write it by name; an OLM bundle (OLM installs the
// webhooks of a ClusterServiceVersion with their CA); a
// certificate-generating Job that patches this configuration by name
// (kube-webhook-certgen and its forks); a backend whose flags name this
// configuration (a cert-controller rotator's configuration). Image names
// of backends known to rotate their certificate are the fallback.
func selfManagedCertificates(p *Pass, w *Webhook) bool {
	who, _ := caWriter(p, w)
	return who != ""
}

// caWriter names what in the unit writes w's caBundle at runtime (see
// selfManagedCertificates), or "". named is set when the evidence names
// this configuration or the backend is known to write it (a resourceNames
// grant, a certgen Job, a flag, a known image), rather than allowing it
// (an OLM bundle, a grant of every configuration, which old controllers
// keep after they stopped writing caBundle).
func caWriter(p *Pass, w *Webhook) (who string, named bool) {
	name := p.Config.Meta.Name
	var backends []Workload
	if w.ClientConfig.Service != nil {
		backends = findBackend(p.Input, w.ClientConfig.Service).Workloads
	}
	writers := configWriters(p.Input, p.Config)
	for _, i := range caWriterCandidates(p.Input) {
		wl := &p.Input.Workloads[i]
		if _, byName, _ := writers.grant(wl, p.Config); byName {
			return workloadName(wl), true
		}
		for _, c := range wl.Containers {
			if patchesWebhookConfig(c, name) || runsCertController(c) {
				return workloadName(wl), true
			}
		}
	}
	// A flag naming the configuration, on the backend or on a controller
	// beside it (whose RBAC may be outside the unit).
	if i, ok := webhookFlagValues(p.Input)[name]; ok && name != "" {
		return workloadName(&p.Input.Workloads[i]), true
	}
	for i := range backends {
		for _, c := range backends[i].Containers {
			for _, m := range certManagingImages {
				if imageRepository(c.Image, m.repository) && (m.disabledBy == "" || !hasFlag(c, m.disabledBy)) {
					return workloadName(&backends[i]), true
				}
			}
		}
	}
	if len(p.Input.ClusterServiceVersions) > 0 {
		return fmt.Sprintf("OLM (ClusterServiceVersion %q)", p.Input.ClusterServiceVersions[0]), false
	}
	for i := range backends {
		if granted, _, _ := writers.grant(&backends[i], p.Config); granted {
			return workloadName(&backends[i]), false
		}
	}
	for _, i := range caWriterCandidates(p.Input) {
		// A controller beside the backend, in its namespace (an
		// operator's manager that deploys it), granted every
		// configuration of the kind, naming the kind: it may write this
		// one. Not cert-manager's cainjector, which writes only the
		// annotated ones; not a controller of another namespace, which
		// another project's folder may hold.
		wl := &p.Input.Workloads[i]
		if w.ClientConfig.Service == nil || wl.Object.Namespace != w.ClientConfig.Service.Namespace {
			continue
		}
		if _, _, explicit := writers.grant(wl, p.Config); explicit && !runsCAInjector(wl) {
			return workloadName(wl), false
		}
	}
	return "", false
}

// certificateElsewhere returns the assumption an empty caBundle of w is a
// problem under when the backend's serving certificate is made outside the
// unit, and how to state it, or "". The evidence is a Secret the backend's
// pods need that no object of the unit makes (see secretMade): whatever
// makes it, an operator that installs this unit as its data (KubeVirt's
// virt-operator), OLM, a script, alone knows the CA and may fill caBundle.
// So is a backend that needs no Secret at all: it is given its certificate
// at install or makes its own, both outside what the unit states.
// When the backend needs any Secret the unit makes, that one may be the
// certificate, and the unit is judged as written; so it is on a base (the
// overlay's note says enough) and in a cluster, where caBundle is as it is.
func certificateElsewhere(p *Pass, w *Webhook) string {
	ref := w.ClientConfig.Service
	if ref == nil || p.Input == nil || p.Input.Live != nil || p.Input.Base {
		return ""
	}
	missing, certless := "", ""
	b := findBackend(p.Input, ref)
	for j, wl := range b.Workloads {
		if !p.Input.workloadBeside(p.Config, b.indexes[j]) {
			continue
		}
		if len(wl.Secrets) == 0 && !wl.HelmTestHook {
			certless = cmp.Or(certless, workloadName(&wl))
		}
		for _, secret := range wl.Secrets {
			if secretMade(p.Input, wl.Object.Namespace, secret) {
				return ""
			}
			missing = cmp.Or(missing, secret)
		}
	}
	switch {
	case missing != "":
		return fmt.Sprintf("assuming nothing outside the unit fills caBundle: Secret %q the backend mounts is made elsewhere; "+
			"add what makes it to the unit", missing)
	case certless != "":
		// A server that mounts no certificate is given one when it is
		// installed (OLM adds it to the Deployment) or makes its own, and
		// then needs RBAC to write caBundle, which selfManagedCertificates
		// looks for: either way the CA is known outside the unit.
		return fmt.Sprintf("assuming nothing outside the unit fills caBundle: %s mounts no certificate; mount one", certless)
	}
	return ""
}

// servingCertificate returns the cert-manager Certificate of the unit that
// makes a Secret w's backend mounts, or "", "". It only names the fix, so
// on a folder only assumed one install a backend in another file counts:
// a Service, its workload and a Certificate chained by name and labels are
// one install's.
func servingCertificate(p *Pass, w *Webhook) (namespace, name string) {
	ref := w.ClientConfig.Service
	if ref == nil || p.Input == nil {
		return "", ""
	}
	for _, wl := range findBackend(p.Input, ref).Workloads {
		for _, secret := range wl.Secrets {
			for _, c := range p.Input.Certificates {
				if c.SecretName == secret && sameNamespace(c.Namespace, wl.Object.Namespace) {
					return cmp.Or(c.Namespace, wl.Object.Namespace, ref.Namespace), c.Name
				}
			}
		}
	}
	return "", ""
}

// secretMade reports whether an object of the unit makes the Secret name
// in namespace ns (an unstated namespace matches any).
func secretMade(in *Inventory, ns, name string) bool {
	return slices.ContainsFunc(madeSecrets(in)[name], func(other string) bool { return sameNamespace(ns, other) })
}

// madeSecrets indexes, once per unit, the Secrets its objects make by name,
// each with the namespaces it is made in ("" where none is stated): the
// Secret itself or an object of a kind that makes one of its name
// (SealedSecret, ExternalSecret), a cert-manager Certificate's secretName,
// a Service annotated for OpenShift's service-ca (serving-cert-secret-name),
// and a value any workload's flag gives (kube-webhook-certgen's `create
// --secret-name`, a backend told which Secret to write), in any namespace.
func madeSecrets(in *Inventory) map[string][]string {
	type key struct{}
	return in.Derived(key{}, func() any {
		made := map[string][]string{}
		add := func(name, ns string) {
			if name != "" {
				made[name] = append(made[name], ns)
			}
		}
		for _, o := range in.Objects {
			if strings.HasSuffix(o.Kind, "Secret") {
				add(o.Name, o.Namespace)
			}
		}
		for _, c := range in.Certificates {
			add(c.SecretName, c.Namespace)
		}
		for _, s := range in.Services {
			if s != nil {
				add(s.Annotations["service.beta.openshift.io/serving-cert-secret-name"], s.Namespace)
				add(s.Annotations["service.alpha.openshift.io/serving-cert-secret-name"], s.Namespace)
			}
		}
		for i := range in.Workloads {
			for _, c := range in.Workloads[i].Containers {
				for _, value := range flags(c) {
					add(value, "")
				}
			}
		}
		return made
	}).(map[string][]string)
}

// runsCAInjector reports a workload running cert-manager's cainjector.
func runsCAInjector(wl *Workload) bool {
	return slices.ContainsFunc(wl.Containers, func(c Container) bool {
		return imageRepository(c.Image, "cert-manager-cainjector")
	})
}

// caWriterCandidates are the workloads of the unit (their indexes, in
// order) that caWriter's unit-wide loop can name for some configuration:
// bound by a ClusterRoleBinding, running a patch command, or a cert
// controller. Computed once per unit: a folder of thousands of webhooks and
// workloads would otherwise compare every pair.
func caWriterCandidates(in *Inventory) []int {
	type key struct{}
	return in.Derived(key{}, func() any {
		bound := map[string]bool{}
		for _, rb := range in.RoleBindings {
			if rb.Kind == "ClusterRoleBinding" && rb.RoleRef.Kind == "ClusterRole" {
				for _, s := range rb.Subjects {
					if s.Kind == "ServiceAccount" {
						bound[s.Name] = true
					}
				}
			}
		}
		var out []int
		for i := range in.Workloads {
			wl := &in.Workloads[i]
			keep := wl.ServiceAccount != "" && bound[wl.ServiceAccount]
			for _, c := range wl.Containers {
				keep = keep || slices.Contains(c.Command, "patch") || slices.Contains(c.Args, "patch") || runsCertController(c)
			}
			if keep {
				out = append(out, i)
			}
		}
		return out
	}).([]int)
}

func workloadName(wl *Workload) string { return fmt.Sprintf("%s %q", wl.Object.Kind, wl.Object.Name) }

// webhookFlagValues indexes, once per unit, the values of the workloads'
// flags about webhooks (`--validating-webhook-configuration-name=<name>`,
// `--webhook-config-name <name>`), each with the first workload that
// gives it: a backend told which configuration to keep up to date, as
// certificate rotators are, names it so. ca-bundle asks for every webhook.
func webhookFlagValues(in *Inventory) map[string]int {
	type key struct{}
	return in.Derived(key{}, func() any {
		out := map[string]int{}
		for i := range in.Workloads {
			for _, c := range in.Workloads[i].Containers {
				for flag, value := range flags(c) {
					if _, seen := out[value]; !seen && strings.Contains(strings.ToLower(flag), "webhook") {
						out[value] = i
					}
				}
			}
		}
		return out
	}).(map[string]int)
}

// flags yields each flag of the container's command line with its value
// (`--flag=value`, or the argument after `--flag`).
func flags(c Container) iter.Seq2[string, string] {
	return func(yield func(flag, value string) bool) {
		args := append(slices.Clone(c.Command), c.Args...)
		for i, a := range args {
			flag, value, hasValue := strings.Cut(a, "=")
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			if strings.HasPrefix(flag, "-") && !yield(flag, value) {
				return
			}
		}
	}
}

// patchesWebhookConfig recognizes `patch --webhook-name=<name>`, the
// kube-webhook-certgen command line that writes a configuration's caBundle.
func patchesWebhookConfig(c Container, config string) bool {
	if config == "" || (!slices.Contains(c.Command, "patch") && !slices.Contains(c.Args, "patch")) {
		return false
	}
	args := append(slices.Clone(c.Command), c.Args...)
	for i, a := range args {
		if a == "--webhook-name="+config || (a == "--webhook-name" && i+1 < len(args) && args[i+1] == config) {
			return true
		}
	}
	return false
}

// runsCertController recognizes a separate workload whose only job is to
// issue the webhook certificate and write caBundle: External Secrets'
// `certcontroller` command (its chart's cert-controller Deployment).
func runsCertController(c Container) bool {
	return imageRepository(c.Image, "external-secrets/external-secrets") &&
		slices.Contains(append(slices.Clone(c.Command), c.Args...), "certcontroller")
}

// imageRepository reports whether image (registry/path:tag@digest) is
// repository or ends with /repository.
func imageRepository(image, repository string) bool {
	image, _, _ = strings.Cut(image, "@")
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	// Not HasSuffix(image, "/"+repository): ca-bundle asks for every
	// webhook and candidate workload, and the concatenation allocated.
	n := len(image) - len(repository)
	return image == repository || n > 0 && image[n-1] == '/' && image[n:] == repository
}

// hasFlag reports a boolean flag set on the container (--flag or --flag=true).
func hasFlag(c Container, flag string) bool {
	for _, a := range append(slices.Clone(c.Command), c.Args...) {
		if a == flag || a == flag+"=true" {
			return true
		}
	}
	return false
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
		case "cert-manager.io/inject-ca-from", "cert-manager.io/inject-ca-from-secret",
			"certmanager.k8s.io/inject-ca-from", "certmanager.k8s.io/inject-ca-from-secret":
			ns, name, ok := strings.Cut(v, "/")
			if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
				p.Reportf(apath, "annotation %s is %q, not <namespace>/<name>; fix the reference", inj.annotation, excerpt(v, maxQuoted))
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

// bundleContentProblems parses the PEM bundle the way client-go does
// (x509.CertPool.AppendCertsFromPEM) and checks each certificate. The
// messages leave out the webhook, which the caller names.
func bundleContentProblems(p *Pass, bundle []byte) []string {
	var certs []*x509.Certificate
	var otherBlocks []string
	var parseErrs []string // numbers of the certificate blocks that do not parse
	blocks := 0
	rest := bundle
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
			parseErrs = append(parseErrs, fmt.Sprint(blocks))
			continue
		}
		certs = append(certs, c)
	}
	switch {
	case blocks == 0:
		hint := ""
		if decoded, err := base64.StdEncoding.DecodeString(string(bundle)); err == nil && bytes.HasPrefix(bytes.TrimSpace(decoded), []byte("-----BEGIN")) {
			hint = " (it is base64-encoded twice)"
		} else if len(bundle) <= 40 && isPrintable(bundle) {
			hint = fmt.Sprintf(" (it holds %q, a placeholder?)", bundle)
		}
		return []string{fmt.Sprintf("caBundle is not PEM%s; set it to the base64 of the CA's PEM", hint)}
	case len(certs) == 0 && len(parseErrs) > 0:
		return []string{fmt.Sprintf("no certificate in caBundle parses (PEM block %s); set it to the CA's PEM",
			listNames(parseErrs, 3))}
	case len(certs) == 0:
		fix := "set it to the CA certificate"
		if slices.ContainsFunc(otherBlocks, func(t string) bool { return strings.Contains(t, "PRIVATE KEY") }) {
			fix = "replace the private key with the CA certificate"
		}
		return []string{fmt.Sprintf("caBundle holds no certificate, only %s; %s", strings.Join(otherBlocks, ", "), fix)}
	}
	var out []string
	if len(parseErrs) > 0 {
		out = append(out, fmt.Sprintf("the certificate in PEM block %s of caBundle does not parse and is ignored; remove or replace it",
			listNames(parseErrs, 3)))
	}
	expiryDays := p.IntOption("expiry-days")
	now := p.Settings.Clock(func(now time.Time) time.Time { return certsChange(certs, now, expiryDays) })
	horizon := now.AddDate(0, 0, expiryDays)
	// A certificate generated while the manifests were rendered (Helm's
	// genCA/genSelfSignedCert) starts "now"; only a start beyond ordinary
	// clock skew is a problem.
	notYetValid := func(c *x509.Certificate) bool { return now.Add(clockSkew).Before(c.NotBefore) }
	for i, c := range certs {
		name := certName(c, i, len(certs))
		switch {
		case now.After(c.NotAfter):
			out = append(out, fmt.Sprintf("%s in caBundle expired on %s; replace it with the current CA",
				name, c.NotAfter.UTC().Format(time.DateOnly)))
		case notYetValid(c):
			out = append(out, fmt.Sprintf("%s in caBundle is not valid before %s; check the issuer's clock",
				name, c.NotBefore.UTC().Format(time.DateOnly)))
		case horizon.After(c.NotAfter):
			days := int(c.NotAfter.Sub(now).Hours() / 24)
			out = append(out, fmt.Sprintf("%s in caBundle expires on %s (in %d days); rotate the CA and update caBundle before then",
				name, c.NotAfter.UTC().Format(time.DateOnly), days))
		}
		if !c.IsCA {
			out = append(out, fmt.Sprintf("%s in caBundle is not a CA; put the issuing CA in caBundle", name))
		}
	}
	return out
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

// certsChange is the first instant after now at which what checkCerts
// finds about certs could change: a certificate starts or ends, enters
// the expiry horizon of days (AddDate's: give or take a daylight-saving
// hour), or its days left (in the message) drop by one. now itself when
// the horizon may be crossed within hours.
func certsChange(certs []*x509.Certificate, now time.Time, days int) time.Time {
	until := now.AddDate(100, 0, 0)
	next := func(t time.Time) {
		if t.After(now) && t.Before(until) {
			until = t
		}
	}
	for _, c := range certs {
		next(c.NotAfter)
		next(c.NotBefore.Add(-clockSkew))
		enters := c.NotAfter.Add(-time.Duration(days) * 24 * time.Hour)
		if now.After(enters.Add(-2*time.Hour)) && now.Before(enters.Add(2*time.Hour)) {
			return now
		}
		next(enters.Add(-2 * time.Hour))
		if left := c.NotAfter.Sub(now); left > 0 {
			next(c.NotAfter.Add(-(left / (24 * time.Hour)) * 24 * time.Hour))
		}
	}
	return until
}
