{{- /*
Rebuilt from aws-load-balancer-controller's chart (helm/aws-load-balancer-controller,
_helpers.tpl "gen-certs" with keepTLSSecret, kubernetes-sigs/aws-load-balancer-controller
#2239, #2312, #4581): the chart calls lookup, but only when keepTLSSecret is set, and
the value defaults to false, so every helm upgrade still writes a new CA.
*/ -}}
{{- define "gen-ca.gen-certs" -}}
{{- $secret := dict -}}
{{- if .Values.keepTLSSecret -}}
{{- $secret = lookup "v1" "Secret" .Release.Namespace "aws-load-balancer-tls" -}}
{{- end -}}
{{- if $secret -}}
caCert: {{ index $secret.data "ca.crt" }}
clientCert: {{ index $secret.data "tls.crt" }}
clientKey: {{ index $secret.data "tls.key" }}
{{- else -}}
{{- $altNames := list (printf "aws-load-balancer-webhook-service.%s" .Release.Namespace) (printf "aws-load-balancer-webhook-service.%s.svc" .Release.Namespace) -}}
{{- $ca := genCA "aws-load-balancer-controller-ca" 3650 -}}
{{- $cert := genSignedCert "aws-load-balancer-controller" nil $altNames 3650 $ca -}}
caCert: {{ $ca.Cert | b64enc }}
clientCert: {{ $cert.Cert | b64enc }}
clientKey: {{ $cert.Key | b64enc }}
{{- end -}}
{{- end -}}
