package placeholder

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"${CA_BUNDLE}", "${CA_BUNDLE}", true},
		{"${CA_PEM_B64}", "${CA_PEM_B64}", true},
		{"${CA:-Cg==}", "${CA:-Cg==}", true},
		{"__CA_BUNDLE__", "__CA_BUNDLE__", true},
		{"CA_BUNDLE", "CA_BUNDLE", true},
		{"REPLACE_WITH_SECRET", "REPLACE_WITH_SECRET", true},
		{"HELMSUBST_DEPLOYMENT_CONTROLLER_MANAGER_FAILURE_POLICY", "HELMSUBST_DEPLOYMENT_CONTROLLER_MANAGER_FAILURE_POLICY", true},
		{"{{caBundle}}", "{{caBundle}}", true},
		{"{{ .Values.caBundle }}", "{{ .Values.caBundle }}", true},
		{"${NAMESPACE}", "${NAMESPACE}", true},
		{"cache-server.${NAMESPACE}.svc", "${NAMESPACE}", true},
		{"https://${PRIVATE_IP}:8443/mutate", "${PRIVATE_IP}", true},
		{"$(SERVICE_NAMESPACE)", "$(SERVICE_NAMESPACE)", true},
		{"$NAMESPACE", "$NAMESPACE", true},
		{"<CA_BUNDLE>", "<CA_BUNDLE>", true},
		{"%CA_BUNDLE%", "%CA_BUNDLE%", true},
		{"a-${X}-b-$(Y)", "${X}", true},

		// Real values are never placeholders.
		{"", "", false},
		{"Cg==", "", false},
		{"XG4=", "", false},
		{"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==", "", false},
		{"XYZ", "", false},
		{"webhook-service", "", false},
		{"system", "", false},
		{"mpod.kb.io", "", false},
		{"https://example.com/validate?x=1", "", false},
		{"/mutate-v1-pod", "", false},
		{"CA", "", false},
		{"__init__", "", false},
		{"a_b", "", false},
	}
	for _, c := range cases {
		got, ok := Find(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("Find(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// The shortcut in Find must never hide a match: every string the patterns
// match holds one of markerChars.
func TestMarkerCharsCoverEveryPattern(t *testing.T) {
	alphabet := []byte("AZaz09_-.:$_{}()%@<> /=+?")
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		b := make([]byte, 1+r.IntN(14))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if tok, ok := find(s); ok && !strings.ContainsAny(s, markerChars) {
			t.Fatalf("find(%q) = %q, but %q holds none of %q", s, tok, s, markerChars)
		}
	}
	for _, s := range []string{"CA_BUNDLE", "<ca>", "{{x}}", "$X", "%X%", "@X@", "__CA__"} {
		if _, ok := Find(s); !ok {
			t.Errorf("Find(%q) finds nothing", s)
		}
	}
}

// Words asking for a value read as a placeholder; a broken value that is
// no prose (a truncated base64, a pasted PEM certificate) does not.
func TestProse(t *testing.T) {
	for s, want := range map[string]bool{
		"-- your CARoot comes here --": true, // logging-operator's sample
		"[base64 CA bundle]":           true,
		"<ca>":                         true,
		"paste the CA here":            true,
		"--":                           false,
		"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM":                                    false,
		"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n": false,
		"Zm9v YmFy":     false, // base64 with a space: no words
		"Zm9vYmFy YmF6": false,
		"":              false,
	} {
		if _, got := Prose(s); got != want {
			t.Errorf("Prose(%q) = %v, want %v", s, got, want)
		}
	}
}
