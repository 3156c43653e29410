#!/usr/bin/env bash
# End-to-end tests of `webhooklint cluster` against a real kube-apiserver:
# builds it if the cache lacks it, starts it with etcd on loopback, runs the
# e2e tests, and stops it whatever happened.
#
#   hack/e2e-cluster.sh [go test flags...]
#
# Needs: Go, etcd + etcdctl (Debian etcd-server, etcd-client), openssl, curl.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE/.."
export E2E_DIR="${E2E_DIR:-/tmp/webhooklint-e2e}"
for tool in go etcd etcdctl openssl curl; do
  command -v "$tool" >/dev/null || { echo "e2e-cluster: $tool missing (etcd: apt-get install -y etcd-server etcd-client)" >&2; exit 1; }
done

"$HERE/build-kube-apiserver.sh"
trap '"$HERE/e2e-apiserver.sh" stop' EXIT
"$HERE/e2e-apiserver.sh" start
set -a; . "$E2E_DIR/env"; set +a
go test -count=1 -run 'E2E' "$@" ./cluster/
