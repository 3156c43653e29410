package rules

import "github.com/webhooklint/webhooklint/diag"

// GitOpsOrderRule names the finding on a Flux entry applied before what
// its webhooks or custom resources need, or whose dependsOn cannot be met,
// and on an Argo CD Application's webhook synced in an earlier wave than
// its backend.
const GitOpsOrderRule = "gitops-order"

func init() {
	register(&Rule{
		Name:     GitOpsOrderRule,
		Summary:  "a Flux entry or an Argo CD sync wave applies a webhook before its backend or a custom resource before its CRD, or a dependsOn cannot be met",
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
				"folder applies) are not compared. Argo CD syncs one Application in steps: PreSync hooks, then the " +
				"objects, then PostSync hooks, each phase by `argocd.argoproj.io/sync-wave` (0 by default, lowest " +
				"first; a Helm hook's weight for Helm hooks), applying a wave only once every object of the waves " +
				"before is synced and healthy; within a wave objects go together, by kind (Namespaces and CRDs " +
				"first, Services before Deployments, webhook configurations with the other kinds Argo CD does not " +
				"list, last), without waiting. A webhook configuration is healthy as soon as it exists, so a " +
				"fail-closed webhook (or a CRD's conversion webhook) in an earlier wave than its backend's Service " +
				"or workload rejects what the waves up to the backend's create that it intercepts (a custom " +
				"resource at a version other than the storage one, for a conversion webhook): the backend's wave " +
				"never comes. webhooklint simulates the creation of each object of those waves against the " +
				"webhook. Between Applications, waves order nothing by default: since Argo CD 1.8 an " +
				"Application's health is not assessed, so the parent of an app-of-apps creates its child " +
				"Applications without waiting for any; only with the `argoproj.io/Application` health check " +
				"turned back on in `argocd-cm` does a child's wave wait for the earlier children to be healthy, " +
				"and webhooklint does not compare Applications (yet).",
			Fix: "Add the entry that applies the backend (or the CRD) to the `dependsOn` of the one that applies the " +
				"webhook (or the custom resource), and give the backend's Kustomization `wait: true`; or apply the " +
				"webhook in the same entry as its backend. Fix a `dependsOn` name that matches no entry, and remove one " +
				"dependency of a cycle. Under Argo CD, give the webhook its backend's sync wave or a later one (a " +
				"CRD's conversion webhook: put its backend in the CRD's wave or an earlier one), or fail open.",
			Sources: []string{
				"https://fluxcd.io/flux/components/kustomize/kustomizations/#dependencies",
				"https://fluxcd.io/flux/components/kustomize/kustomizations/#wait",
				"https://fluxcd.io/flux/components/helm/helmreleases/#dependencies",
				"https://github.com/fluxcd/flux2-kustomize-helm-example#infrastructure",
				"https://cert-manager.io/docs/troubleshooting/webhook/",
				"https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/",
				"https://github.com/argoproj/argo-cd/blob/master/gitops-engine/pkg/sync/sync_tasks.go",
				"https://argo-cd.readthedocs.io/en/stable/operator-manual/health/#argocd-app",
			},
		},
	})
}
