package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

// sourceFlags are the flags for the sources people keep: Helm charts and
// their values, kustomize, and how serious an unsubstituted placeholder is.
type sourceFlags struct {
	helm, values, set, setString []string
	namespace                    string
	noKustomize                  bool
	placeholders                 string
	// GitOps entries: discovery off, the repository's other URLs, a
	// folder of unpacked remote charts.
	noGitOps   bool
	repoURLs   []string
	chartCache string
}

func (s *sourceFlags) register(fs *pflag.FlagSet) {
	appendTo := func(list *[]string) func(string) error {
		return func(v string) error { *list = append(*list, v); return nil }
	}
	fs.Func("helm", "render the Helm chart in folder `CHART` (offline) and lint the result; repeatable", appendTo(&s.helm))
	fs.Func("values", "values `FILE` merged over the charts' values.yaml, as helm --values; repeatable", appendTo(&s.values))
	fs.Func("set", "set a chart value, as helm --set (`K=V`: a.b=c,list[0]=d); repeatable", appendTo(&s.set))
	fs.Func("set-string", "set a chart value as a string, as helm --set-string (`K=V`); repeatable", appendTo(&s.setString))
	fs.StringVar(&s.namespace, "namespace", "", "release `NAMESPACE` of the charts whose charts: entry names none, as helm --namespace (without it, findings that depend on the namespace are info)")
	cliflag.File(fs, "helm")
	cliflag.File(fs, "values")
	fs.BoolVar(&s.noKustomize, "no-kustomize", false, "lint folders with a kustomization.yaml file by file instead of building them")
	fs.BoolVar(&s.noGitOps, "no-gitops", false, "do not build the Flux Kustomizations and HelmReleases and Argo CD Applications found as their controllers do")
	fs.Func("repo-url", "`URL` that names the linted repository in Argo CD and Flux sources, besides its Git remotes; repeatable", appendTo(&s.repoURLs))
	fs.StringVar(&s.chartCache, "chart-cache", "", "folder of unpacked charts (`DIR`/CHART or DIR/CHART-VERSION) for the remote charts GitOps entries install")
	cliflag.File(fs, "chart-cache")
	fs.StringVar(&s.placeholders, "placeholders", "", "severity of unsubstituted placeholders (${CA_BUNDLE}, __X__): error, warning, info or off (default warning)")
	cliflag.Enum(fs, "placeholders", "error", "warning", "info", "off")
}

// apply adds the flags to the run, over what the configuration file set.
func (s *sourceFlags) apply(rc *runContext) error {
	if err := setPlaceholders(rc.opts, s.placeholders); err != nil {
		return err
	}
	// A values file that is not there is a mistyped flag, not a finding.
	for _, v := range s.values {
		if _, err := os.Stat(v); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("--values %s: no such file", v)
			}
			return fmt.Errorf("--values: %w", err)
		}
	}
	if s.namespace != "" {
		if errs := validation.IsDNS1123Label(s.namespace); len(errs) > 0 {
			return fmt.Errorf("--namespace %q: %s", s.namespace, strings.Join(errs, "; "))
		}
	}
	rc.sources.Charts = s.helm
	rc.sources.Namespace = s.namespace
	rc.sources.ValuesFiles = s.values
	rc.sources.Set = s.set
	rc.sources.SetString = s.setString
	rc.sources.NoKustomize = s.noKustomize
	rc.sources.NoGitOps = rc.sources.NoGitOps || s.noGitOps
	rc.sources.RepoURLs = append(rc.sources.RepoURLs, s.repoURLs...)
	if s.chartCache != "" {
		rc.sources.ChartCache = s.chartCache
	}
	return nil
}

func setPlaceholders(opts *lint.Options, s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return nil
	case "off", "none":
		prev := opts.Enabled
		opts.Enabled = func(rule string) bool {
			return rule != rules.PlaceholderRule && (prev == nil || prev(rule))
		}
		return nil
	}
	sev, err := diag.ParseSeverity(s)
	if err != nil {
		return fmt.Errorf("--placeholders: want error, warning, info or off, not %q", s)
	}
	if opts.Severity == nil {
		opts.Severity = map[string]diag.Severity{}
	}
	opts.Severity[rules.PlaceholderRule] = sev
	return nil
}
