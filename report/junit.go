package report

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/ruledocs"
)

func init() {
	Register("junit", func(Options) Formatter { return JUnit{} })
}

// JUnit writes a JUnit XML report (the Surefire dialect Jenkins and GitLab
// read): one testsuite per file, one failed testcase per finding, and one
// passing testcase for a linted file without findings, so test report
// views count clean files too.
type JUnit struct {
	// BaseDir makes file names relative (see ciFile); empty means the
	// current directory.
	BaseDir string
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	File     string      `xml:"file,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure"`
}

type junitFailure struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// Format writes the report. Every finding is a failure whatever its
// severity (the failure's type names it): a test report has no warnings,
// and --fail-on decides the job's status, not this file.
func (j JUnit) Format(w io.Writer, run *Run) error {
	base := ciBase(j.BaseDir)
	doc := junitSuites{Name: "webhooklint", Suites: []junitSuite{}}
	for _, g := range groupByFile(base, run) {
		s := junitSuite{Name: g.name}
		if g.isFile {
			s.File = g.name
		}
		if len(g.findings) == 0 {
			s.Cases = append(s.Cases, junitCase{Name: "webhooklint", Classname: g.name})
		}
		for _, d := range g.findings {
			where := g.name
			if d.Line > 0 {
				where = fmt.Sprintf("%s:%d:%d", g.name, d.Line, d.Column)
			}
			s.Cases = append(s.Cases, junitCase{
				Name:      d.Rule + " " + where,
				Classname: g.name,
				Failure: &junitFailure{
					Type:    d.Severity.String(),
					Message: fullMessage(d),
					Text: fmt.Sprintf("%s: %s: %s%s [%s]\nrule documentation: %s\n",
						where, d.Severity, diag.ShortMessage(d), context(d), d.Rule, ruledocs.HelpURI(d.Rule)),
				},
			})
			s.Failures++
		}
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Suites = append(doc.Suites, s)
	}
	return writeXML(w, doc)
}
