package rules

import (
	"fmt"

	"github.com/webhooklint/webhooklint/diag"
)

// GitOpsSourceRule names the finding on a GitOps entry whose source or
// inputs cannot be read offline.
const GitOpsSourceRule = "gitops-source"

func init() {
	register(&Rule{
		Name:     GitOpsSourceRule,
		Summary:  "a Flux or Argo CD entry applies something that is not in the repository, so it was not checked",
		Severity: diag.Warning,
		Category: Input,
		Since:    "0.3.0",
		Unchecked: func(notices, sources int, what, names string) string {
			subject := fmt.Sprintf("%d %s named by GitOps entries are", sources, what)
			if notices != sources {
				// Two entries naming one source: the count is of what is named.
				subject = fmt.Sprintf("%d GitOps entries name %d %s that %s", notices, sources, what, isAre(sources))
			}
			their, them, they, oneIs := "their", "them", "they are", "one is"
			if sources == 1 {
				their, them, they, oneIs = "its", "it", "it is", "it is"
			}
			switch what {
			case "chart", "charts":
				return fmt.Sprintf("%s not available offline (%s); %s webhooks are not checked; vendor %s or pass --chart-cache DIR", subject, names, their, them)
			case "folder", "folders":
				return fmt.Sprintf("%s not available offline (%s); %s manifests are not checked; vendor %s, or pass --repo-url if %s this repository", subject, names, their, them, oneIs)
			}
			return fmt.Sprintf("%s not available offline (%s); %s not checked; vendor %s, pass --chart-cache or --repo-url", subject, names, they, them)
		},
		Doc: Doc{
			Why: "A Flux `Kustomization` or `HelmRelease` and an Argo CD `Application` say what the cluster receives: " +
				"which folder, built how, into which namespace, with which values and `${var}` substitutions. " +
				"webhooklint builds each entry whose source is this repository (Flux's `flux-system` GitRepository, a " +
				"GitRepository or Argo CD `repoURL` equal to a remote of the repository or to `--repo-url`) as its " +
				"controller does, offline. A chart from a Helm or OCI repository or a folder of another Git repository " +
				"would have to be fetched: what it holds, webhooks maybe, is not checked, and this finding says so. It is " +
				"info whatever carries it (a HelmRelease's chart, an Application's chart or folder, a Kustomization's " +
				"GitRepository): a fact about what webhooklint read, not about the repository, and nothing to fix in it; " +
				"the run's summary counts the sources not checked (`; 11 sources not checked (offline)`, `unchecked` in " +
				"JSON and SARIF). When the run linted no webhook configuration, admission policy or CRD at all, it is a " +
				"warning: then it is all the run can say, and a run that checked nothing must not pass silently. The " +
				"remote sources of one run are one gap with one fix, so they are one finding: at the first entry, counting " +
				"the sources (and the entries, when two name one) and naming a few, each other entry a related location " +
				"naming its source (an entry silenced with a suppression comment leaves the count). The editor server " +
				"shows each file its own. A `substituteFrom`/`valuesFrom` object that is not among the linted files is a " +
				"warning: linting the folder that holds it checks the entry. An entry path that is not a folder of the " +
				"repository is reported too (info): the controller fails on it.",
			Fix: "Vendor the chart or folder into the repository, or pass `--chart-cache DIR` with the chart unpacked in " +
				"`DIR/CHART`; pass `--repo-url URL` when the entry names this repository under another URL; lint the " +
				"folder that holds the ConfigMap or Secret the entry reads.",
			Sources: []string{
				"https://fluxcd.io/flux/components/kustomize/kustomizations/",
				"https://fluxcd.io/flux/components/helm/helmreleases/",
				"https://argo-cd.readthedocs.io/en/stable/user-guide/application-specification/",
			},
		},
	})
}
