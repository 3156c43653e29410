package rules

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// kubernetesAtTag is the Kubernetes source at a release tag, never a branch.
var kubernetesAtTag = regexp.MustCompile(`^/kubernetes/kubernetes/(blob|tree)/v1\.\d+\.\d+/`)

// githubReport is a public issue or pull request.
var githubReport = regexp.MustCompile(`^/[^/]+/[^/]+/(issues|pull)/\d+$`)

// TestRuleDocsCitePublicSources: every source of every rule's doc is a
// public link users can open (documentation, the Kubernetes source at a
// tag, a public issue or incident report), and no doc points at material
// only webhooklint's authors have.
func TestRuleDocsCitePublicSources(t *testing.T) {
	for _, r := range All() {
		ex := r.Examples()
		for _, text := range []string{r.Doc.Why, r.Doc.Fix, ex.Bad, ex.Good} {
			if problem := privateReference(text); problem != "" {
				t.Errorf("%s: doc text %s", r.Name, problem)
			}
		}
		for _, s := range r.Doc.Sources {
			if problem := sourceProblem(s); problem != "" {
				t.Errorf("%s: source %q: %s", r.Name, s, problem)
			}
		}
	}
}

func privateReference(text string) string {
	for _, private := range []string{"webhook-facts", "NOTES.md", "style-anchors", "../shared"} {
		if strings.Contains(text, private) {
			return "refers to " + private + ", which users do not have"
		}
	}
	return ""
}

func sourceProblem(s string) string {
	if p := privateReference(s); p != "" {
		return p
	}
	// A link, optionally followed by a note on what it shows.
	link, _, _ := strings.Cut(s, " ")
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "not a public https link"
	}
	if u.Host == "github.com" && strings.HasPrefix(u.Path, "/kubernetes/kubernetes/") &&
		!githubReport.MatchString(u.Path) && !kubernetesAtTag.MatchString(u.Path) {
		return "Kubernetes source must be cited at a release tag"
	}
	return ""
}

func TestSourceProblem(t *testing.T) {
	for s, bad := range map[string]bool{
		docsWebhooks + "#timeouts": false,
		srcValidation:              false,
		issueLeaderElection:        false,
		prExcludeReviews:           false,
		"webhook-facts.md A.7":     true,
		"https://github.com/kubernetes/kubernetes/blob/master/pkg/x.go": true,
		"k8s.io/apiserver v0.37.2 pkg/admission/plugin/cel":             true,
		"http://example.com/": true,
		"https://github.com/kubernetes/kubernetes/tree/master": true,
		docsWebhooks + " (the timeouts section)":               false,
	} {
		if got := sourceProblem(s) != ""; got != bad {
			t.Errorf("sourceProblem(%q) reports a problem: %v, want %v", s, got, bad)
		}
	}
}
