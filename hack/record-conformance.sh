#!/usr/bin/env bash
# Record the real API server's verdict for every document of the conformance
# corpus (testdata/conformance/*.yaml) into testdata/conformance/verdicts/,
# and of the fuzz differential set (testdata/conformance/fuzz/*.yaml) into
# testdata/conformance/fuzz/verdicts/: a file's verdicts go to the verdicts
# folder next to it.
#
#   hack/record-conformance.sh                 # all corpus and fuzz files
#   hack/record-conformance.sh FILE.yaml...    # only these
#
# It starts a throwaway etcd + kube-apiserver with the oracle scripts (a copy
# of them, so the shared oracle folder stays read-only), asks for a
# server-side dry-run create of each document with fieldValidation=Strict,
# and stops the server again. Re-run it after building the oracle for a new
# Kubernetes version (oracle build.sh vX.Y.Z) to re-record the corpus.
#
# A corpus file may start with a header line
#   # conformance: {"kubeVersion":"1.36","apiserverFlags":"--emulated-version=1.36"}
# Files with the same apiserverFlags are recorded by one server started with
# those extra flags; files without a header use a plain server.
#
# Env (all optional):
#   WEBHOOKLINT_ORACLE  oracle scripts (start.sh, stop.sh, verdict.sh)   default <repo>/../shared/oracle
#   ORACLE_BIN          kube-apiserver, kubectl, verdict binaries         default $HOME/.cache/kube-oracle/bin
#   ETCD_PORT           etcd client port (peer = +1)                      default 22379
#   APISERVER_PORT      kube-apiserver port                               default 26443
#
# Output, one file per corpus file: verdicts/<name>.jsonl, one JSON line per
# document in file order: doc (0-based among non-empty documents), apiVersion,
# kind, name, accepted, code, reason, stage, message, warnings, causes
# [{field, reason, message}] (see testdata/conformance/README.md).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE_SRC="${WEBHOOKLINT_ORACLE:-$REPO/../shared/oracle}"
CORPUS="$REPO/testdata/conformance"
export ETCD_PORT="${ETCD_PORT:-22379}"
export APISERVER_PORT="${APISERVER_PORT:-26443}"

die() { echo "record-conformance: $*" >&2; exit 1; }
[ -x "$ORACLE_SRC/start.sh" ] || die "no oracle at $ORACLE_SRC (set WEBHOOKLINT_ORACLE)"
command -v jq >/dev/null || die "jq is required"

if [ $# -gt 0 ]; then
  files=("$@")
else
  files=("$CORPUS"/*.yaml "$CORPUS"/fuzz/*.yaml)
fi
[ ${#files[@]} -gt 0 ] || die "no corpus files"

WORK="$(mktemp -d /tmp/webhooklint-record.XXXXXX)"
# -p keeps modification times, so verdict.sh does not rebuild its binary.
cp -rp "$ORACLE_SRC" "$WORK/oracle"
chmod -R u+w "$WORK/oracle"
export ORACLE_DIR="$WORK/state"
running=""
cleanup() {
  if [ -n "$running" ]; then "$WORK/oracle/stop.sh" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

flags_of() { # the apiserverFlags of a corpus file's header, or ""
  local first
  first="$(head -1 "$1")"
  case "$first" in
    "# conformance: "*) jq -r '.apiserverFlags // ""' <<<"${first#\# conformance: }" ;;
    *) echo "" ;;
  esac
}

# Group the files by server flags, then record each group with one server.
declare -A groups=()
for f in "${files[@]}"; do
  [ -f "$f" ] || die "no such file: $f"
  key="flags:$(flags_of "$f")" # bash forbids an empty key
  groups["$key"]+="$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"$'\n'
done

declare -A outs=() # the verdicts folders written
for key in "${!groups[@]}"; do
  echo ">> recording with apiserver flags '${key#flags:}'" >&2
  APISERVER_EXTRA_FLAGS="${key#flags:}" "$WORK/oracle/start.sh" >&2
  running=1
  export KUBECONFIG="$ORACLE_DIR/kubeconfig"
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    name="$(basename "$f" .yaml)"
    OUT="$(dirname "$f")/verdicts"
    mkdir -p "$OUT"
    outs["$OUT"]=1
    # One request at a time keeps the server's answers independent of timing.
    "$WORK/oracle/verdict.sh" -j 1 -field-validation=Strict "$f" \
      | jq -c 'del(.file)' > "$OUT/$name.jsonl.tmp"
    mv "$OUT/$name.jsonl.tmp" "$OUT/$name.jsonl"
    echo "   $name: $(wc -l < "$OUT/$name.jsonl") documents, $(grep -c '"accepted":true' "$OUT/$name.jsonl" || true) accepted" >&2
  done <<<"${groups[$key]}"
  "$WORK/oracle/stop.sh" >&2
  running=""
done

# Record which server produced the verdicts.
for OUT in "${!outs[@]}"; do
  "${ORACLE_BIN:-$HOME/.cache/kube-oracle/bin}/kube-apiserver" --version > "$OUT/SERVER_VERSION"
done
