package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/config"
	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/source"
)

// configFlags are --config, --init-config and --no-inline-suppressions.
// Flags on the command line win over the file (--kube-version over
// kubeVersion, --provider over provider).
type configFlags struct {
	path                 string
	initConfig, noInline bool
}

func (c *configFlags) register(fset *pflag.FlagSet) {
	fset.StringVar(&c.path, "config", "", "configuration `FILE` (default: the nearest "+config.FileName+" above the linted paths)")
	cliflag.File(fset, "config")
	fset.BoolVar(&c.initConfig, "init-config", false, "write a commented default "+config.FileName+" to the current folder and exit")
	fset.BoolVar(&c.noInline, "no-inline-suppressions", false, "report webhooklint:ignore comments and "+
		"webhooklint.io/ignore annotations as findings instead of obeying them (the configuration's suppressions still apply)")
}

func (c *configFlags) apply(rc *runContext, fset *pflag.FlagSet) error {
	if c.initConfig {
		return writeDefaultConfig(rc)
	}
	rc.opts.NoInlineSuppressions = c.noInline
	return applyConfig(rc, fset, c.path)
}

func writeDefaultConfig(rc *runContext) error {
	for _, name := range []string{config.FileName, config.FileNameAlt} {
		if _, err := os.Stat(name); err == nil {
			return fmt.Errorf("--init-config: %s already exists; remove it first", name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--init-config: %w", err)
		}
	}
	if err := os.WriteFile(config.FileName, []byte(config.DefaultFile()), 0o644); err != nil {
		return fmt.Errorf("--init-config: %w", err)
	}
	fmt.Fprintf(rc.stderr, "webhooklint: wrote %s\n", config.FileName)
	return exitNow(ExitOK)
}

func applyConfig(rc *runContext, fset *pflag.FlagSet, path string) error {
	if path == "" {
		found, err := config.Find(rc.paths)
		if err != nil {
			return fmt.Errorf("configuration: %w", err)
		}
		if found == "" {
			return nil
		}
		path = found
	}
	// Read before it is loaded, for the cache's key: a change made in
	// between makes the key older than the findings, never newer.
	rc.configFile = path
	rc.configText, _ = os.ReadFile(path)
	c, err := config.Load(path)
	if err != nil {
		var errs config.Errors
		var one *config.Error
		switch {
		case errors.As(err, &errs), errors.As(err, &one):
			// file:line:col first, so editors can jump to the mistake.
			fmt.Fprintln(rc.stderr, err)
			fmt.Fprintf(rc.stderr, "webhooklint: invalid configuration %s\n", path)
			return exitNow(ExitUsage)
		}
		return fmt.Errorf("--config: %w", err)
	}
	kubeFlagSet, providerFlagSet := false, false
	fset.Visit(func(f *pflag.Flag) {
		kubeFlagSet = kubeFlagSet || f.Name == "kube-version"
		providerFlagSet = providerFlagSet || f.Name == "provider"
	})
	if c.KubeVersion.Major != 0 && !kubeFlagSet {
		rc.opts.Settings.KubeVersion = c.KubeVersion
	}
	if c.Provider != "" && !providerFlagSet {
		rc.opts.Settings.Provider = c.Provider
	}
	rc.opts.Enabled = c.Enabled
	sev := c.Severities()
	if rc.opts.Severity != nil {
		for k, v := range rc.opts.Severity {
			sev[k] = v
		}
	}
	rc.opts.Severity = sev
	rc.opts.Settings.Options = c.Options()
	if len(c.Ignore) > 0 {
		rc.opts.Skip = c.Ignored
	}
	for _, ch := range c.Charts {
		rc.sources.ChartConfigs = append(rc.sources.ChartConfigs, source.Chart{
			Dir: ch.Path, ValuesFiles: ch.Values, Set: ch.Set, SetString: ch.SetString,
			ReleaseName: ch.ReleaseName, Namespace: ch.Namespace,
		})
	}
	rc.sources.Deployed = append(rc.sources.Deployed, c.Units.Entries...)
	rc.sources.NoGitOps = c.Units.GitOps.Off
	rc.sources.GitOpsFiles = c.Units.GitOps.Entries
	rc.sources.RepoURLs = append(rc.sources.RepoURLs, c.Units.GitOps.RepoURLs...)
	for _, f := range c.Units.Folders {
		rc.sources.Folders = append(rc.sources.Folders, source.FolderUnits{Dir: f.Path, Recursive: f.Recursive, Split: f.Split})
	}
	// The flag can only forbid: a file cannot re-allow what CI forbade.
	if c.InlineSuppressions != nil && !*c.InlineSuppressions {
		rc.opts.NoInlineSuppressions = true
	}
	if len(c.Suppressions) > 0 {
		// Before the report folds findings: a suppressed one leaves the count.
		rc.sources.Suppress = c.Suppress
	}
	return nil
}
