package manifest

import (
	"strconv"
	"strings"
)

// SyntaxErrorLine reads the line of a go.yaml.in/yaml/v3 error on data
// ("yaml: line N: msg") and returns the 1-based line of data it is about
// and the message without the prefix; line is 0 when the error names
// none. The scanner's lines are 1-based; the parser's are the 0-based line
// of the construct it was parsing, and an error at the end of input names
// the line after it, so those are moved to the last line with content.
func SyntaxErrorLine(data []byte, err error) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	m := yamlErrLine().FindStringSubmatch(err.Error())
	if m == nil {
		return 0, msg
	}
	n, _ := strconv.Atoi(m[1])
	if !scannerProblem(m[2]) {
		n++
	}
	return min(n, lastContentLine(data)), m[2]
}
