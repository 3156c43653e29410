#!/usr/bin/env bash
# Checks the match-condition-fields rule against a real kube-apiserver: for
# each scenario, webhooklint's verdict on a webhook's matchCondition must
# be what the server does with it on a real request.
#
#   webhooklint says "... fails ..."        the server answers "resulted in error"
#   webhooklint says "... is always false"  the server skips the webhook (request allowed)
#   "is always true", or no finding         the server calls the webhook
#
# The webhook's backend does not exist (https://127.0.0.1:1, failurePolicy
# Fail), so "called" shows as "failed calling webhook"; requests are
# server-side dry runs. The script starts its own loopback etcd and
# kube-apiserver (hack/e2e-apiserver.sh) and stops them at the end.
#
#   hack/verify-match-condition-fields.sh
#
# Env: E2E_DIR (default /tmp/webhooklint-fields), ETCD_PORT (62379),
#      APISERVER_PORT (26443), KUBE_APISERVER.
# Exit status 1 if any scenario differs.
set -euo pipefail
cd "$(dirname "$0")/.."
export E2E_DIR="${E2E_DIR:-/tmp/webhooklint-fields}" ETCD_PORT="${ETCD_PORT:-62379}" APISERVER_PORT="${APISERVER_PORT:-26443}"
command -v jq >/dev/null || { echo "jq missing" >&2; exit 1; }

work="$(mktemp -d)"
go build -o "$work/webhooklint" ./cmd/webhooklint
hack/e2e-apiserver.sh start
trap 'hack/e2e-apiserver.sh stop; rm -rf "$work"' EXIT
url="https://127.0.0.1:$APISERVER_PORT"
token="$(cut -d, -f1 "$E2E_DIR/pki/tokens.csv")"
api() { # api METHOD PATH [YAML on stdin]
  curl -sS --cacert "$E2E_DIR/pki/ca.crt" -H "Authorization: Bearer $token" -H 'Content-Type: application/yaml' \
    -X "$1" --data-binary @- "$url$2"
}

deployment='apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}'
crd='apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              port: {x-kubernetes-int-or-string: true}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                properties: {spec: {type: object, properties: {image: {type: string}}}}'
widget='apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec:
  size: 4
  port: http
  extra: {anything: 1}
  template: {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {app: a}}, spec: {image: nginx}}'
scale='apiVersion: autoscaling/v1
kind: Scale
metadata: {name: web, namespace: default}
spec: {replicas: 2}'

echo "$deployment" | api POST /apis/apps/v1/namespaces/default/deployments >/dev/null
echo "$crd" | api POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions >/dev/null
sleep 3 # the CRD becomes established

failed=0
# scenario NAME GROUP RESOURCE EXPRESSION METHOD PATH BODY
scenario() {
  local name="$1" group="$2" resource="$3" expr="$4" method="$5" path="$6" body="$7"
  local webhook="apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: fields-claims}
webhooks:
- name: fields-claims.example.com
  failurePolicy: Fail
  sideEffects: None
  timeoutSeconds: 2
  admissionReviewVersions: [v1]
  clientConfig: {url: 'https://127.0.0.1:1/'}
  rules:
  - operations: [CREATE, UPDATE]
    apiGroups: ['$group']
    apiVersions: ['*']
    resources: [$resource]
  matchConditions:
  - name: under-test
    expression: '$expr'"
  printf '%s\n---\n%s\n' "$crd" "$webhook" > "$work/input.yaml"
  local lint want got out
  lint="$("$work/webhooklint" --format json --fail-on never "$work/input.yaml" |
    jq -r '[.diagnostics[] | select(.rule == "match-condition-fields") | .message] | join(" | ")')"
  case "$lint" in
    fails*|*" fails"*) want=error ;;
    *"is always false"*) want=skip ;;
    *) want=call ;;
  esac
  echo "$webhook" | api POST /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations >/dev/null
  sleep 2 # the webhook configuration informer catches up
  out="$(echo "$body" | api "$method" "$path?dryRun=All")"
  case "$out" in
    *"resulted in error"*) got=error ;;
    *"failed calling webhook"*) got=call ;;
    *'"kind": "Status"'*|*'"kind":"Status"'*) got="unexpected: $out" ;;
    *) got=skip ;;
  esac
  if [ "$got" = "$want" ]; then
    echo "ok    $name: $got${lint:+ ($lint)}"
  else
    echo "FAIL  $name: the server did $got, webhooklint predicts $want${lint:+ ($lint)}"
    echo "      $out" | head -c 400; echo
    failed=1
  fi
  api DELETE /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/fields-claims </dev/null >/dev/null
}

create=(POST /apis/apps/v1/namespaces/default/deployments)
deployment="${deployment/name: web,/name: web-new,}" # "web" exists (for scale)
scenario "containers read on a Deployment" apps deployments 'object.spec.containers.exists(c, c.image == "nginx")' "${create[@]}" "$deployment"
scenario "misspelled container field" apps deployments 'object.spec.template.spec.containers.all(c, c.imagee == "nginx")' "${create[@]}" "$deployment"
scenario "has() of a missing field" apps deployments 'has(object.spec.containers)' "${create[@]}" "$deployment"
scenario "int == string" apps deployments 'object.spec.replicas == "1"' "${create[@]}" "$deployment"
scenario "int != string" apps deployments 'object.spec.replicas != "1"' "${create[@]}" "$deployment"
scenario "string function on an int" apps deployments 'object.spec.replicas.startsWith("1")' "${create[@]}" "$deployment"
scenario "int == double" apps deployments 'object.spec.replicas == 1.0' "${create[@]}" "$deployment"
scenario "the right path" apps deployments 'object.spec.template.spec.containers.exists(c, c.image == "nginx")' "${create[@]}" "$deployment"
scenario "object.kind routes the read" apps deployments 'object.kind != "CronJob" || object.spec.jobTemplate.spec.suspend == true' "${create[@]}" "$deployment"
scale_path=/apis/apps/v1/namespaces/default/deployments/web/scale
scenario "deployments/scale carries a Scale" apps deployments/scale 'object.spec.paused != true' PUT "$scale_path" "$scale"
scenario "Scale replicas" apps deployments/scale 'object.spec.replicas >= 0' PUT "$scale_path" "$scale"
widgets=(POST /apis/example.com/v1/namespaces/default/widgets)
scenario "custom resource: missing field" example.com widgets 'object.spec.colour == "red"' "${widgets[@]}" "$widget"
scenario "custom resource: int field vs string" example.com widgets 'object.spec.size == "4"' "${widgets[@]}" "$widget"
scenario "custom resource: preserve-unknown-fields" example.com widgets 'object.spec.extra.anything == 1' "${widgets[@]}" "$widget"
scenario "custom resource: int-or-string" example.com widgets 'object.spec.port == "http"' "${widgets[@]}" "$widget"
scenario "custom resource: embedded metadata" example.com widgets 'object.spec.template.metadata.labels.app == "a"' "${widgets[@]}" "$widget"
exit "$failed"
