#!/usr/bin/env bash
# Check the runtime claims of the match-condition-runtime rule on a real
# kube-apiserver: for each scenario it registers a validating webhook whose
# backend does not exist (https://127.0.0.1:1, failurePolicy Fail unless
# POLICY is set), sends a server-side dry-run request, and classifies the
# answer:
#   error  the matchCondition failed ("... resulted in error: ...")
#   skip   a condition was false: the webhook was not called, request allowed
#   call   all conditions true: the server tried to call the webhook
# Then the same for a ValidatingAdmissionPolicy's matchConditions (the
# rule applies its analysis to them): a policy bound with Deny whose one
# validation is false, so "call" is its denial ("failed expression").
#
#   hack/verify-match-condition-runtime.sh KUBECONFIG
#
# The kubeconfig must point at a THROWAWAY server (it creates and deletes
# webhook configurations and namespaces), e.g. one started with
#   ORACLE_DIR=/tmp/oracle-cel ETCD_PORT=22379 APISERVER_PORT=26443 ../shared/oracle/start.sh
# Exit status 1 if any scenario differs from what the rule claims.
set -euo pipefail
KUBECONFIG="${1:?usage: $0 KUBECONFIG}"
KUBECTL="${KUBECTL:-$HOME/.cache/kube-oracle/bin/kubectl}"
k() { "$KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }

k create namespace ovn-kubernetes --dry-run=client -o yaml | k apply -f - >/dev/null
k create configmap existing -n ovn-kubernetes --dry-run=client -o yaml | k apply -f - >/dev/null
k create configmap existing -n default --dry-run=client -o yaml | k apply -f - >/dev/null

failed=0
# scenario NAME EXPECTED OPERATIONS EXPRESSION ACTION...
scenario() {
  local name="$1" want="$2" ops="$3" expr="$4"; shift 4
  k apply -f - >/dev/null <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: runtime-claims
webhooks:
- name: runtime-claims.example.com
  failurePolicy: ${POLICY:-Fail}
  sideEffects: None
  timeoutSeconds: 2
  admissionReviewVersions: [v1]
  clientConfig:
    url: https://127.0.0.1:1/
  rules:
  - operations: [$ops]
    apiGroups: ["${GROUP:-}"]
    apiVersions: [v1]
    resources: [${RESOURCE:-configmaps}]
  matchConditions:
  - name: under-test
    expression: '$expr'
EOF
  sleep 2 # the webhook configuration informer catches up
  local out got
  out="$("$@" 2>&1)" || true
  case "$out" in
    *"resulted in error"*) got=error ;;
    *"failed calling webhook"*) got=call ;;
    *created*|*deleted*) got=skip ;;
    *) got="unexpected: $out" ;;
  esac
  if [ "$got" = "$want" ]; then echo "ok    $name: $got"; else echo "FAIL  $name: got $got, want $want"; echo "      $out"; failed=1; fi
  k delete validatingwebhookconfiguration runtime-claims >/dev/null
}

create() { k create configmap "$1" -n "${2:-default}" --dry-run=server; }
labeled() { k create --dry-run=server -f - <<EOF
apiVersion: v1
kind: ConfigMap
metadata: {name: labeled, namespace: ${1:-default}, labels: {name: ovnkube-identity, other: x}}
EOF
}
delete() { k delete configmap existing -n "${1:-default}" --dry-run=server; }

scenario "subResource is absent on a plain CREATE" error CREATE 'request.subResource == ""' create cm
scenario "has(request.subResource) is false there" skip CREATE 'has(request.subResource)' create cm
scenario "missing labels map" error CREATE 'object.metadata.labels["name"] == "x"' create cm
scenario "missing label key" error CREATE 'object.metadata.labels["app"] == "x"' labeled
scenario "guarded label read" skip CREATE 'has(object.metadata.labels) && "app" in object.metadata.labels && object.metadata.labels["app"] == "x"' create cm
scenario "guard after the read (false && error)" skip CREATE 'object.metadata.labels["app"] == "x" && has(object.metadata.labels) && "app" in object.metadata.labels' create cm
scenario "optional read" skip CREATE 'object.metadata.?labels[?"app"].orValue("") == "x"' create cm
scenario "F18 outside the namespace" call CREATE,DELETE '!(request.namespace == "ovn-kubernetes" && object.metadata.labels["name"] == "ovnkube-identity")' create cm default
scenario "F18 unlabeled object in the namespace" error CREATE,DELETE '!(request.namespace == "ovn-kubernetes" && object.metadata.labels["name"] == "ovnkube-identity")' create cm ovn-kubernetes
scenario "F18 labeled object in the namespace" skip CREATE,DELETE '!(request.namespace == "ovn-kubernetes" && object.metadata.labels["name"] == "ovnkube-identity")' labeled ovn-kubernetes
scenario "F18 DELETE in the namespace (object is null)" error CREATE,DELETE '!(request.namespace == "ovn-kubernetes" && object.metadata.labels["name"] == "ovnkube-identity")' delete ovn-kubernetes
scenario "object on DELETE" error DELETE 'object.metadata.name != "x"' delete
scenario "object on DELETE, guarded" skip DELETE 'request.operation != "DELETE" && object.metadata.name != "x"' delete
scenario "oldObject on CREATE" error CREATE 'oldObject.metadata.name != "x"' create cm
scenario "oldObject on DELETE is set" call DELETE 'oldObject.metadata.name == "existing"' delete
scenario "namespaceObject read" error CREATE 'namespaceObject.metadata.name == "default"' create cm
scenario "namespaceObject is null" call CREATE 'namespaceObject == null' create cm
# Cluster-scoped requests carry no namespace at all (not ""); namespaced
# ones always do, and so do requests on namespaces (their own name).
ns() { k create namespace "$1" --dry-run=server; }
crole() { k create clusterrole "$1" --verb=get --resource=pods --dry-run=server; }
RESOURCE=namespaces scenario "request.namespace on a namespace CREATE" call CREATE 'request.namespace != "kube-system"' ns team-a
RESOURCE=namespaces scenario "has(request.namespace) on a namespace CREATE" call CREATE 'has(request.namespace)' ns team-a
GROUP=rbac.authorization.k8s.io RESOURCE=clusterroles scenario "request.namespace on a clusterrole CREATE" error CREATE 'request.namespace != "kube-system"' crole reader
scenario "request.namespace on a configmap CREATE" call CREATE 'request.namespace != "kube-system"' create cm
# generateName: the name is generated before admission, request.name is set.
generated() { k create --dry-run=server -f - <<EOF
apiVersion: v1
kind: ConfigMap
metadata: {generateName: gen-, namespace: default}
EOF
}
scenario "request.name with generateName" call CREATE 'request.name != "x"' generated
# With failurePolicy Ignore the same error silently skips the webhook.
POLICY=Ignore scenario "missing labels map, Ignore" skip CREATE 'object.metadata.labels["name"] == "x"' create cm

# policy_scenario NAME EXPECTED OPERATIONS EXPRESSION ACTION...: the same
# claims for an admission policy's matchConditions.
policy_scenario() {
  local name="$1" want="$2" ops="$3" expr="$4"; shift 4
  k apply -f - >/dev/null <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: runtime-claims
spec:
  failurePolicy: ${POLICY:-Fail}
  matchConstraints:
    resourceRules:
    - operations: [$ops]
      apiGroups: [""]
      apiVersions: [v1]
      resources: [configmaps]
  matchConditions:
  - name: under-test
    expression: '$expr'
  validations:
  - expression: "false"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: runtime-claims
spec:
  policyName: runtime-claims
  validationActions: [Deny]
EOF
  sleep 3 # the policy informers catch up
  local out got
  out="$("$@" 2>&1)" || true
  case "$out" in
    *"failed expression"*) got=call ;;
    *"resulted in error"*|*"no such key"*|*"no such"*) got=error ;;
    *created*|*deleted*) got=skip ;;
    *) got="unexpected: $out" ;;
  esac
  if [ "$got" = "$want" ]; then echo "ok    policy: $name: $got"; else echo "FAIL  policy: $name: got $got, want $want"; echo "      $out"; failed=1; fi
  k delete validatingadmissionpolicybinding runtime-claims >/dev/null
  k delete validatingadmissionpolicy runtime-claims >/dev/null
}
policy_scenario "missing labels map" error CREATE 'object.metadata.labels["name"] == "x"' create cm
policy_scenario "guarded label read" skip CREATE 'has(object.metadata.labels) && "app" in object.metadata.labels && object.metadata.labels["app"] == "x"' create cm
policy_scenario "object on DELETE" error DELETE 'object.metadata.name != "x"' delete
policy_scenario "oldObject on CREATE" error CREATE 'oldObject.metadata.name != "x"' create cm
policy_scenario "namespaceObject read (matchConditions never get it)" error CREATE 'namespaceObject.metadata.name == "default"' create cm
policy_scenario "namespaceObject is null there" call CREATE 'namespaceObject == null' create cm
policy_scenario "all conditions true" call CREATE 'request.namespace == "default"' create cm
POLICY=Ignore policy_scenario "missing labels map, Ignore" skip CREATE 'object.metadata.labels["name"] == "x"' create cm
exit "$failed"
