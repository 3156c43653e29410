package report

import "bytes"

// sourceLine returns line n (1-based) of src without its line ending.
func sourceLine(src []byte, n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return string(bytes.TrimSuffix(src, []byte("\r"))), true
}

// lastPosition is the line count of src and the column just past the end
// of its last non-empty line, in code points; a region of a whole file
// ends there.
func lastPosition(src []byte) (line, column int) {
	trimmed := bytes.TrimRight(src, "\r\n")
	if len(trimmed) == 0 {
		return 1, 1
	}
	line = bytes.Count(trimmed, []byte("\n")) + 1
	last := trimmed[bytes.LastIndexByte(trimmed, '\n')+1:]
	return line, len([]rune(string(last))) + 1
}
