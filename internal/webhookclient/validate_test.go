package webhookclient

import (
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/util/webhook"
)

var fldPath = field.NewPath("webhooks").Index(3).Child("clientConfig")

// sameErrors fails the test when ours and the server's lists differ in
// anything: type, field path, value, message, order.
func sameErrors(t *testing.T, what string, got, want field.ErrorList) bool {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return true
	}
	t.Errorf("%s:\n got %v\nwant %v", what, got.ToAggregate(), want.ToAggregate())
	return false
}

// urls builds URLs from every combination of parts the server's checks
// look at, valid and broken, plus strings url.Parse rejects.
func urls() []string {
	schemes := []string{"https://", "http://", "HTTPS://", "ftp://", "", "//", "https:", "1https://"}
	users := []string{"", "user@", "user:secret@", ":@", "us%zzer@"}
	hosts := []string{"example.com", "", "127.0.0.1", "[::1]", "webhook.svc:8443", "bad host", "ex%41mple.com",
		"%zz", "[::1", "host:port", "h\x7f"}
	paths := []string{"", "/", "/validate", "/a b", "/%zz", "/a/../b"}
	queries := []string{"", "?", "?debug=1", "?a=%zz"}
	fragments := []string{"", "#", "#part", "#%zz"}
	var out []string
	for _, s := range schemes {
		for _, u := range users {
			for _, h := range hosts {
				for _, p := range paths {
					for _, q := range queries {
						for _, f := range fragments {
							out = append(out, s+u+h+p+q+f)
						}
					}
				}
			}
		}
	}
	return append(out, "", " ", "://", ":", "mailto:someone@example.com", "https://exa mple.com", " https://example.com",
		"https://example.com\n", "https://[fe80::1%25en0]/x", "https://[fe80::1%en0]/x", "https://example.com:99999",
		"https://example.com:-1", "https://user@/x", "HTTPS://EXAMPLE.COM/", "https://example.com/#", "https://example.com/?")
}

func TestValidateURLMatchesServer(t *testing.T) {
	n := 0
	for _, u := range urls() {
		for _, force := range []bool{true, false} {
			p := fldPath.Child("url")
			if !sameErrors(t, u, ValidateURL(p, u, force), webhook.ValidateWebhookURL(p, u, force)) {
				return
			}
			n++
		}
	}
	if n < 10000 {
		t.Fatalf("only %d cases", n)
	}
}

// servicePaths builds paths from segments that are valid, too long, badly
// cased or punctuated, and empty, with and without the leading and
// trailing slashes.
func servicePaths() []string {
	segments := []string{"", "a", "validate-pods", "A", "-a", "a-", "a.b", "a..b", "a_b", "1", "ab.", "é",
		strings.Repeat("a", 253), strings.Repeat("a", 254), strings.Repeat("a", 64) + "." + strings.Repeat("b", 10)}
	var out []string
	var build func(prefix string, depth int)
	build = func(prefix string, depth int) {
		for _, lead := range []string{"/", "", "//"} {
			for _, trail := range []string{"", "/", "//"} {
				out = append(out, lead+prefix+trail)
			}
		}
		if depth == 3 {
			return
		}
		for _, s := range segments {
			next := s
			if prefix != "" {
				next = prefix + "/" + s
			}
			build(next, depth+1)
		}
	}
	build("", 0)
	return out
}

func TestValidateServiceMatchesServer(t *testing.T) {
	p := fldPath.Child("service")
	ports := []int32{443, 1, 0, -1, 65535, 65536, math.MinInt32, math.MaxInt32}
	n := 0
	for _, ns := range []string{"", "policy"} {
		for _, name := range []string{"", "webhook"} {
			for _, port := range ports {
				if !sameErrors(t, "no path", ValidateService(p, ns, name, nil, port), webhook.ValidateWebhookService(p, ns, name, nil, port)) {
					return
				}
				n++
			}
		}
	}
	for i, path := range servicePaths() {
		ns, name, port := "policy", "webhook", ports[i%len(ports)]
		if i%5 == 0 {
			ns = ""
		}
		if i%7 == 0 {
			name = ""
		}
		if !sameErrors(t, path, ValidateService(p, ns, name, &path, port), webhook.ValidateWebhookService(p, ns, name, &path, port)) {
			return
		}
		n++
	}
	if n < 10000 {
		t.Fatalf("only %d cases", n)
	}
}

// Random strings over the characters the checks treat specially.
func TestRandomMatchesServer(t *testing.T) {
	const alphabet = "/:@?#%[]. -_aZ9é\x00"
	r := rand.New(rand.NewSource(11))
	p := fldPath.Child("service")
	for range 20000 {
		b := make([]rune, r.Intn(12))
		for i := range b {
			b[i] = []rune(alphabet)[r.Intn(len([]rune(alphabet)))]
		}
		s := string(b)
		if !sameErrors(t, "url "+s, ValidateURL(p, s, true), webhook.ValidateWebhookURL(p, s, true)) ||
			!sameErrors(t, "path "+s, ValidateService(p, "ns", "n", &s, 443), webhook.ValidateWebhookService(p, "ns", "n", &s, 443)) {
			return
		}
	}
}

func FuzzMatchesServer(f *testing.F) {
	for _, s := range []string{"https://example.com/x", "http://u@h/?q#f", "/a/B/", "//", "a", "%zz"} {
		f.Add(s, int32(443))
	}
	f.Fuzz(func(t *testing.T, s string, port int32) {
		p := fldPath.Child("service")
		sameErrors(t, "url", ValidateURL(p, s, true), webhook.ValidateWebhookURL(p, s, true))
		sameErrors(t, "service", ValidateService(p, "", s, &s, port), webhook.ValidateWebhookService(p, "", s, &s, port))
	})
}
