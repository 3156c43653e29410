package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strconv"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	Register("gitlab", func(Options) Formatter { return GitLab{} })
}

// GitLab writes a GitLab Code Quality report (artifacts:reports:codequality):
// the subset of the Code Climate issue format GitLab reads, a JSON array of
// issues with a description, check name, fingerprint, severity and
// location. GitLab compares the fingerprints of a merge request's report
// with its target branch's to show new and fixed findings, so they do not
// depend on line numbers, and it drops issues whose fingerprint repeats, so
// they are unique within a report.
type GitLab struct {
	// BaseDir makes location paths relative (see ciFile), as GitLab needs
	// them; empty means the current directory.
	BaseDir string
}

type gitlabIssue struct {
	Type        string         `json:"type"`
	Description string         `json:"description"`
	CheckName   string         `json:"check_name"`
	Fingerprint string         `json:"fingerprint"`
	Severity    string         `json:"severity"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
	End   int `json:"end,omitempty"`
}

// gitlabSeverity maps severities onto GitLab's scale (info, minor, major,
// critical, blocker): what the API server rejects is major, what hurts in
// production minor.
func gitlabSeverity(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "major"
	case diag.Warning:
		return "minor"
	}
	return "info"
}

// Format writes the report, "[]" when there are no findings.
func (g GitLab) Format(w io.Writer, run *Run) error {
	base := ciBase(g.BaseDir)
	sorted := sortedDiagnostics(run.Diagnostics)
	issues := func(yield func(gitlabIssue) bool) {
		seen := map[string]int{}
		for _, d := range sorted {
			fp := fingerprint(d, base)
			// Two findings that differ only in position (the same message on
			// the same field of two same-named objects in one file) keep
			// distinct fingerprints, numbered in file order.
			if n := seen[fp]; n > 0 {
				seen[fp]++
				h := sha256.Sum256([]byte(fp + "\x00" + strconv.Itoa(n)))
				fp = hex.EncodeToString(h[:16])
			} else {
				seen[fp] = 1
			}
			issue := gitlabIssue{
				Type:        "issue",
				Description: fullMessage(d),
				CheckName:   d.Rule,
				Fingerprint: fp,
				Severity:    gitlabSeverity(d.Severity),
				Location:    gitlabLocation{Path: ciFile(base, d), Lines: gitlabLines{Begin: max(d.Line, 1)}},
			}
			if d.EndLine > d.Line && d.Line > 0 {
				issue.Location.Lines.End = d.EndLine
			}
			if !yield(issue) {
				return
			}
		}
	}
	whole := func() any { return slices.AppendSeq([]gitlabIssue{}, issues) }
	return encodeStreamed(w, []gitlabIssue{}, "", false, issues, whole)
}
