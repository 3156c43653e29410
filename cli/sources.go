package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// Flags for the sources people keep (issue 7): Helm charts, values files,
// kustomize, and how serious an unsubstituted placeholder is.
func init() {
	flagHooks = append(flagHooks, func(fs *flag.FlagSet, o *options) {
		so := &source.Options{}
		placeholders := ""
		fs.Func("helm", "render the chart in this folder with Helm (offline) and lint the result; repeatable", func(s string) error {
			so.Charts = append(so.Charts, s)
			return nil
		})
		fs.Func("values", "values file merged over the charts' values.yaml, as helm --values; repeatable", func(s string) error {
			so.ValuesFiles = append(so.ValuesFiles, s)
			return nil
		})
		fs.BoolVar(&so.NoKustomize, "no-kustomize", false, "lint folders with a kustomization.yaml file by file instead of building them")
		fs.StringVar(&placeholders, "placeholders", "", "severity of unsubstituted placeholders (${CA_BUNDLE}, __X__): error, warning, info or off (default warning)")
		o.extra = append(o.extra, func(rc *runContext) error {
			if err := setPlaceholders(rc.opts, placeholders); err != nil {
				return err
			}
			rc.lint = func(paths []string, stdin io.Reader, stdinName string, opts lint.Options) (*lint.Result, error) {
				return source.Lint(paths, stdin, stdinName, opts, *so)
			}
			return nil
		})
	})
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
