package rules

import "github.com/webhooklint/webhooklint/diag"

// GitOpsOrderRule names the finding on a Flux entry applied before what
// its webhooks or custom resources need, or whose dependsOn cannot be met.
const GitOpsOrderRule = "gitops-order"

func init() {
	register(&Rule{
		Name:     GitOpsOrderRule,
		Summary:  "a Flux entry applies a webhook before its backend or a custom resource before its CRD, or its dependsOn cannot be met",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.3.0",
		Doc: Doc{
			Why: "Flux reconciles every `Kustomization` and `HelmRelease` on its own, all at once, unless `dependsOn` " +
				"orders them: an entry with `dependsOn` waits until each entry it names is Ready. When one entry applies " +
				"a webhook that fails closed (or a CRD's conversion webhook) and another applies the Deployment and " +
				"Service behind it, nothing stops the webhook from being registered first: until the backend's pods " +
				"answer, the API server rejects every request the webhook matches (`failed calling webhook ... no " +
				"endpoints available`), often the backend entry's own objects, and the two entries retry until one " +
				"wins. cert-manager's webhook and the Issuers applied next to it are the classic case; the Flux example " +
				"repository orders its `infra-configs` after `infra-controllers` for this reason. A custom resource " +
				"applied by an entry that does not depend on the entry applying its CRD fails the same way (`no " +
				"matches for kind`). Depending is not enough when the entry depended on is Ready as soon as it has " +
				"applied its objects: a Kustomization waits for their health only with `wait: true` or " +
				"`healthChecks` (a HelmRelease waits by default, unless `install.disableWait`). A `dependsOn` that " +
				"names no entry, or a cycle of them, is worse: Flux never applies the entries that wait. webhooklint " +
				"reads the entries of the linted files, builds each, and compares what they apply: each entry's " +
				"dependencies (transitively, and those of the Kustomization that applies a HelmRelease) must hold the " +
				"backend or the CRD. Entries of different clusters (the Kustomizations another `clusters/NAME` " +
				"folder applies) are not compared. Argo CD's sync waves order the resources of one Application, and " +
				"Applications only under an app-of-apps whose Application health check is turned back on: they are " +
				"not read.",
			Fix: "Add the entry that applies the backend (or the CRD) to the `dependsOn` of the one that applies the " +
				"webhook (or the custom resource), and give the backend's Kustomization `wait: true`; or apply the " +
				"webhook in the same entry as its backend. Fix a `dependsOn` name that matches no entry, and remove one " +
				"dependency of a cycle.",
			Sources: []string{
				"https://fluxcd.io/flux/components/kustomize/kustomizations/#dependencies",
				"https://fluxcd.io/flux/components/kustomize/kustomizations/#wait",
				"https://fluxcd.io/flux/components/helm/helmreleases/#dependencies",
				"https://github.com/fluxcd/flux2-kustomize-helm-example#infrastructure",
				"https://cert-manager.io/docs/troubleshooting/webhook/",
			},
		},
	})
}
