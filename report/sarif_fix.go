package report

import "github.com/webhooklint/webhooklint/diag"

// sarifFix is a SARIF fix (§3.55): the edits of each file a finding's fix
// makes, as byte regions, which need no column unit to agree on.
type sarifFix struct {
	Description     sarifMessage          `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	Properties      sarifFixProperties    `json:"properties"`
}

type sarifFixProperties struct {
	// Applicability is safe or unsafe (SARIF has no word for it).
	Applicability diag.Applicability `json:"applicability"`
}

type sarifArtifactChange struct {
	ArtifactLocation *sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement     `json:"replacements"`
	file             string                 // to group edits by file
}

type sarifReplacement struct {
	DeletedRegion   sarifByteRegion `json:"deletedRegion"`
	InsertedContent *sarifContent   `json:"insertedContent,omitempty"`
}

type sarifByteRegion struct {
	ByteOffset int `json:"byteOffset"`
	ByteLength int `json:"byteLength"`
}

type sarifContent struct {
	Text string `json:"text"`
}

// sarifFixes turns a finding's fixes into SARIF's, one artifact change per
// file in the order of the edits.
func sarifFixes(fixes []diag.Fix, absBase string) []sarifFix {
	var out []sarifFix
	for _, f := range fixes {
		sf := sarifFix{Description: sarifMessage{Text: f.Message}, Properties: sarifFixProperties{Applicability: f.Applicability}}
		for _, e := range f.Edits {
			if n := len(sf.ArtifactChanges); n == 0 || sf.ArtifactChanges[n-1].file != e.File {
				sf.ArtifactChanges = append(sf.ArtifactChanges, sarifArtifactChange{ArtifactLocation: artifactOf(e.File, absBase), file: e.File})
			}
			r := sarifReplacement{DeletedRegion: sarifByteRegion{ByteOffset: e.Offset, ByteLength: e.EndOffset - e.Offset}}
			if e.NewText != "" {
				r.InsertedContent = &sarifContent{Text: e.NewText}
			}
			ac := &sf.ArtifactChanges[len(sf.ArtifactChanges)-1]
			ac.Replacements = append(ac.Replacements, r)
		}
		out = append(out, sf)
	}
	return out
}
