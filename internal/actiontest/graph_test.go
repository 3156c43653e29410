package actiontest

import (
	"encoding/json"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// testOnly matches the packages only tests, generators and development
// tools need: a linked one costs every cold install its compile.
var testOnly = regexp.MustCompile(`^(testing|net/http/httptest)$|/(fake|testing|httptest|testutil|testrestmapper)(/|$)|^github\.com/webhooklint/webhooklint/(hack/|internal/\w*test\b|internal/ruledocs/(docfiles|gendocs)|internal/openapi/gen)`)

// The commands' own code imports no test helper, fake client, generator
// or development tool, directly or through another package of this module.
// (k8s.io/apiserver's admission policy plugin, which internal/policytypes
// needs for the API server's type checker, links client-go's fakes itself:
// that is upstream's graph, not ours.)
func TestCommandsLinkNoTestCode(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Module", "./cmd/webhooklint", "./cmd/webhookvet")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	own := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Module     *struct{ Path string }
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || p.Module.Path != "github.com/webhooklint/webhooklint" {
			continue
		}
		own++
		if testOnly.MatchString(p.ImportPath) {
			t.Errorf("the commands link %s", p.ImportPath)
		}
		for _, i := range p.Imports {
			if testOnly.MatchString(i) {
				t.Errorf("%s imports %s, which only tests or tools need", p.ImportPath, i)
			}
		}
	}
	if own < 20 {
		t.Errorf("found %d packages of this module in the commands' graph; go list changed?", own)
	}
}
