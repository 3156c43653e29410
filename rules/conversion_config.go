package rules

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/webhookclient"
)

// A CustomResourceDefinition's spec.conversion, as the API server validates
// it on create (apiextensions-apiserver@v0.37.2
// pkg/apis/apiextensions/validation/validation.go,
// validateCustomResourceConversion). The server validates the internal
// type, whose fields sit elsewhere than in v1: v1's
// spec.conversion.webhook.clientConfig is reported as
// spec.conversion.webhookClientConfig and webhook.conversionReviewVersions
// as spec.conversion.conversionReviewVersions. Findings carry the server's
// paths; the loader indexes them at the v1 fields they come from.

const srcCRDValidation = k8sSource + "staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go"

const docsCRDConversion = "https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-conversion"

// Paths of the internal type, as the server prints them.
var (
	conversionPath           = field.NewPath("spec", "conversion")
	conversionClientConfig   = conversionPath.Child("webhookClientConfig")
	conversionReviewVersions = conversionPath.Child("conversionReviewVersions")
)

// acceptedConversionReviewVersions are the ConversionReview versions the
// server understands.
var acceptedConversionReviewVersions = sets.New("v1", "v1beta1")

func init() {
	register(&Rule{
		Name:     "conversion-config",
		Summary:  "spec.conversion of a CustomResourceDefinition is rejected by the API server",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.3.0",
		Doc: Doc{
			Why: "A CustomResourceDefinition whose versions are converted by a webhook (`spec.conversion.strategy: " +
				"Webhook`) must say where the webhook is and which ConversionReview versions it speaks: " +
				"`webhook.clientConfig` with exactly one of `url` (https, no user information, query or fragment) " +
				"or `service` (name, namespace, a port 1–65535 and a path of lowercase DNS-subdomain segments), and " +
				"`webhook.conversionReviewVersions` listing `v1` or `v1beta1`, without duplicates, and unknown fields " +
				"must not be preserved (`spec.preserveUnknownFields: false`, which v1beta1 CRDs default to true). With strategy " +
				"`None` neither may be set. The API server rejects the whole CustomResourceDefinition otherwise, " +
				"so nothing of the custom resource gets installed.\n\n" +
				"The server validates its internal form of the object and prints those paths: " +
				"`spec.conversion.webhookClientConfig` for v1's `spec.conversion.webhook.clientConfig`, and " +
				"`spec.conversion.conversionReviewVersions` for `spec.conversion.webhook.conversionReviewVersions`. " +
				"webhooklint reports the server's paths at the v1 fields they stand for.",
			Fix: "Add `conversionReviewVersions: [\"v1\"]` under `webhook`, give `clientConfig` one valid `url` or " +
				"`service`, or set `strategy: None` and drop `webhook` when the versions need no conversion.",
			Sources: []string{
				srcCRDValidation,
				srcWebhookValidation,
				docsCRDConversion,
				"https://github.com/k8snetworkplumbingwg/ptp-operator/issues/129",
				"https://github.com/open-telemetry/opentelemetry-operator/issues/644",
			},
		},
		CheckCRD: checkConversionConfig,
	})
}

func checkConversionConfig(p *Pass) {
	conv := p.CRD.Spec.Conversion
	if conv == nil {
		return // defaulted to strategy None
	}
	var webhook *apiextensionsv1.WebhookClientConfig
	var versions []string
	if conv.Webhook != nil {
		webhook, versions = conv.Webhook.ClientConfig, conv.Webhook.ConversionReviewVersions
	}
	switch conv.Strategy {
	case "":
		p.ReportFieldErrors(field.ErrorList{field.Required(conversionPath.Child("strategy"), "")})
	case apiextensionsv1.NoneConverter, apiextensionsv1.WebhookConverter:
	default:
		p.ReportFieldErrors(field.ErrorList{field.NotSupported(conversionPath.Child("strategy"), string(conv.Strategy),
			[]string{string(apiextensionsv1.NoneConverter), string(apiextensionsv1.WebhookConverter)})})
	}
	if conv.Strategy != apiextensionsv1.WebhookConverter {
		if webhook != nil {
			reportConversionError(p, field.Forbidden(conversionClientConfig, "should not be set when strategy is not set to Webhook"), true)
		}
		if len(versions) > 0 {
			reportConversionError(p, field.Forbidden(conversionReviewVersions, "should not be set when strategy is not set to Webhook"), true)
		}
		return
	}
	if p.CRD.Spec.PreserveUnknownFields {
		// v1 refuses true on create; v1beta1 defaults to it.
		fix := "; set spec.preserveUnknownFields: false"
		if IsV1beta1CRD(p.CRD) {
			fix += " (v1beta1 defaults it to true)"
		}
		e := field.Invalid(conversionPath.Child("strategy"), conv.Strategy, "must be None if spec.preserveUnknownFields is true")
		p.Emit(Finding{Path: e.Field, Message: ConciseServerMessage(e.Error()) + fix})
	}
	switch {
	case webhook == nil:
		reportConversionError(p, field.Required(conversionClientConfig, "required when strategy is set to Webhook"), false)
	case (webhook.URL == nil) == (webhook.Service == nil):
		reportConversionError(p, field.Required(conversionClientConfig, "exactly one of url or service is required"), true)
	case webhook.URL != nil:
		p.ReportFieldErrors(webhookclient.ValidateURL(conversionClientConfig.Child("url"), *webhook.URL, true))
	default:
		s := webhook.Service
		port := int32(defaultServicePort)
		if s.Port != nil {
			port = *s.Port
		}
		// Arguments in the declared order (namespace, name), so that a
		// missing name is reported on service.name (the server swaps them,
		// as for admission webhooks).
		p.ReportFieldErrors(webhookclient.ValidateService(conversionClientConfig.Child("service"), s.Namespace, s.Name, s.Path, port))
	}
	p.ReportFieldErrors(validateConversionReviewVersions(versions))
}

// reportConversionError reports a server error on a block, on its key when
// atKey (the block is there but wrong as a whole).
func reportConversionError(p *Pass, e *field.Error, atKey bool) {
	p.Emit(Finding{Path: e.Field, Message: ConciseServerMessage(e.Error()), AtKey: atKey})
}

// validateConversionReviewVersions is the server's check of
// conversionReviewVersions on create.
func validateConversionReviewVersions(versions []string) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(conversionReviewVersions, "")}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	accepted := false
	for i, v := range versions {
		if seen.Has(v) {
			errs = append(errs, field.Invalid(conversionReviewVersions.Index(i), v, "duplicate version"))
			continue
		}
		seen.Insert(v)
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(conversionReviewVersions.Index(i), v, msg))
		}
		accepted = accepted || acceptedConversionReviewVersions.Has(v)
	}
	if !accepted {
		errs = append(errs, field.Invalid(conversionReviewVersions, versions,
			fmt.Sprintf("must include at least one of %v", strings.Join(sets.List(acceptedConversionReviewVersions), ", "))))
	}
	return errs
}
