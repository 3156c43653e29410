package rules

import (
	"strings"

	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// StaticConfigSuffix is reserved for configurations loaded from static
// manifest files by the API server itself (KEP-5793).
const StaticConfigSuffix = ".static.k8s.io"

// The ManifestBasedAdmissionControlConfig gate appeared (alpha, off) in
// 1.36, where the server accepts the reserved suffix with a warning; from
// 1.37 (beta, on) it rejects it. Older servers know nothing of the suffix.
const (
	staticSuffixWarnMinor   = 36
	staticSuffixRejectMinor = 37
)

func init() {
	register(&Rule{
		Name:     "object-name",
		Summary:  "metadata (name, generateName, labels, annotations) must pass the API server's object metadata validation",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "Webhook configurations are cluster-scoped objects whose `metadata.name` must be a lowercase " +
				"RFC 1123 subdomain; the API server also validates labels, annotations and `generateName`. " +
				"Since Kubernetes 1.37 (feature gate `ManifestBasedAdmissionControlConfig`, beta, on by default) " +
				"names ending in `.static.k8s.io` are reserved for static manifest-based configurations and are " +
				"rejected on create; 1.36 servers accept them with a warning, older ones say nothing.",
			Fix: "Use lowercase letters, digits, `-` and `.` only (at most 253 characters, starting and ending " +
				"with a letter or digit), and do not end the name with `.static.k8s.io`.",
			Sources: []string{
				srcObjectMeta,
				srcStaticSuffix,
				srcWarnings,
				docsNames,
			},
		},
		Check: checkObjectName,
	})
}

func checkObjectName(p *Pass) { checkCreatedMeta(p, p.Config.Meta) }

// checkCreatedMeta reports the server's metadata checks on the object as
// create sees it, and the reserved static suffix: a warning from 1.36, an
// error from 1.37. Webhook configurations and the four admission policy
// kinds share both.
func checkCreatedMeta(p *Pass, meta metav1.ObjectMeta) {
	// The REST create path clears the namespace of cluster-scoped objects
	// before validation, so a stray namespace is dropped, not rejected.
	meta.Namespace = ""
	// On create the server's field manager replaces managedFields before
	// validation runs (invalid entries are reset, not rejected), so they
	// cannot cause a rejection; the corpus verdicts confirm it.
	meta.ManagedFields = nil
	// Name generation happens before validation: the server appends five
	// random characters to the (truncated) prefix; "xxxxx" stands for them
	// (x is in the generator's alphabet, so validity is unchanged).
	if meta.Name == "" && meta.GenerateName != "" {
		meta.Name = generatedName(meta.GenerateName)
	}
	p.ReportFieldErrors(genericvalidation.ValidateObjectMeta(&meta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata")))
	if !strings.HasSuffix(meta.Name, StaticConfigSuffix) || !p.Settings.KubeVersion.AtLeast(staticSuffixWarnMinor) {
		return
	}
	namePath := field.NewPath("metadata", "name")
	if p.Settings.KubeVersion.AtLeast(staticSuffixRejectMinor) {
		p.ReportFieldErrors(field.ErrorList{field.Invalid(namePath, meta.Name, staticSuffixMessage())})
		return
	}
	p.ReportSeverity(diag.Warning, namePath, namePath.String()+": "+staticSuffixMessage())
}

func staticSuffixMessage() string {
	return `names ending with "` + StaticConfigSuffix + `" are reserved for static manifest-based configurations and cannot be managed via the API`
}

// generatedName mimics the API server's SimpleNameGenerator: the prefix is
// cut to 58 characters and five random characters from its alphabet follow.
func generatedName(prefix string) string {
	const maxGeneratedNameLength = 63 - 5
	if len(prefix) > maxGeneratedNameLength {
		prefix = prefix[:maxGeneratedNameLength]
	}
	return prefix + "xxxxx"
}
