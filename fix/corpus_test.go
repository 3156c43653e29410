package fix_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/fix"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// The corpus tests apply every fix offered on the conformance corpus and
// the fuzz differential set (the documents whose API server verdicts
// testdata/conformance/verdicts and testdata/conformance/fuzz/verdicts
// record) one at a time and check that (1) the finding is gone and no new
// error appears, (2) every byte outside the fix's edits is unchanged, and,
// with a kube-apiserver at hand (e2e_test.go), (3) the server accepts the
// fixed document where it rejected the original for that finding's field
// alone. Each counts per rule (tally) for the table the tests log.

const corpusDir = "../testdata/conformance"

// fixCase is one fix of one finding of the corpus, applied.
type fixCase struct {
	file   string // corpus file, relative to corpusDir
	d      diag.Diagnostic
	fix    diag.Fix
	before []byte // the file
	after  []byte // the file with the fix made
	// othersErrors counts the errors of other rules on the finding's
	// object before the fix: where the server rejected the document
	// before validating it (an unserved apiVersion), they say whether
	// the finding was its only reason.
	othersErrors int
}

// corpusFiles are the corpus files and the fuzz set's, relative to
// corpusDir.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"*.yaml", "fuzz/*.yaml"} {
		paths, err := filepath.Glob(filepath.Join(corpusDir, pattern))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no %s in %s: %v", pattern, corpusDir, err)
		}
		for _, p := range paths {
			rel, _ := filepath.Rel(corpusDir, p)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// tally counts, for one rule, the fixable findings and how their fixes
// fared: each check a fix passes adds one to its column.
type tally struct {
	// unfixed counts the rule's findings that carry no fix (the text
	// does not hold what the fix would edit, or no fix is known).
	unfixed, findings, fixes, applied, outside, gone, noNewError int
	// serverRejected counts the fixes of findings whose document the
	// server rejected for that finding alone; serverAccepts those whose
	// fixed document it accepts (e2e_test.go).
	serverRejected, serverAccepts int
}

// tallies are the counts by set (corpus, fuzz) and rule.
type tallies map[[2]string]*tally

// of is the counts of a rule's findings in a corpus file's set.
func (ts tallies) of(file, rule string) *tally {
	k := [2]string{setOf(file), rule}
	if ts[k] == nil {
		ts[k] = &tally{}
	}
	return ts[k]
}

// setOf names the set a corpus file belongs to.
func setOf(file string) string {
	if strings.HasPrefix(file, "fuzz/") {
		return "fuzz"
	}
	return "corpus"
}

// log writes the table, with the server's columns when server is set.
func (ts tallies) log(t *testing.T, server bool) {
	t.Helper()
	head := fmt.Sprintf("%-6s %-24s %7s %8s %5s %7s %7s %4s %6s", "set", "rule", "unfixed", "findings", "fixes", "applied", "outside", "gone", "no-new")
	if server {
		head += fmt.Sprintf(" %8s %7s", "rejected", "accepts")
	}
	t.Log(head)
	for _, k := range slices.SortedFunc(maps.Keys(ts), func(a, b [2]string) int { return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1]) }) {
		c := ts[k]
		line := fmt.Sprintf("%-6s %-24s %7d %8d %5d %7d %7d %4d %6d", k[0], k[1], c.unfixed, c.findings, c.fixes, c.applied, c.outside, c.gone, c.noNewError)
		if server {
			line += fmt.Sprintf(" %8d %7d", c.serverRejected, c.serverAccepts)
		}
		t.Log(line)
	}
}

// corpusFixes lints each corpus file from a copy on disk (only files on
// disk get fixes), applies each fix alone and checks (1) and (2). Linting
// costs the same fixed time for a document as for a file, so (1) is
// checked for one fix of each document at once: the documents are
// independent, and each fix is judged by the findings of its own
// document. It returns the cases and the counts.
func corpusFixes(t *testing.T) ([]fixCase, tallies) {
	t.Helper()
	dir := t.TempDir()
	var cases []fixCase
	counts := tallies{}
	for _, file := range corpusFiles(t) {
		p := filepath.Join(corpusDir, file)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, filepath.Base(p))
		testkit.WriteFile(t, name, data)
		before := lintFile(t, name)
		var pending []fixCase
		for _, d := range before {
			switch r, _ := rules.Lookup(d.Rule); {
			case len(d.Fixes) > 0:
				counts.of(file, d.Rule).findings++
			case r != nil && len(r.Fixes) > 0:
				counts.of(file, d.Rule).unfixed++
			}
			for _, f := range d.Fixes {
				c := counts.of(file, d.Rule)
				c.fixes++
				after, err := fix.Apply(data, f.Edits)
				if err != nil {
					t.Errorf("%s:%d: %s: %v", p, d.Line, f.Message, err)
					continue
				}
				c.applied++
				if err := outsideUnchanged(data, after, f.Edits); err != nil {
					t.Errorf("%s:%d: %s: %v", p, d.Line, f.Message, err)
				} else {
					c.outside++
				}
				pending = append(pending, fixCase{file: file, d: d, fix: f, before: data, after: after,
					othersErrors: errorsBeside(before, d)})
			}
		}
		cases = append(cases, pending...)
		docs := documentLines(data)
		for len(pending) > 0 {
			// One fix of each document, made together.
			var round, later []fixCase
			var edits []diag.Edit
			taken := map[int]bool{}
			for _, c := range pending {
				if doc := docs(c.d.Line); !taken[doc] {
					taken[doc] = true
					round = append(round, c)
					edits = append(edits, c.fix.Edits...)
				} else {
					later = append(later, c)
				}
			}
			diag.SortEdits(edits)
			text, err := fix.Apply(data, edits)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			testkit.WriteFile(t, name, text)
			after := lintFile(t, name)
			for _, c := range round {
				gone, err := sameOrBetter(before, docs, after, documentLines(text), c.d)
				if gone {
					counts.of(c.file, c.d.Rule).gone++
				}
				if err != nil {
					t.Errorf("%s:%d: [%s] fix %q: %v", p, c.d.Line, c.d.Rule, c.fix.Message, err)
				} else {
					counts.of(c.file, c.d.Rule).noNewError++
				}
			}
			pending = later
		}
	}
	return cases, counts
}

// errorsBeside counts the errors of rules other than d's on d's object.
func errorsBeside(ds []diag.Diagnostic, d diag.Diagnostic) int {
	n := 0
	for _, o := range ds {
		if o.Severity == diag.Error && o.Rule != d.Rule && o.Object != nil && d.Object != nil &&
			o.Object.Kind == d.Object.Kind && o.Object.Name == d.Object.Name {
			n++
		}
	}
	return n
}

// documentLines returns what gives the 0-based document of text that
// holds a line: a fix never adds or removes a separator, so a document
// keeps its number across one.
func documentLines(text []byte) func(line int) int {
	var seps []int // lines of the separators
	for _, m := range separator.FindAllIndex(text, -1) {
		seps = append(seps, bytes.Count(text[:m[0]], []byte("\n"))+1)
	}
	return func(line int) int {
		n, _ := slices.BinarySearch(seps, line)
		return n
	}
}

func lintFile(t *testing.T, name string) []diag.Diagnostic {
	t.Helper()
	res, err := source.Lint([]string{name}, nil, "", lint.Options{Jobs: 1}, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Diagnostics
}

// outsideUnchanged checks every byte of before outside the edits is in
// after, in order, with only the edits' new text between.
func outsideUnchanged(before, after []byte, edits []diag.Edit) error {
	at, prev := 0, 0
	for _, e := range edits {
		gap := before[prev:e.Offset]
		if !bytes.Equal(after[at:min(at+len(gap), len(after))], gap) {
			return fmt.Errorf("bytes %d..%d changed", prev, e.Offset)
		}
		at += len(gap)
		if !bytes.HasPrefix(after[at:], []byte(e.NewText)) {
			return fmt.Errorf("edit at %d is not its new text", e.Offset)
		}
		at += len(e.NewText)
		prev = e.EndOffset
	}
	if !bytes.Equal(after[at:], before[prev:]) {
		return fmt.Errorf("bytes after %d changed", prev)
	}
	return nil
}

// key is what a finding is compared by across a fix: lines shift when a
// field is inserted and list indices when an entry is deleted, so neither
// position nor path nor message can be.
type key struct {
	rule, object string
	document     int
}

// sameOrBetter reports whether after a fix the fixed finding's rule
// reports fewer findings on its object (the finding is gone), and checks
// that no object of its document has more errors of any rule than
// before. docs0 and docs1 give the documents of lines before and after.
func sameOrBetter(before []diag.Diagnostic, docs0 func(int) int, after []diag.Diagnostic, docs1 func(int) int, fixed diag.Diagnostic) (bool, error) {
	keyOf := func(d diag.Diagnostic, docs func(int) int) key {
		k := key{rule: d.Rule, document: docs(d.Line)}
		if d.Object != nil {
			k.object = d.Object.Kind + "/" + d.Object.Name
		}
		return k
	}
	doc := docs0(fixed.Line)
	count := func(ds []diag.Diagnostic, docs func(int) int, errorsOnly bool) map[key]int {
		m := map[key]int{}
		for _, d := range ds {
			if k := keyOf(d, docs); k.document == doc && (!errorsOnly || d.Severity == diag.Error) {
				m[k]++
			}
		}
		return m
	}
	all0, all1 := count(before, docs0, false), count(after, docs1, false)
	k := keyOf(fixed, docs0)
	gone := all1[k] < all0[k]
	err0, err1 := count(before, docs0, true), count(after, docs1, true)
	for _, e := range slices.SortedFunc(maps.Keys(err1), func(a, b key) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }) {
		if n := err1[e]; n > err0[e] {
			return gone, fmt.Errorf("new error: %d %s errors on %s, %d before", n, e.rule, e.object, err0[e])
		}
	}
	if !gone {
		return false, fmt.Errorf("still %d %s findings on %s", all1[k], k.rule, k.object)
	}
	return true, nil
}

// TestCorpusFixes checks (1) and (2) for every fix and logs the counts
// per rule: the fixable findings, their fixes, the fixes that apply, that
// keep every byte outside their edits, whose finding is gone and that
// bring no new error.
func TestCorpusFixes(t *testing.T) {
	cases, counts := corpusFixes(t)
	if len(cases) == 0 {
		t.Fatal("no fixable finding in the corpus")
	}
	counts.log(t, false)
}

// TestFixTwiceChangesNothing runs the --fix loop over the whole corpus and
// checks that a second pass finds nothing left to fix.
func TestFixTwiceChangesNothing(t *testing.T) {
	dir := t.TempDir()
	for _, file := range corpusFiles(t) {
		p := filepath.Join(corpusDir, file)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, filepath.Base(p))
		testkit.WriteFile(t, name, data)
		for round := 0; ; round++ {
			edits, n := fix.Select(lintFile(t, name), true)
			if n == 0 {
				break
			}
			if round == 5 {
				t.Fatalf("%s: still %d fixes after %d rounds", p, n, round)
			}
			text, _ := os.ReadFile(name)
			out, err := fix.Apply(text, edits[name])
			if err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, name, out)
		}
	}
}

// verdict is a line of testdata/conformance/verdicts/*.jsonl.
type verdict struct {
	Kind     string  `json:"kind"`
	Name     string  `json:"name"`
	Accepted bool    `json:"accepted"`
	Code     int     `json:"code"`
	Reason   string  `json:"reason"`
	Causes   []cause `json:"causes"`
}

// cause is a field error of a verdict.
type cause struct {
	Field string `json:"field"`
}

// recordedVerdicts reads the verdicts of a corpus file by kind and name.
func recordedVerdicts(t *testing.T, file string) map[string]verdict {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, filepath.Dir(file), "verdicts", strings.TrimSuffix(filepath.Base(file), ".yaml")+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	out := map[string]verdict{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v verdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out[v.Kind+"/"+v.Name] = v
	}
	return out
}

var separator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// documentAt is the YAML document of data that holds byte off.
func documentAt(data []byte, off int) []byte {
	start, end := 0, len(data)
	for _, m := range separator.FindAllIndex(data, -1) {
		switch {
		case m[1] <= off:
			start = m[1]
		case m[0] > off && end == len(data):
			end = m[0]
		}
	}
	return data[start:end]
}
