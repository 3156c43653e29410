package report

import (
	"io"
	"slices"

	"github.com/webhooklint/webhooklint/diag"
)

// JSONVersion is the version of the JSON output schema (docs/json-output.md).
// It changes only when a field is removed or changes meaning.
const JSONVersion = 1

type jsonReport struct {
	Version     int               `json:"version"`
	Tool        jsonTool          `json:"tool"`
	Summary     jsonSummary       `json:"summary"`
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

type jsonTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type jsonSummary struct {
	Files    int `json:"files"`
	Configs  int `json:"configurations"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

func init() {
	Register("json", func(Options) Formatter { return FormatterFunc(formatJSON) })
}

func formatJSON(w io.Writer, run *Run) error {
	c := diag.CountOf(run.Diagnostics)
	report := func(ds []diag.Diagnostic) jsonReport {
		return jsonReport{
			Version:     JSONVersion,
			Tool:        jsonTool{Name: "webhooklint", Version: run.ToolVersion},
			Summary:     jsonSummary{Files: run.Files, Configs: run.Configs, Errors: c.Errors, Warnings: c.Warnings, Infos: c.Infos},
			Diagnostics: ds,
		}
	}
	whole := func() any {
		if run.Diagnostics == nil {
			return report([]diag.Diagnostic{})
		}
		return report(run.Diagnostics)
	}
	return encodeStreamed(w, report([]diag.Diagnostic{}), "diagnostics", true, slices.Values(run.Diagnostics), whole)
}
