package rules

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

// testCertPEM makes a self-signed certificate valid from..to.
func testCertPEM(t *testing.T, cn string, isCA bool, from, to time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: from, NotAfter: to, BasicConstraintsValid: true, IsCA: isCA,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// caBundleConfig is a one-webhook configuration calling a service.
func caBundleConfig(bundle []byte, annotations map[string]string) *Config {
	return FromValidating(V1, &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: annotations},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name: "w.example.com",
			ClientConfig: admissionv1.WebhookClientConfig{
				Service:  &admissionv1.ServiceReference{Name: "s", Namespace: "n"},
				CABundle: bundle,
			},
			Rules: []admissionv1.RuleWithOperations{rule([]string{""}, []string{"pods"}, []admissionv1.OperationType{admissionv1.Create}, "")},
		}},
	})
}

func runCABundle(t *testing.T, c *Config, s *Settings) []Finding {
	t.Helper()
	var out []Finding
	NewPass(MustLookup("ca-bundle"), c, nil, s, func(f Finding) { out = append(out, f) }).Run()
	return out
}

func TestCABundleExpiry(t *testing.T) {
	now := fixedNow
	cases := []struct {
		name     string
		notAfter time.Time
		days     any // expiry-days option, nil for the default
		want     string
		sev      diag.Severity
	}{
		{"far", now.AddDate(1, 0, 0), nil, "", 0},
		{"in 10 days", now.AddDate(0, 0, 10), nil, "expires on 2026-06-11 \\(in 10 days\\)", diag.Warning},
		{"in 29 days", now.AddDate(0, 0, 29).Add(time.Hour), nil, "in 29 days", diag.Warning},
		{"in 31 days", now.AddDate(0, 0, 31), nil, "", 0},
		{"in 31 days, option 60", now.AddDate(0, 0, 31), float64(60), "in 31 days", diag.Warning},
		{"in 10 days, option 5", now.AddDate(0, 0, 10), 5, "", 0},
		{"yesterday", now.AddDate(0, 0, -1), nil, "expired on 2026-05-31; replace it", diag.Warning},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testSettings()
			if c.days != nil {
				s.Options = map[string]map[string]any{"ca-bundle": {"expiry-days": c.days}}
			}
			pemBytes := testCertPEM(t, "ca", true, now.AddDate(-1, 0, 0), c.notAfter)
			fs := runCABundle(t, caBundleConfig(pemBytes, nil), s)
			if c.want == "" {
				if len(fs) != 0 {
					t.Fatalf("got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || !matches(t, c.want, fs[0].Message) || fs[0].Severity != c.sev || fs[0].Path != "webhooks[0].clientConfig.caBundle" {
				t.Fatalf("got %+v, want %q (%v)", fs, c.want, c.sev)
			}
		})
	}
}

func TestCABundleRotationAndKinds(t *testing.T) {
	now := fixedNow
	valid := testCertPEM(t, "new", true, now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0))
	expired := testCertPEM(t, "old", true, now.AddDate(-3, 0, 0), now.AddDate(-1, 0, 0))

	// One valid CA left: the expired one is only a warning.
	fs := runCABundle(t, caBundleConfig(append(append([]byte{}, valid...), expired...), nil), testSettings())
	if len(fs) != 1 || fs[0].Severity != diag.Warning || !strings.Contains(fs[0].Message, `certificate 2 "old"`) {
		t.Fatalf("rotation: %+v", fs)
	}
	// Both expired: both errors.
	fs = runCABundle(t, caBundleConfig(append(append([]byte{}, expired...), expired...), nil), testSettings())
	if len(fs) != 2 || fs[0].Severity != diag.Warning || fs[1].Severity != diag.Warning {
		t.Fatalf("all expired: %+v", fs)
	}

	// A private key instead of a certificate.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalECPrivateKey(key)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	fs = runCABundle(t, caBundleConfig(keyPEM, nil), testSettings())
	if len(fs) != 1 || fs[0].Severity != diag.Warning || !strings.Contains(fs[0].Message, "only EC PRIVATE KEY") ||
		!strings.Contains(fs[0].Message, "replace the private key") {
		t.Fatalf("private key: %+v", fs)
	}

	// A CERTIFICATE block with garbage inside.
	garbage := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("garbage")})
	fs = runCABundle(t, caBundleConfig(garbage, nil), testSettings())
	if len(fs) != 1 || fs[0].Severity != diag.Warning || !strings.Contains(fs[0].Message, "no certificate in caBundle parses (PEM block 1)") {
		t.Fatalf("garbage: %+v", fs)
	}
	fs = runCABundle(t, caBundleConfig(append(append([]byte{}, valid...), garbage...), nil), testSettings())
	if len(fs) != 1 || fs[0].Severity != diag.Warning || !strings.Contains(fs[0].Message, "PEM block 2 of caBundle does not parse") {
		t.Fatalf("garbage after valid: %+v", fs)
	}

	// Without a clock, the current time is used: a far-future CA is fine.
	s := testSettings()
	s.Now = time.Time{}
	fs = runCABundle(t, caBundleConfig(testCertPEM(t, "ca", true, time.Now().AddDate(-1, 0, 0), time.Now().AddDate(10, 0, 0)), nil), s)
	if len(fs) != 0 {
		t.Fatalf("zero clock: %+v", fs)
	}
}

func TestCABundleInjectors(t *testing.T) {
	valid := testCertPEM(t, "ca", true, fixedNow.AddDate(-1, 0, 0), fixedNow.AddDate(5, 0, 0))
	cases := []struct {
		name   string
		ann    map[string]string
		bundle []byte
		want   []string
	}{
		{"no injector, empty", nil, nil, []string{"empty caBundle"}},
		{"secret injector", map[string]string{"cert-manager.io/inject-ca-from-secret": "ns/secret"}, nil, nil},
		{"apiserver ca", map[string]string{"cert-manager.io/inject-apiserver-ca": "true"}, nil, nil},
		{"apiserver ca off", map[string]string{"cert-manager.io/inject-apiserver-ca": "false"}, nil, []string{"empty caBundle"}},
		{"overwritten", map[string]string{"cert-manager.io/inject-ca-from": "ns/cert"}, valid, []string{"cert-manager's cainjector overwrites caBundle"}},
		{"bad reference", map[string]string{"cert-manager.io/inject-ca-from": "ns/cert/extra"}, valid, []string{"not <namespace>/<name>"}},
	}
	for _, c := range cases {
		fs := runCABundle(t, caBundleConfig(c.bundle, c.ann), testSettings())
		if len(fs) != len(c.want) {
			t.Errorf("%s: got %+v", c.name, fs)
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(fs[i].Message, w) {
				t.Errorf("%s: %q does not contain %q", c.name, fs[i].Message, w)
			}
		}
	}
}

func matches(t *testing.T, re, s string) bool {
	t.Helper()
	ok, err := regexpMatch(re, s)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// A certificate generated while rendering starts "now": within clock skew
// it is valid; a start beyond it is reported.
func TestCABundleNotYetValid(t *testing.T) {
	now := fixedNow
	for _, c := range []struct {
		name  string
		start time.Time
		want  bool
	}{
		{"rendered a minute after now", now.Add(time.Minute), false},
		{"starts tomorrow", now.AddDate(0, 0, 1), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pemBytes := testCertPEM(t, "ca", true, c.start, now.AddDate(1, 0, 0))
			fs := runCABundle(t, caBundleConfig(pemBytes, nil), testSettings())
			got := len(fs) == 1 && matches(t, "is not valid before", fs[0].Message)
			if got != c.want || (!c.want && len(fs) != 0) {
				t.Fatalf("got %+v, want a not-yet-valid finding: %v", fs, c.want)
			}
		})
	}
}

// An empty caBundle whose backend needs a Secret that nothing in the unit
// makes holds only under the assumption that what makes it, outside the
// unit, does not fill caBundle too; a maker in the unit states the fact.
func TestCABundleCertificateMadeElsewhere(t *testing.T) {
	service := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "hooks"}}}
	backend := func(secrets ...string) Workload {
		return Workload{Object: diag.Object{Kind: "Deployment", Name: "hooks", Namespace: "n"},
			PodLabels: map[string]string{"app": "hooks"}, Secrets: secrets}
	}
	certgen := Workload{Object: diag.Object{Kind: "Job", Name: "certgen", Namespace: "n"},
		Containers: []Container{{Image: "certgen:v1", Args: []string{"create", "--secret-name", "cert"}}}}
	elsewhere := `Secret "cert" the backend mounts is made elsewhere`
	cases := []struct {
		name string
		in   *Inventory
		want string // the assumption; "" is a warning
	}{
		{"made nowhere in the unit", &Inventory{Workloads: []Workload{backend("cert")}}, elsewhere},
		{"no Secret mounted: what gives it its certificate is elsewhere", &Inventory{Workloads: []Workload{backend()}},
			`Deployment "hooks" mounts no certificate`},
		{"the Secret in the unit", &Inventory{Workloads: []Workload{backend("cert")},
			Objects: []ObjectRef{{APIVersion: "v1", Kind: "Secret", Namespace: "n", Name: "cert"}}}, ""},
		{"a SealedSecret of its name", &Inventory{Workloads: []Workload{backend("cert")},
			Objects: []ObjectRef{{APIVersion: "bitnami.com/v1alpha1", Kind: "SealedSecret", Name: "cert"}}}, ""},
		{"a Secret of another namespace", &Inventory{Workloads: []Workload{backend("cert")},
			Objects: []ObjectRef{{APIVersion: "v1", Kind: "Secret", Namespace: "other", Name: "cert"}}}, elsewhere},
		{"a Certificate's secretName", &Inventory{Workloads: []Workload{backend("cert")},
			Certificates: []Certificate{{Namespace: "n", Name: "serving", SecretName: "cert"}}}, ""},
		{"a certgen Job naming it", &Inventory{Workloads: []Workload{backend("cert"), certgen}}, ""},
		{"one of two Secrets made in the unit", &Inventory{Workloads: []Workload{backend("credentials", "cert")},
			Certificates: []Certificate{{Namespace: "n", Name: "serving", SecretName: "cert"}}}, ""},
		{"a base: the overlay's note says it", &Inventory{Workloads: []Workload{backend("cert")}, Base: true}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.Services = []*corev1.Service{service.DeepCopy()}
			var fs []Finding
			NewPass(MustLookup(CABundleRule), caBundleConfig(nil, nil), in, testSettings(), func(f Finding) { fs = append(fs, f) }).Run()
			if len(fs) != 1 || !strings.Contains(fs[0].Message, "empty caBundle") {
				t.Fatalf("findings %+v, want the empty caBundle", fs)
			}
			if c.want == "" && fs[0].Assumes != "" || c.want != "" && !strings.Contains(fs[0].Assumes, c.want) {
				t.Errorf("assumes %q, want %q", fs[0].Assumes, c.want)
			}
		})
	}

	// An OpenShift service-ca annotation on a Service makes the Secret.
	in := &Inventory{Workloads: []Workload{backend("cert")}, Services: []*corev1.Service{service.DeepCopy()}}
	in.Services[0].Annotations = map[string]string{"service.beta.openshift.io/serving-cert-secret-name": "cert"}
	var fs []Finding
	NewPass(MustLookup(CABundleRule), caBundleConfig(nil, nil), in, testSettings(), func(f Finding) { fs = append(fs, f) }).Run()
	if len(fs) != 1 || fs[0].Assumes != "" {
		t.Errorf("service-ca's Secret: %+v", fs)
	}

	// On a folder only assumed one install, another file's workload of
	// the same labels is no evidence about this configuration's backend.
	for _, file := range []string{"webhook.yaml", "other.yaml"} {
		c := caBundleConfig(nil, nil)
		in := &Inventory{Workloads: []Workload{backend("cert")}, Services: []*corev1.Service{service.DeepCopy()},
			Loose: &LooseFolder{Folder: "examples", How: "list it in units.folders"}}
		in.SetFile(c, "webhook.yaml")
		in.SetFile(in.Services[0], "webhook.yaml")
		in.SetFile(&in.Workloads[0], file)
		fs = nil
		NewPass(MustLookup(CABundleRule), c, in, testSettings(), func(f Finding) { fs = append(fs, f) }).Run()
		if want := file == "webhook.yaml"; len(fs) != 1 || strings.Contains(fs[0].Assumes, elsewhere) != want {
			t.Errorf("loose folder, backend in %s: %+v", file, fs)
		}
	}
}

// When a Certificate of the unit makes the Secret the backend serves from,
// the finding names the annotation that passes its CA on; a Certificate of
// another Secret or namespace is not the backend's.
func TestCABundleNamesServingCertificate(t *testing.T) {
	service := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "hooks"}}}
	backend := Workload{Object: diag.Object{Kind: "Deployment", Name: "hooks", Namespace: "n"},
		PodLabels: map[string]string{"app": "hooks"}, Secrets: []string{"tls"}}
	for _, c := range []struct {
		name string
		cert Certificate
		want string
	}{
		{"its Secret", Certificate{Namespace: "n", Name: "serving", SecretName: "tls"},
			"empty caBundle and no CA injector; annotate cert-manager.io/inject-ca-from: n/serving"},
		{"its Secret, no namespace stated", Certificate{Name: "serving", SecretName: "tls"},
			"empty caBundle and no CA injector; annotate cert-manager.io/inject-ca-from: n/serving"},
		{"a Secret of another namespace: made elsewhere", Certificate{Namespace: "other", Name: "serving", SecretName: "tls"},
			"empty caBundle and no CA injector; set caBundle or annotate cert-manager.io/inject-ca-from"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &Inventory{Workloads: []Workload{backend}, Services: []*corev1.Service{service.DeepCopy()},
				Certificates: []Certificate{c.cert}}
			var fs []Finding
			NewPass(MustLookup(CABundleRule), caBundleConfig(nil, nil), in, testSettings(), func(f Finding) { fs = append(fs, f) }).Run()
			if len(fs) != 1 || fs[0].Message != `webhook "w.example.com": `+c.want {
				t.Fatalf("findings %+v, want %q", fs, c.want)
			}
		})
	}
}
