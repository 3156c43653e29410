package analyzer

import (
	"strings"
	sc "text/scanner"
)

// markerArg is one key=value of a marker, located by byte offsets into the
// marker's argument text (what follows "+kubebuilder:webhook:").
type markerArg struct {
	Key                  string
	KeyStart             int // offset of the key
	ValueStart, ValueEnd int // the value, without the separating comma
}

// scanMarkerArgs locates the top-level key=value pairs of a marker argument
// string. controller-tools' parser decides what the values mean; this scan
// only finds where each pair is, so it tokenizes exactly as controller-tools
// does (text/scanner with identifiers, numbers, strings, raw strings and
// comments) and splits on commas outside braces. It stops quietly at the
// first token it cannot place: the real parse reports the error.
func scanMarkerArgs(fields string) []markerArg {
	var s sc.Scanner
	s.Init(strings.NewReader(fields))
	s.Mode = sc.ScanIdents | sc.ScanInts | sc.ScanFloats | sc.ScanStrings | sc.ScanRawStrings | sc.SkipComments
	s.Error = func(*sc.Scanner, string) {}

	var args []markerArg
	for {
		if s.Scan() != sc.Ident {
			return args
		}
		a := markerArg{Key: s.TokenText(), KeyStart: s.Offset}
		if s.Scan() != '=' {
			return args
		}
		a.ValueStart = s.Offset + 1
		a.ValueEnd = a.ValueStart
		depth := 0
		for {
			tok := s.Scan()
			if tok == sc.EOF {
				args = append(args, a)
				return args
			}
			if tok == ',' && depth == 0 {
				break
			}
			switch tok {
			case '{':
				depth++
			case '}':
				depth--
			}
			a.ValueEnd = s.Offset + len(s.TokenText())
		}
		args = append(args, a)
	}
}
