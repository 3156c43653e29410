// Package webhookclient validates where an admission webhook's clientConfig
// sends requests (url, or service with path and port) exactly as the API
// server does: same errors, field paths, values and messages as
// ValidateWebhookURL and ValidateWebhookService of
// k8s.io/apiserver/pkg/util/webhook v0.37.2, which the tests compare it
// with.
//
// It exists so that webhooklint does not link that package: it also holds
// the server's webhook client and authentication, whose imports (egress
// selector, konnectivity, gRPC, OpenTelemetry) add some 140 packages and
// their init to every run for two small checks.
package webhookclient

import (
	"net/url"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// urlForm ends the messages about the shape of a URL.
const urlForm = "; desired format: https://host[/path]"

// ValidateURL checks a clientConfig.url: it must parse, have a host, and
// carry no user information, query or fragment; with forceHTTPS (always, for
// admission webhooks) its scheme must be https.
func ValidateURL(fldPath *field.Path, rawURL string, forceHTTPS bool) field.ErrorList {
	u, err := url.Parse(rawURL)
	if err != nil {
		return field.ErrorList{field.Required(fldPath, "url must be a valid URL: "+err.Error()+urlForm)}
	}
	var errs field.ErrorList
	invalid := func(value any, msg string) { errs = append(errs, field.Invalid(fldPath, value, msg)) }
	if forceHTTPS && u.Scheme != "https" {
		invalid(u.Scheme, "'https' is the only allowed URL scheme"+urlForm)
	}
	if u.Host == "" {
		invalid(u.Host, "host must be specified"+urlForm)
	}
	if u.User != nil {
		invalid(u.User.String(), "user information is not permitted in the URL")
	}
	if u.Fragment != "" {
		invalid(u.Fragment, "fragments are not permitted in the URL")
	}
	if u.RawQuery != "" {
		invalid(u.RawQuery, "query parameters are not permitted in the URL")
	}
	return errs
}

// ValidateService checks a clientConfig.service: name and namespace are
// required, the port is 1-65535, and a path other than "" and "/" starts
// with "/" and is made of DNS-1123 subdomain segments (one trailing "/"
// allowed).
func ValidateService(fldPath *field.Path, namespace, name string, path *string, port int32) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), ""))
	}
	if namespace == "" {
		errs = append(errs, field.Required(fldPath.Child("namespace"), ""))
	}
	if bad := validation.IsValidPortNum(int(port)); len(bad) > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("port"), port, "port is not valid: "+strings.Join(bad, ", ")))
	}
	if path != nil {
		errs = append(errs, validatePath(fldPath.Child("path"), *path)...)
	}
	return errs
}

// validatePath checks a service path. Like the server it drops the first
// character before splitting into segments whether or not it is the
// missing "/" it has just reported, and it reports "//" once, as an empty
// first segment.
func validatePath(fldPath *field.Path, p string) field.ErrorList {
	switch p {
	case "", "/":
		return nil
	case "//":
		return field.ErrorList{field.Invalid(fldPath, p, "segment[0] may not be empty")}
	}
	var errs field.ErrorList
	if p[0] != '/' {
		errs = append(errs, field.Invalid(fldPath, p, "must start with a '/'"))
	}
	segments := strings.TrimSuffix(p[1:], "/")
	for i, seg := range strings.Split(segments, "/") {
		prefix := "segment[" + strconv.Itoa(i) + "]"
		if seg == "" {
			errs = append(errs, field.Invalid(fldPath, p, prefix+" may not be empty"))
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(seg) {
			errs = append(errs, field.Invalid(fldPath, p, prefix+": "+msg))
		}
	}
	return errs
}
