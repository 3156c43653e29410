package cluster

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

func testConfig(name, rv string, bad bool) *rules.Config {
	o := validating(name, bad)
	o.ResourceVersion = rv
	o.UID = types.UID("uid-" + name)
	return rules.FromValidating(rules.V1, o)
}

// summary keeps the unserved-resources findings and object events.
func summary(cs []Change) string {
	var out []string
	for _, c := range cs {
		switch {
		case c.Diagnostic == nil:
			out = append(out, fmt.Sprintf("%s %s", c.Type, c.Object.Name))
		case c.Diagnostic.Rule == "unserved-resources":
			s := fmt.Sprintf("%s %s %s", c.Type, c.Object.Name, c.Diagnostic.Path)
			if c.Reason != "" {
				s += " (" + c.Reason + ")"
			}
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

func TestStateReportsEachChangeOnce(t *testing.T) {
	st := newStateWith(lint.Options{})
	st.setLive(&rules.LiveInventory{Served: []rules.ServedResource{{Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true}}})
	steps := []struct {
		name string
		do   func() []Change
		want string
	}{
		{"add a bad config", func() []Change { return st.upsert(testConfig("a", "1", true)) },
			"added a; found a webhooks[0].rules[0].apiGroups[0]"},
		{"the same event replayed", func() []Change { return st.upsert(testConfig("a", "1", true)) }, ""},
		{"a relist showing the same state", func() []Change { return st.sync(rules.Validating, []*rules.Config{testConfig("a", "1", true)}) }, ""},
		{"a change that keeps the finding", func() []Change { return st.upsert(testConfig("a", "2", true)) }, "changed a"},
		{"the fix", func() []Change { return st.upsert(testConfig("a", "3", false)) },
			"changed a; resolved a webhooks[0].rules[0].apiGroups[0] (fixed)"},
		{"a relist after missed events: b added bad, a deleted",
			func() []Change { return st.sync(rules.Validating, []*rules.Config{testConfig("b", "9", true)}) },
			"added b; deleted a; found b webhooks[0].rules[0].apiGroups[0]"},
		{"a relist of the other kind leaves this one alone", func() []Change { return st.sync(rules.Mutating, nil) }, ""},
		{"delete", func() []Change { return st.remove(testConfig("b", "10", true)) },
			"deleted b; resolved b webhooks[0].rules[0].apiGroups[0] (configuration deleted)"},
		{"delete again", func() []Change { return st.remove(testConfig("b", "10", true)) }, ""},
	}
	for _, s := range steps {
		if got := summary(s.do()); got != s.want {
			t.Errorf("%s:\n got %q\nwant %q", s.name, got, s.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	c := testConfig("a", "1", true)
	for _, tc := range []struct{ path, want string }{
		{"webhooks[0].rules[0].apiGroups[0]", "webhooks[0].rules[0].apiGroups[0]: app"},
		{"webhooks[0].clientConfig", "webhooks[0].clientConfig:\n  url: https://webhook.example.com/validate"},
		// An absent field shows its nearest present ancestor.
		{"webhooks[0].clientConfig.service.port", "webhooks[0].clientConfig:\n  url: https://webhook.example.com/validate"},
		{"webhooks[0].rules[0].apiVersions", "webhooks[0].rules[0].apiVersions:\n  - v1"},
		{"", ""},
	} {
		if got := excerpt(c, tc.path); got != tc.want {
			t.Errorf("excerpt(%q):\n got %q\nwant %q", tc.path, got, tc.want)
		}
	}
}
