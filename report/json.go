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
	Version     int              `json:"version"`
	Tool        jsonTool         `json:"tool"`
	Summary     jsonSummary      `json:"summary"`
	Diagnostics []jsonDiagnostic `json:"diagnostics"`
	// A live run's notes and list versions (the cluster command).
	Notes            []string          `json:"notes,omitempty"`
	ResourceVersions map[string]string `json:"resourceVersions,omitempty"`
}

// jsonDiagnostic is a finding with, for a live object, the field it
// names as YAML.
type jsonDiagnostic struct {
	diag.Diagnostic
	Excerpt string `json:"excerpt,omitempty"`
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
	// Policies counts a live run's admission policies and bindings.
	Policies int `json:"policies,omitempty"`
	// Unchecked counts the sources named that were not read (offline).
	Unchecked int `json:"unchecked,omitempty"`
}

func init() {
	Register("json", func(Options) Formatter { return FormatterFunc(formatJSON) })
}

func formatJSON(w io.Writer, run *Run) error {
	if run.Document != nil {
		return run.Document.WriteJSON(w)
	}
	c := diag.CountOf(run.Diagnostics)
	report := func(ds []jsonDiagnostic) jsonReport {
		r := jsonReport{
			Version:     JSONVersion,
			Tool:        jsonTool{Name: "webhooklint", Version: run.ToolVersion},
			Summary:     jsonSummary{Files: run.Files, Configs: run.Configs, Errors: c.Errors, Warnings: c.Warnings, Infos: c.Infos, Unchecked: run.Unchecked},
			Diagnostics: ds,
		}
		if run.Live {
			r.Summary.Policies = run.Policies
			r.Notes, r.ResourceVersions = run.Notes, run.ResourceVersions
		}
		return r
	}
	elems := func(yield func(jsonDiagnostic) bool) {
		for _, d := range run.Diagnostics {
			jd := jsonDiagnostic{Diagnostic: d}
			if run.Excerpt != nil {
				jd.Excerpt = run.Excerpt(d)
			}
			if !yield(jd) {
				return
			}
		}
	}
	whole := func() any { return report(slices.AppendSeq([]jsonDiagnostic{}, elems)) }
	return encodeStreamed(w, report([]jsonDiagnostic{}), "diagnostics", true, elems, whole)
}
