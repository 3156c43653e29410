package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"iter"
	"path/filepath"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/ruledocs"
	"github.com/webhooklint/webhooklint/rules"
)

// SARIFSchemaURI is the official location of the SARIF 2.1.0 schema
// (OASIS, errata 01), which every log names in $schema.
const SARIFSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// sarifBaseID names the directory relative artifact URIs are resolved
// against; GitHub code scanning resolves it to the checkout root.
const sarifBaseID = "SRCROOT"

func init() {
	Register("sarif", func(o Options) Formatter { return SARIF{BaseDir: o.BaseDir} })
}

// SARIF writes a SARIF 2.1.0 log with one run, for code scanning (GitHub
// upload-sarif) and SARIF viewers.
type SARIF struct {
	// BaseDir makes artifact URIs relative (uriBaseId SRCROOT) for files
	// below it; empty means the current directory, which in CI is the
	// checkout root.
	BaseDir string
	// Rules lists the rule descriptors to publish; nil means rules.All().
	// Diagnostics of rules not listed still get a minimal descriptor.
	Rules []*rules.Rule
}

// Format writes the log of run (sorted first, so output is reproducible),
// one result at a time.
func (s SARIF) Format(w io.Writer, run *Run) error {
	log, results := s.plan(run)
	return encodeStreamed(w, log, "results", false, results, func() any { return s.Log(run) })
}

// Log builds the SARIF document.
func (s SARIF) Log(in *Run) *SarifLog {
	log, results := s.plan(in)
	for r := range results {
		log.Runs[0].Results = append(log.Runs[0].Results, r)
	}
	return log
}

// driver describes the tool and its rules: every rule of the list, then
// the rules it does not know in the order sorted names them, so that every
// result's ruleIndex is known before any result is written. index maps a
// rule's ID to its place.
func (s SARIF) driver(version string, sorted []diag.Diagnostic) (driver sarifDriver, index map[string]int) {
	list := s.Rules
	if list == nil {
		list = rules.All()
	}
	driver = sarifDriver{
		Name:           "webhooklint",
		InformationURI: ruledocs.RepoURL,
		Version:        sarifVersion(version),
		Rules:          []sarifRule{},
	}
	index = map[string]int{}
	add := func(d sarifRule) {
		index[d.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, d)
	}
	for _, r := range list {
		add(ruleDescriptor(r))
	}
	for _, d := range sorted {
		if _, ok := index[d.Rule]; !ok {
			add(sarifRule{ID: d.Rule, Name: friendlyName(d.Rule), ShortDescription: &sarifMessage{Text: d.Rule}})
		}
	}
	return driver, index
}

// plan builds the SARIF document without its results, and the results in
// order, built as they are asked for.
func (s SARIF) plan(in *Run) (*SarifLog, iter.Seq[sarifResult]) {
	ds := in.Diagnostics
	base := s.BaseDir
	if base == "" {
		base = "."
	}
	absBase, err := filepath.Abs(base)
	if err != nil {
		absBase = base
	}
	run := &sarifRun{
		ColumnKind: "unicodeCodePoints",
		OriginalURIBaseIDs: map[string]sarifArtifactLocation{
			sarifBaseID: {URI: fileURI(absBase, true)},
		},
		Results: []sarifResult{},
	}
	if in.Unchecked > 0 {
		run.Properties = &sarifRunProperties{Unchecked: in.Unchecked}
	}
	sorted := sortedDiagnostics(ds)
	var index map[string]int
	run.Tool.Driver, index = s.driver(in.ToolVersion, sorted)
	run.Invocations = []sarifInvocation{{
		ExecutionSuccessful: in.ExitCode == 0 || in.ExitCode == 1,
		ExitCode:            in.ExitCode,
		ExitCodeDescription: exitCodeDescription(in.ExitCode),
	}}
	results := func(yield func(sarifResult) bool) {
		for _, d := range sorted {
			if !yield(s.result(d, index[d.Rule], absBase, in.Source)) {
				return
			}
		}
	}
	return &SarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []*sarifRun{run}}, results
}

func exitCodeDescription(code int) string {
	switch code {
	case 0:
		return "no findings at or above the --fail-on severity"
	case 1:
		return "findings at or above the --fail-on severity"
	case 2:
		return "usage or configuration error"
	case 3:
		return "internal failure"
	}
	return ""
}

func ruleDescriptor(r *rules.Rule) sarifRule {
	return sarifRule{
		ID:               r.Name,
		Name:             friendlyName(r.Name),
		ShortDescription: &sarifMessage{Text: r.Summary},
		FullDescription:  &sarifMessage{Text: r.Summary + "."},
		Help:             &sarifMessage{Text: ruledocs.Text(r), Markdown: ruledocs.Markdown(r)},
		HelpURI:          ruledocs.HelpURI(r.Name),
		DefaultConfiguration: &sarifConfiguration{
			Level: sarifLevel(r.Severity),
		},
		Properties: &sarifRuleProperties{
			Category: string(r.Category),
			Tags:     []string{"kubernetes", "admission-webhook", string(r.Category)},
		},
	}
}

func sarifLevel(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "error"
	case diag.Warning:
		return "warning"
	}
	return "note"
}

func (s SARIF) result(d diag.Diagnostic, ruleIndex int, absBase string, source func(string) []byte) sarifResult {
	res := sarifResult{
		RuleID:    d.Rule,
		RuleIndex: ruleIndex,
		Level:     sarifLevel(d.Severity),
		Message:   sarifMessage{Text: d.Message + unitsNote(d)},
	}
	var loc sarifLocation
	if d.File != "" {
		loc.PhysicalLocation = &sarifPhysicalLocation{ArtifactLocation: artifactOf(d.File, absBase), Region: region(d, source)}
	}
	for i, r := range d.Related {
		if r.File == "" {
			continue
		}
		at := diag.Diagnostic{Span: r.Span}
		res.RelatedLocations = append(res.RelatedLocations, sarifRelatedLocation{
			ID:               i + 1,
			PhysicalLocation: &sarifPhysicalLocation{ArtifactLocation: artifactOf(r.File, absBase), Region: region(at, source)},
			Message:          &sarifMessage{Text: r.Message},
		})
	}
	if d.Object != nil || d.Path != "" {
		ll := sarifLogicalLocation{Kind: "member", Name: d.Path, FullyQualifiedName: qualifiedName(d)}
		if d.Path == "" {
			ll.Kind, ll.Name = "object", objectName(d.Object)
		}
		loc.LogicalLocations = []sarifLogicalLocation{ll}
	}
	if loc.PhysicalLocation != nil || loc.LogicalLocations != nil {
		res.Locations = []sarifLocation{loc}
	}
	res.Fixes = sarifFixes(d.Fixes, absBase)
	res.PartialFingerprints = map[string]string{"webhooklintFinding/v1": fingerprint(d, absBase)}
	props := &sarifResultProperties{Path: d.Path, Webhook: d.Webhook, Origin: d.Origin, Object: d.Object}
	if *props != (sarifResultProperties{}) {
		res.Properties = props
	}
	return res
}

// artifactOf names a file relative to the run's base when it is below it.
func artifactOf(file, absBase string) *sarifArtifactLocation {
	al := &sarifArtifactLocation{}
	if rel, ok := relativeTo(absBase, file); ok {
		al.URI, al.URIBaseID = relativeURI(rel), sarifBaseID
	} else if filepath.IsAbs(file) {
		al.URI = fileURI(file, false)
	} else {
		al.URI = relativeURI(filepath.ToSlash(file))
	}
	return al
}

// region converts diag's positions; SARIF end columns are exclusive, as
// diag's are. A finding about a whole file (line 0) spans the file when its
// text is known, and names only the first line otherwise.
func region(d diag.Diagnostic, source func(string) []byte) *sarifRegion {
	if d.Line <= 0 {
		r := &sarifRegion{StartLine: 1}
		if source != nil {
			if src := source(d.File); src != nil {
				r.StartColumn = 1
				r.EndLine, r.EndColumn = lastPosition(src)
			}
		}
		return r
	}
	r := &sarifRegion{StartLine: d.Line}
	if d.Column > 0 {
		r.StartColumn = d.Column
	}
	if d.EndLine >= d.Line && d.EndLine > 0 {
		r.EndLine = d.EndLine
		if d.EndColumn > 0 && (d.EndLine > d.Line || d.EndColumn > d.Column) {
			r.EndColumn = d.EndColumn
		}
	}
	return r
}

// friendlyName is the Pascal-case form SARIF asks of rule names
// (timeout-too-long -> TimeoutTooLong); the kebab-case name stays the id.
// SARIF wants no name when it would only repeat the id (schema -> Schema).
func friendlyName(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	if strings.EqualFold(b.String(), name) {
		return ""
	}
	return b.String()
}

// sarifVersion makes the tool version start with a number, as SARIF
// consumers compare versions: v1.2.3 -> 1.2.3, devel -> 0.0.0-devel.
func sarifVersion(v string) string {
	if v == "" {
		return ""
	}
	v = strings.TrimPrefix(v, "v")
	if v[0] < '0' || v[0] > '9' {
		return "0.0.0-" + v
	}
	return v
}

func objectName(o *diag.Object) string {
	if o == nil {
		return ""
	}
	if o.Namespace != "" {
		return o.Kind + "/" + o.Namespace + "/" + o.Name
	}
	return o.Kind + "/" + o.Name
}

func qualifiedName(d diag.Diagnostic) string {
	n := objectName(d.Object)
	switch {
	case n == "":
		return d.Path
	case d.Path == "":
		return n
	}
	return n + "/" + d.Path
}

// fingerprint identifies a finding independently of its line, so code
// scanning keeps tracking an alert when lines above it move.
func fingerprint(d diag.Diagnostic, absBase string) string {
	rel, _ := relativeTo(absBase, d.File)
	h := sha256.Sum256([]byte(d.Rule + "\x00" + rel + "\x00" + qualifiedName(d) + "\x00" + d.Message))
	return hex.EncodeToString(h[:16])
}

// The SARIF object model, limited to what webhooklint writes; field order
// follows the specification so logs read naturally.

// SarifLog is the top-level SARIF object.
type SarifLog struct {
	Schema  string      `json:"$schema"`
	Version string      `json:"version"`
	Runs    []*sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool struct {
		Driver sarifDriver `json:"driver"`
	} `json:"tool"`
	Invocations        []sarifInvocation                `json:"invocations"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds"`
	Results            []sarifResult                    `json:"results"`
	ColumnKind         string                           `json:"columnKind"`
	// Properties carry what SARIF has no field for: the run's count of
	// sources not read (offline).
	Properties *sarifRunProperties `json:"properties,omitempty"`
}

type sarifRunProperties struct {
	Unchecked int `json:"unchecked"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string               `json:"id"`
	Name                 string               `json:"name,omitempty"`
	ShortDescription     *sarifMessage        `json:"shortDescription,omitempty"`
	FullDescription      *sarifMessage        `json:"fullDescription,omitempty"`
	Help                 *sarifMessage        `json:"help,omitempty"`
	HelpURI              string               `json:"helpUri,omitempty"`
	DefaultConfiguration *sarifConfiguration  `json:"defaultConfiguration,omitempty"`
	Properties           *sarifRuleProperties `json:"properties,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifRuleProperties struct {
	Category string   `json:"category"`
	Tags     []string `json:"tags"`
}

type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool   `json:"executionSuccessful"`
	ExitCode            int    `json:"exitCode"`
	ExitCodeDescription string `json:"exitCodeDescription,omitempty"`
}

type sarifResult struct {
	RuleID              string                 `json:"ruleId"`
	RuleIndex           int                    `json:"ruleIndex"`
	Level               string                 `json:"level"`
	Message             sarifMessage           `json:"message"`
	Locations           []sarifLocation        `json:"locations,omitempty"`
	RelatedLocations    []sarifRelatedLocation `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string      `json:"partialFingerprints,omitempty"`
	Properties          *sarifResultProperties `json:"properties,omitempty"`
	Fixes               []sarifFix             `json:"fixes,omitempty"`
}

type sarifResultProperties struct {
	Path    string       `json:"path,omitempty"`
	Webhook string       `json:"webhook,omitempty"`
	Object  *diag.Object `json:"object,omitempty"`
	Origin  string       `json:"origin,omitempty"`
}

// sarifRelatedLocation is another place of a result (the webhook of a
// finding located at its backend).
type sarifRelatedLocation struct {
	ID               int                    `json:"id"`
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	Message          *sarifMessage          `json:"message,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation *sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion           `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type sarifLogicalLocation struct {
	Name               string `json:"name,omitempty"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind,omitempty"`
}
