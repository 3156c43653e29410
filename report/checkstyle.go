package report

import (
	"encoding/xml"
	"io"
)

func init() {
	Register("checkstyle", func(Options) Formatter { return Checkstyle{} })
}

// Checkstyle writes Checkstyle's XML report, which Jenkins' Warnings Next
// Generation plugin, reviewdog, SonarQube and many editors import: one
// file element per linted file, one error element per finding.
type Checkstyle struct {
	// BaseDir makes file names relative (see ciFile); empty means the
	// current directory.
	BaseDir string
}

// checkstyleVersion is the report version Checkstyle 4.3 introduced and
// that importers expect; later Checkstyle releases kept the format.
const checkstyleVersion = "4.3"

type checkstyleReport struct {
	XMLName xml.Name         `xml:"checkstyle"`
	Version string           `xml:"version,attr"`
	Files   []checkstyleFile `xml:"file"`
}

type checkstyleFile struct {
	Name   string            `xml:"name,attr"`
	Errors []checkstyleError `xml:"error"`
}

type checkstyleError struct {
	Line     int    `xml:"line,attr"`
	Column   int    `xml:"column,attr,omitempty"`
	Severity string `xml:"severity,attr"`
	Message  string `xml:"message,attr"`
	Source   string `xml:"source,attr"`
}

// Format writes the report. A finding about a whole file is put on line
// 1: importers need a line.
func (c Checkstyle) Format(w io.Writer, run *Run) error {
	base := ciBase(c.BaseDir)
	doc := checkstyleReport{Version: checkstyleVersion}
	for _, g := range groupByFile(base, run) {
		f := checkstyleFile{Name: g.name}
		for _, d := range g.findings {
			e := checkstyleError{Line: d.Line, Column: d.Column, Severity: d.Severity.String(),
				Message: fullMessage(d), Source: "webhooklint." + d.Rule}
			if e.Line <= 0 {
				e.Line, e.Column = 1, 0
			}
			f.Errors = append(f.Errors, e)
		}
		doc.Files = append(doc.Files, f)
	}
	return writeXML(w, doc)
}
