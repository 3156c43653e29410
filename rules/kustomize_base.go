package rules

import "github.com/webhooklint/webhooklint/diag"

// KustomizeBaseRule names the note on a kustomize base linted without the
// overlay that deploys it.
const KustomizeBaseRule = "kustomize-base"

func init() {
	register(&Rule{
		Name:     KustomizeBaseRule,
		Summary:  "a kustomize base is linted without an overlay, so findings that depend on the overlay are shown at info",
		Severity: diag.Info,
		Category: Input,
		Since:    "0.2.0",
		Doc: Doc{
			Why: "kubebuilder and operator-sdk projects keep their webhook configurations in a base (`config/webhook`) " +
				"whose Service is `webhook-service` in namespace `system`: placeholders. The overlay that deploys it " +
				"(`config/default`) sets the real namespace and name prefix, adds the CA injector annotation and often " +
				"patches selectors. A kustomization is a base when another kustomization that builds reads it, when " +
				"`units.entries` does not name it, or when an entry that reads it does not build offline; never because " +
				"of its names. A kustomization `units.entries` names is deployed as built even when another reads it: " +
				"operator-sdk's `config/default` is what `make deploy` applies, and `config/manifests` reads it only to " +
				"generate the OLM bundle. When the input holds the base but no overlay that uses it, findings about the " +
				"backend's namespace, the Service, selectors or an empty caBundle describe the placeholders, not what " +
				"reaches the cluster; webhooklint shows them at info with this note instead of as warnings. A fix such " +
				"as `namespaceSelector: NotIn [system]` would also be wrong there: kustomize's namespace transformer " +
				"rewrites the Service's namespace but not selector values.\n\n" +
				"The note says what makes the kustomization a base (`commented out at FILE:LINE`: the entry that would " +
				"read it, or apply it, is commented out). Under go vet, `+kubebuilder:webhook` markers that leave the " +
				"Service to controller-gen's defaults generate such a base: the same findings are info, and one note " +
				"at the first says to make their fixes in a kustomize patch, not in the markers.",
			Fix: "Lint the overlay (`webhooklint config/default`), or the folder that holds it, so the base is linted as deployed; " +
				"if the kustomization is itself applied as built, name it in `units.entries` in `.webhooklint.yaml`.",
			Sources: []string{
				"https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/namespace/",
				"https://book.kubebuilder.io/reference/project-config",
			},
		},
	})
}
