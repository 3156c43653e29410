package ruledocs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/rules"
)

// Every link a report prints for a finding names a page the repository
// has: a rule's generated page, or simulate's, whose findings no rule
// makes.
func TestHelpURIPagesExist(t *testing.T) {
	names := []string{SimulateFinding}
	for _, r := range rules.All() {
		names = append(names, r.Name)
	}
	prefix := RepoURL + "/blob/main/"
	for _, name := range names {
		rel, ok := strings.CutPrefix(HelpURI(name), prefix)
		if !ok {
			t.Errorf("%s: %s is not under %s", name, HelpURI(name), prefix)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(rel))); err != nil {
			t.Errorf("%s links to %s, which the repository lacks", name, rel)
		}
	}
}
