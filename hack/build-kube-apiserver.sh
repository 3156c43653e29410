#!/usr/bin/env bash
# Builds kube-apiserver from the Go module proxy for the end-to-end tests,
# unless the cache already holds a binary of the wanted version.
#
#   hack/build-kube-apiserver.sh [vX.Y.Z]       (default v1.37.2)
#
# k8s.io/kubernetes is not meant to be imported: its go.mod replaces every
# k8s.io/* staging module with a directory that the module zip does not
# contain. A throwaway main module that requires k8s.io/kubernetes and
# replaces each staging module with its published v0.Y.Z copy builds it.
#
# Env: KUBE_CACHE (default $HOME/.cache/kube-oracle): bin/ and build/ live there.
# Cold build: ~15 min on 2 cores; with the binary present: instant.
set -euo pipefail

VERSION="${1:-${KUBE_VERSION:-v1.37.2}}"
CACHE="${KUBE_CACHE:-$HOME/.cache/kube-oracle}"
BIN="$CACHE/bin/kube-apiserver"
WORK="$CACHE/build"

if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "Kubernetes $VERSION" ]; then
  echo ">> $BIN is already $VERSION; nothing to build"
  exit 0
fi

mkdir -p "$CACHE/bin" "$WORK"
export GOFLAGS="${GOFLAGS:-} -mod=mod"

echo ">> fetching k8s.io/kubernetes@$VERSION from the module proxy"
KMOD="$(cd /tmp && go mod download -json "k8s.io/kubernetes@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -f "$KMOD/go.mod" ] || { echo "build-kube-apiserver: no go.mod for k8s.io/kubernetes@$VERSION" >&2; exit 1; }

GOVER="$(awk '$1 == "go" { print $2; exit }' "$KMOD/go.mod")"
STAGING="$(awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "$KMOD/go.mod")"
[ -n "$STAGING" ] || { echo "build-kube-apiserver: no staging replacements in $KMOD/go.mod" >&2; exit 1; }
STAGING_VERSION="v0.${VERSION#v1.}"

cd "$WORK"
{
  printf 'module kubeapiserverbuild\n\ngo %s\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$GOVER" "$VERSION"
  for m in $STAGING; do printf '\t%s => %s %s\n' "$m" "$m" "$STAGING_VERSION"; done
  printf ')\n'
} > go.mod
rm -f go.sum
go get "k8s.io/kubernetes/cmd/kube-apiserver@$VERSION"

# The version stamps hack/lib/version.sh would set, so /version and the
# emulation-version logic see a release.
MINOR="${VERSION#v1.}"; MINOR="${MINOR%%.*}"
STAMP="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  STAMP="$STAMP -X $pkg.gitVersion=$VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR"
done
STAMP="$STAMP -X k8s.io/component-base/version.gitTreeState=clean"

echo ">> building kube-apiserver $VERSION (cold: ~15 min on 2 cores)"
start=$(date +%s)
CGO_ENABLED=0 go build -trimpath -ldflags="$STAMP" -o "$BIN.tmp" k8s.io/kubernetes/cmd/kube-apiserver
mv "$BIN.tmp" "$BIN"
echo ">> built $BIN in $(( $(date +%s) - start ))s: $("$BIN" --version)"
