// Package gclplugin registers the webhooklint analyzer as a golangci-lint
// module plugin named "webhooklint". Importing it has that side effect
// (register.Plugin in init), which is why it is not part of package
// analyzer. See docs/analyzer.md and .custom-gcl.yml.
package gclplugin

import (
	"fmt"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/webhooklint/webhooklint/analyzer"
	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register.Plugin("webhooklint", New)
}

// Settings are read from linters.settings.custom.webhooklint.settings in
// .golangci.yml. Unknown keys are an error.
type Settings struct {
	// KubeVersion is the target Kubernetes version, "1.N".
	KubeVersion string `json:"kubeVersion"`
	// Disable lists rules not to run.
	Disable []string `json:"disable"`
	// Options holds per-rule options by rule name, as in .webhooklint.yaml.
	Options map[string]map[string]any `json:"options"`
	// MinSeverity is the lowest severity reported: error, warning
	// (default) or info.
	MinSeverity string `json:"minSeverity"`
}

type plugin struct{ analyzer *analysis.Analyzer }

// New builds the plugin from its settings; golangci-lint calls it once.
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, err
	}
	opts := analyzer.Options{KubeVersion: s.KubeVersion, Disabled: s.Disable, RuleOptions: s.Options}
	if s.MinSeverity != "" {
		if opts.MinSeverity, err = diag.ParseSeverity(s.MinSeverity); err != nil {
			return nil, fmt.Errorf("minSeverity: %w", err)
		}
	}
	a, err := analyzer.New(opts)
	if err != nil {
		return nil, err
	}
	return &plugin{analyzer: a}, nil
}

func (p *plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{p.analyzer}, nil
}

// GetLoadMode asks for type information: the literal front end needs it
// to recognize admissionregistration/v1 types and constants.
func (p *plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
