{{- define "linkerd.labels" -}}
linkerd.io/control-plane-ns: {{ .Release.Namespace }}
{{- end -}}
