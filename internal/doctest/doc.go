// Package doctest runs the shell examples of README.md and docs/ and
// compares their output with what the docs show (doctest_test.go), so the
// docs cannot drift from the tool.
//
// An example is a fenced code block whose first line starts with "$ ": each
// "$ " line is a command, run with bash from the repository root (or from
// the folder an HTML comment <!-- doctest: dir=PATH --> just above the block
// names), with a webhooklint built from this checkout first on PATH
// ("go run ./cmd/webhooklint" runs that binary too). The lines after a
// command are its output, stdout and stderr together. In them "…" stands
// for any text: a line that is only "…" for any number of lines, "…"
// within a line for any part of it.
package doctest
