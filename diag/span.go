package diag

// Span is where something is written in a file: a finding, a related
// place, where a loader traced a field to. Lines and columns are 1-based,
// columns count Unicode code points and the end is exclusive. A zero Line
// means the place is not known (a live object, an unlocated field); File
// is empty where the file is implied (a document's own index).
//
// Every position-bearing type embeds it, so a place is handed on whole
// rather than copied field by field.
type Span struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
}

// Point is the one-character span at line and column of file, where a
// finding has a start but no known extent.
func Point(file string, line, col int) Span {
	return LineSpan(file, line, col, col+1)
}

// IsZero reports whether s is unset.
func (s Span) IsZero() bool { return s.Line == 0 }

// In is s in file: a span of a document's index placed in the file the
// document was read from.
func (s Span) In(file string) Span {
	s.File = file
	return s
}

// Start is s reduced to its start: the file, line and column alone, as
// the text formats print a related place.
func (s Span) Start() Span { return Span{File: s.File, Line: s.Line, Column: s.Column} }

// LineSpan is the span from column col to endCol (exclusive) on one line.
func LineSpan(file string, line, col, endCol int) Span {
	return Span{File: file, Line: line, Column: col, EndLine: line, EndColumn: endCol}
}
