package rules

import "github.com/webhooklint/webhooklint/diag"

// KustomizeBuildRule names the finding for a kustomization that cannot be built.
const KustomizeBuildRule = "kustomize-build"

func init() {
	register(&Rule{
		Name:     KustomizeBuildRule,
		Summary:  "a kustomization could not be built (offline, plugins off), so its webhook configurations were not linted",
		Severity: diag.Error,
		Category: Input,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "When a folder holds a `kustomization.yaml`, webhooklint lints what `kustomize build` produces, because " +
				"that is what reaches the cluster: the patches in an overlay decide failurePolicy, selectors and the " +
				"service namespace. It builds in-process with the kustomize API, offline and with plugins disabled. A " +
				"build that fails (a missing file, a patch whose target does not exist, a remote base that would have to be " +
				"downloaded, a Helm chart generator that would run `helm`) fails for the user too, or cannot be checked; " +
				"either way nothing in it was linted.",
			Bad:  "# kustomization.yaml\nresources:\n- github.com/example/operator//config/default?ref=v1.2.0\n",
			Good: "# kustomization.yaml\nresources:\n- ../../vendor/operator/config/default\n",
			Fix: "Fix the error kustomize reports. For remote bases, vendor them into the repository or lint the build output " +
				"(`kustomize build overlays/prod | webhooklint -`).",
			Sources: []string{
				"https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/",
			},
		},
	})
}
