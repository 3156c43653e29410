{{- define "gen-ca.gen-certs" -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace "aws-load-balancer-tls" -}}
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
