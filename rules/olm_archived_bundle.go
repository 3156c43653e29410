package rules

import "github.com/webhooklint/webhooklint/diag"

// OLMArchivedBundleRule names the note on a version folder of an OLM
// package-manifest tree that no channel installs any more.
const OLMArchivedBundleRule = "olm-archived-bundle"

func init() {
	register(&Rule{
		Name:     OLMArchivedBundleRule,
		Summary:  "a version folder of an OLM package manifest is older than every channel's current CSV, so its findings are shown at info",
		Severity: diag.Info,
		Category: Input,
		Since:    "0.3.0",
		Doc: Doc{
			Why: "Operators published through OLM before the bundle format keep a package-manifest tree: a folder with " +
				"`<name>.package.yaml`, whose `channels[].currentCSV` names the release each channel installs, and one " +
				"folder per released version with its ClusterServiceVersion and CRDs. The old version folders stay in the " +
				"repository as a record of what was published (argocd-operator keeps 0.0.2 to 0.19.0 in " +
				"`deploy/olm-catalog/`), with the CRD API versions of their time. OLM installs and upgrades to a channel's " +
				"current CSV; a folder whose CSV is older than it, by `spec.version` or by being in the `replaces` chain " +
				"below it, is never installed again, and a finding there (a `v1beta1` CRD removed in Kubernetes 1.22) " +
				"asks for an edit to a release nobody deploys. webhooklint reads this from the package.yaml and the " +
				"CSVs, never from folder names: such findings are info, with one note per folder naming the channel " +
				"and its current CSV. The current bundle, and folders newer than it that no channel names yet, keep " +
				"their levels; the bundle format (`bundle/manifests` with `bundle/metadata/annotations.yaml`) holds one " +
				"release and is linted as it is.",
			Fix: "Lint the current bundle; if an old version folder is installed after all (a pinned catalog), name it in " +
				"`units.entries` in `.webhooklint.yaml` so its findings keep their levels.",
			Sources: []string{
				"https://github.com/operator-framework/operator-registry/blob/master/docs/design/operator-bundle.md",
				"https://olm.operatorframework.io/docs/concepts/olm-architecture/operator-catalog/creating-an-update-graph/",
			},
		},
	})
}
