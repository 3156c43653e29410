#!/usr/bin/env bash
# Regenerates internal/openapi/kube.bundle, the schemas match-condition-fields
# types webhook matchConditions with, from a real kube-apiserver: it starts
# one on loopback (hack/e2e-apiserver.sh), fetches /version, aggregated
# discovery (/api, /apis) and every /openapi/v3 group-version document, and
# compacts them (go run -tags devtools ./internal/openapi/gen). For a new Kubernetes
# version, build that kube-apiserver first (hack/build-kube-apiserver.sh
# vX.Y.Z) and point KUBE_APISERVER at it.
#
#   hack/gen-openapi.sh            (also: go generate ./internal/openapi)
#
# Env: E2E_DIR (default /tmp/webhooklint-openapi), ETCD_PORT (62379),
#      APISERVER_PORT (26443), KUBE_APISERVER, KEEP (directory to keep the
#      fetched documents in; default: a temporary one).
set -euo pipefail
cd "$(dirname "$0")/.."

export E2E_DIR="${E2E_DIR:-/tmp/webhooklint-openapi}"
export ETCD_PORT="${ETCD_PORT:-62379}"
export APISERVER_PORT="${APISERVER_PORT:-26443}"
KUBE_APISERVER="${KUBE_APISERVER:-$HOME/.cache/kube-oracle/bin/kube-apiserver}"
export KUBE_APISERVER
[ -x "$KUBE_APISERVER" ] || { echo "gen-openapi: no kube-apiserver at $KUBE_APISERVER (run hack/build-kube-apiserver.sh)" >&2; exit 1; }
command -v jq >/dev/null || { echo "gen-openapi: jq missing (apt-get install -y jq)" >&2; exit 1; }

hack/e2e-apiserver.sh start
trap 'hack/e2e-apiserver.sh stop' EXIT

out="${KEEP:-$(mktemp -d)}"
mkdir -p "$out/openapi"
url="https://127.0.0.1:$APISERVER_PORT"
token="$(cut -d, -f1 "$E2E_DIR/pki/tokens.csv")"
get() { curl -fsS --cacert "$E2E_DIR/pki/ca.crt" -H "Authorization: Bearer $token" "$@"; }

get "$url/version" > "$out/version.json"
aggregated='Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
get -H "$aggregated" "$url/api" > "$out/discovery-api.json"
get -H "$aggregated" "$url/apis" > "$out/discovery-apis.json"
get "$url/openapi/v3" > "$out/openapi-index.json"
n=0
while IFS=$'\t' read -r path rel; do
  # api/v1 -> api__v1_openapi.json, as in kubernetes' api/openapi-spec/v3
  get "$url$rel" > "$out/openapi/${path//\//__}_openapi.json"
  n=$((n + 1))
done < <(jq -r '.paths | to_entries[] | select(.key | test("^apis?/.+/")or test("^api/v1$")) | [.key, .value.serverRelativeURL] | @tsv' "$out/openapi-index.json")
echo ">> fetched $n OpenAPI v3 documents from $(jq -r .gitVersion "$out/version.json") into $out"

go run -tags devtools ./internal/openapi/gen -in "$out" -out internal/openapi/kube.bundle
