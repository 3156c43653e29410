#!/usr/bin/env bash
# Starts or stops the loopback etcd + kube-apiserver the end-to-end tests
# of `webhooklint cluster` run against.
#
#   hack/e2e-apiserver.sh start     fresh etcd + apiserver, waits for /readyz,
#                                   writes $E2E_DIR/kubeconfig and $E2E_DIR/env
#   hack/e2e-apiserver.sh stop      stops exactly the two processes start began
#
# Env: E2E_DIR (default /tmp/webhooklint-e2e), ETCD_PORT (32379; peer +1),
#      APISERVER_PORT (36443), KUBE_APISERVER (default
#      $HOME/.cache/kube-oracle/bin/kube-apiserver), ETCD (default: etcd on PATH,
#      Debian package etcd-server).
#
# The server keeps its watch cache for validatingwebhookconfigurations but
# not for mutatingwebhookconfigurations, so the tests exercise both paths:
# reads served from the cache, and reads served by etcd, where compacting
# etcd makes an old resourceVersion or continue token answer 410.
set -euo pipefail

E2E_DIR="${E2E_DIR:-/tmp/webhooklint-e2e}"
ETCD_PORT="${ETCD_PORT:-32379}"
APISERVER_PORT="${APISERVER_PORT:-36443}"
KUBE_APISERVER="${KUBE_APISERVER:-$HOME/.cache/kube-oracle/bin/kube-apiserver}"
ETCD="${ETCD:-$(command -v etcd || true)}"

fail() { echo "e2e-apiserver: $*" >&2; exit 1; }
running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pid() { # stop_pid PIDFILE EXE
  local pidfile="$1" exe="$2" pid
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  rm -f "$pidfile"
  kill -0 "$pid" 2>/dev/null || return 0
  # Only signal the process if it is still the program we started.
  [ "$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null)")" = "$exe" ] || return 0
  kill -TERM "$pid"
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || { echo ">> stopped $exe ($pid)"; return 0; }; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  echo ">> killed $exe ($pid)"
}

start() {
  [ -x "$KUBE_APISERVER" ] || fail "no kube-apiserver at $KUBE_APISERVER (run hack/build-kube-apiserver.sh)"
  [ -n "$ETCD" ] && [ -x "$ETCD" ] || fail "no etcd (apt-get install -y etcd-server)"
  command -v openssl >/dev/null || fail "openssl missing"
  running "$E2E_DIR/apiserver.pid" || running "$E2E_DIR/etcd.pid" && fail "already running; run: $0 stop"
  case "$E2E_DIR" in /|"") fail "refusing E2E_DIR=$E2E_DIR";; esac
  rm -rf "$E2E_DIR/pki" "$E2E_DIR/etcd" "$E2E_DIR/logs" "$E2E_DIR/kubeconfig" "$E2E_DIR/env"
  mkdir -p "$E2E_DIR/pki" "$E2E_DIR/etcd" "$E2E_DIR/logs"
  chmod 700 "$E2E_DIR"
  local pki="$E2E_DIR/pki"

  # A CA, a serving certificate for 127.0.0.1, and the service-account key
  # pair TokenRequest signs with.
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=webhooklint-e2e-ca \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
    -keyout "$pki/server.key" -out "$pki/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > "$pki/server.ext"
  openssl x509 -req -in "$pki/server.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 30 -extfile "$pki/server.ext" -out "$pki/server.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  local token; token="$(openssl rand -hex 24)"
  echo "$token,e2e-admin,e2e-admin,system:masters" > "$pki/tokens.csv"

  local etcd_url="http://127.0.0.1:$ETCD_PORT" peer="http://127.0.0.1:$((ETCD_PORT + 1))"
  setsid "$ETCD" --name e2e --data-dir "$E2E_DIR/etcd" \
    --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
    --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
    --initial-cluster "e2e=$peer" --initial-cluster-state new \
    > "$E2E_DIR/logs/etcd.log" 2>&1 < /dev/null &
  echo $! > "$E2E_DIR/etcd.pid"
  for i in $(seq 1 60); do
    curl -fsS "$etcd_url/health" 2>/dev/null | grep -q '"health":"true"' && break
    running "$E2E_DIR/etcd.pid" || { tail -5 "$E2E_DIR/logs/etcd.log" >&2; fail "etcd exited"; }
    [ "$i" = 60 ] && fail "etcd not healthy after 30s"
    sleep 0.5
  done

  setsid "$KUBE_APISERVER" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --etcd-servers="$etcd_url" \
    --tls-cert-file="$pki/server.crt" --tls-private-key-file="$pki/server.key" --cert-dir="$pki" \
    --client-ca-file="$pki/ca.crt" \
    --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc --api-audiences=https://kubernetes.default.svc \
    --token-auth-file="$pki/tokens.csv" --authorization-mode=RBAC \
    --service-cluster-ip-range=10.0.0.0/24 --endpoint-reconciler-type=none --profiling=false \
    --watch-cache-sizes=mutatingwebhookconfigurations.admissionregistration.k8s.io#0 \
    > "$E2E_DIR/logs/kube-apiserver.log" 2>&1 < /dev/null &
  echo $! > "$E2E_DIR/apiserver.pid"

  local url="https://127.0.0.1:$APISERVER_PORT" t0; t0=$(date +%s)
  until [ "$(curl -sS --cacert "$pki/ca.crt" -H "Authorization: Bearer $token" "$url/readyz" 2>/dev/null)" = ok ]; do
    running "$E2E_DIR/apiserver.pid" || { tail -20 "$E2E_DIR/logs/kube-apiserver.log" >&2; fail "kube-apiserver exited"; }
    [ $(( $(date +%s) - t0 )) -lt 180 ] || fail "kube-apiserver not ready after 180s"
    sleep 1
  done

  cat > "$E2E_DIR/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: $url
    certificate-authority-data: $(base64 -w0 < "$pki/ca.crt")
users:
- name: e2e-admin
  user:
    token: $token
contexts:
- name: e2e
  context: {cluster: e2e, user: e2e-admin}
current-context: e2e
KUBECONFIG
  chmod 600 "$E2E_DIR/kubeconfig"
  printf 'WEBHOOKLINT_E2E_KUBECONFIG=%s\nWEBHOOKLINT_E2E_ETCD=%s\n' "$E2E_DIR/kubeconfig" "$etcd_url" > "$E2E_DIR/env"
  echo ">> kube-apiserver ready at $url after $(( $(date +%s) - t0 ))s; kubeconfig $E2E_DIR/kubeconfig"
}

case "${1:-}" in
  start) start ;;
  stop) stop_pid "$E2E_DIR/apiserver.pid" kube-apiserver; stop_pid "$E2E_DIR/etcd.pid" etcd ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
