package lint

import (
	"math"

	"github.com/webhooklint/webhooklint/diag"
)

// packedDoc is one document's findings as they wait for the unit's last
// rule. A unit of 24,000 broken configurations holds 128,000 findings
// while its rules run, when its heap is largest, and a diag.Diagnostic is
// 232 bytes, most of them fields few findings set (fixes, units, an
// origin, a could-not-check notice): a packed finding is 136. gather unpacks them once every rule
// has run.
type packedDoc struct {
	file     string // every packed finding's file
	findings []packedFinding
	// whole are the findings a packed one cannot hold, each to go back
	// before the packed finding at the same index of wholeAt.
	whole   []diag.Diagnostic
	wholeAt []int
}

// packedFinding is a finding of packedDoc.file whose fields are all among
// these.
type packedFinding struct {
	rule, message, path, webhook string
	object                       *diag.Object
	related                      []diag.Related
	// assumes is the message of the one related place a finding under an
	// assumption has (engine.InContext), when that place is the
	// finding's own span and path, kept instead of it in related: in a
	// plain folder of configurations nearly every finding has one, a
	// slice of 96 bytes held until the unit's last rule.
	assumes            string
	line, column       int32
	endLine, endColumn int32
	severity           int8
	dependsOnOverlay   bool
}

// pack packs ds, findings of file. What a packed finding cannot hold is
// kept whole, so unpacking gives back ds exactly, in its order.
func pack(file string, ds []diag.Diagnostic) packedDoc {
	if len(ds) == 0 {
		return packedDoc{}
	}
	p := packedDoc{file: file}
	n := 0
	for i := range ds {
		if packable(file, &ds[i]) {
			n++
		}
	}
	p.findings = make([]packedFinding, 0, n)
	if n < len(ds) {
		p.whole, p.wholeAt = make([]diag.Diagnostic, 0, len(ds)-n), make([]int, 0, len(ds)-n)
	}
	for i := range ds {
		d := &ds[i]
		if !packable(file, d) {
			p.whole = append(p.whole, *d)
			p.wholeAt = append(p.wholeAt, len(p.findings))
			continue
		}
		f := packedFinding{
			rule: d.Rule, message: d.Message, path: d.Path, webhook: d.Webhook, object: d.Object, related: d.Related,
			line: int32(d.Line), column: int32(d.Column), endLine: int32(d.EndLine), endColumn: int32(d.EndColumn),
			severity: int8(d.Severity), dependsOnOverlay: d.DependsOnOverlay,
		}
		if len(d.Related) == 1 && d.Related[0] == atFinding(d, d.Related[0].Message) && d.Related[0].Message != "" {
			f.related, f.assumes = nil, d.Related[0].Message
		}
		p.findings = append(p.findings, f)
	}
	return p
}

// packable reports whether a packed finding of file holds all of d: the
// fields pack copies, with numbers in their range, and none of the others
// set (TestPackedFields lists them).
func packable(file string, d *diag.Diagnostic) bool {
	return d.File == file && fitsInt32(d.Line) && fitsInt32(d.Column) && fitsInt32(d.EndLine) && fitsInt32(d.EndColumn) &&
		d.Severity >= math.MinInt8 && d.Severity <= math.MaxInt8 &&
		d.Origin == "" && d.Units == nil && d.Fixes == nil && d.Unchecked == nil
}

// atFinding is a related place at d's own span and path, saying message.
func atFinding(d *diag.Diagnostic, message string) diag.Related {
	return diag.Related{Span: d.Span, Path: d.Path, Message: message}
}

func fitsInt32(n int) bool { return n >= math.MinInt32 && n <= math.MaxInt32 }

// len is how many findings p holds.
func (p packedDoc) len() int { return len(p.findings) + len(p.whole) }

// appendTo appends p's findings, unpacked, to ds.
func (p packedDoc) appendTo(ds []diag.Diagnostic) []diag.Diagnostic {
	w := 0
	for i := range p.findings {
		for ; w < len(p.whole) && p.wholeAt[w] == i; w++ {
			ds = append(ds, p.whole[w])
		}
		f := &p.findings[i]
		ds = append(ds, diag.Diagnostic{
			Span:     diag.Span{File: p.file, Line: int(f.line), Column: int(f.column), EndLine: int(f.endLine), EndColumn: int(f.endColumn)},
			Severity: diag.Severity(f.severity), Rule: f.rule, Message: f.message, Path: f.path,
			Object: f.object, Webhook: f.webhook, Related: f.related, DependsOnOverlay: f.dependsOnOverlay,
		})
		if f.assumes != "" {
			d := &ds[len(ds)-1]
			d.Related = []diag.Related{atFinding(d, f.assumes)}
		}
	}
	return append(ds, p.whole[w:]...)
}
