package rules

import (
	"fmt"

	"github.com/webhooklint/webhooklint/diag"
)

// KustomizeBuildRule names the finding for a kustomization that cannot be built.
const KustomizeBuildRule = "kustomize-build"

func init() {
	register(&Rule{
		Name:     KustomizeBuildRule,
		Summary:  "a kustomization could not be built (offline, plugins off), so its files were linted one by one",
		Severity: diag.Error,
		Category: Input,
		Since:    "0.1.0",
		Unchecked: func(notices, sources int, _, names string) string {
			// Each is named by its repository (or host), which several
			// references may share: then both are counted.
			refs := fmt.Sprintf("%d remote references", notices)
			switch {
			case sources == 1:
				refs += " into 1 source"
			case notices != sources:
				refs += fmt.Sprintf(" into %d sources", sources)
			}
			return fmt.Sprintf("%s are not downloaded (%s); webhooklint builds offline, so their kustomizations' files are linted alone; vendor them, or lint `kustomize build | webhooklint -`", refs, names)
		},
		Doc: Doc{
			Why: "When a folder holds a `kustomization.yaml`, webhooklint lints what `kustomize build` produces, because " +
				"that is what reaches the cluster: the patches in an overlay decide failurePolicy, selectors and the " +
				"service namespace. It builds in-process with the kustomize API, offline and with plugins disabled. A " +
				"build that fails (a missing file, a patch whose target does not exist, a remote base that would have to be " +
				"downloaded, a Helm chart generator that would run `helm`) fails for the user too, or cannot be checked. " +
				"webhooklint never opens a socket in this mode: every reference kustomize would fetch — in `resources`, " +
				"`components`, patches, generators, transformers, `crds`, `openapi` or a generator's files — is reported " +
				"at its line and the build is not run; such a reference is info, not an error: the build is not " +
				"wrong, it could not be linted offline, which is a fact about webhooklint and nothing to fix in the tree. " +
				"The run's summary counts what was not checked, and when the run linted no webhook configuration, " +
				"admission policy or CRD at all the reference is a warning, so that a run that checked nothing does not " +
				"pass silently. The remote references of one run are one gap with one fix, so they are one finding, at " +
				"the first, counting them (and the repositories they name, when two share one) and naming a few " +
				"(owner/repository on a Git forge), each other reference a related location. A file whose YAML aliases expand to more than 2^20 nodes (an alias " +
				"bomb) is refused the same way, before kustomize de-anchors it. The kustomization's files are then linted " +
				"one by one, as without kustomize: patches are checked only for what they state, and findings that " +
				"depend on the overlay are missing. When the kustomization was named (`webhooklint overlays/prod`), the " +
				"local kustomizations it reads that do build are linted too, as bases, and the files of those that do not one " +
				"by one. An overlay that fails because its base does reports the base's error, on the base's file.",
			Fix: "Fix the error kustomize reports. For remote bases, vendor them into the repository or lint the build output " +
				"(`kustomize build overlays/prod | webhooklint -`).",
			Sources: []string{
				"https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/",
				"https://github.com/kubernetes-sigs/kustomize/blob/master/examples/remoteBuild.md",
			},
		},
	})
}
