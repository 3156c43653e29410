#!/usr/bin/env bash
# Builds the flux CLI from the Go module proxy for TestFluxBuildEquivalence
# (source/gitops_flux_test.go), unless the cache already holds a binary of
# the wanted version, and prints the folder that holds it (for PATH).
#
#   hack/flux-cli.sh [vX.Y.Z]       (default v2.9.5)
#
# `go install github.com/fluxcd/flux2/v2/cmd/flux@VERSION` is refused: the
# module's go.mod has a replace directive. So cmd/flux is built inside a
# copy of the downloaded module, with one placeholder YAML file in
# cmd/flux/manifests: the release build fills that folder with the install
# bundle (fetched from remote releases) that `flux install` embeds, and
# `flux build kustomization` never reads it. The module zip is pinned by
# the module proxy's checksum database and its go.sum pins the
# dependencies; -trimpath and a fixed version stamp make the binary the
# same on every machine with the same Go toolchain.
#
# Env: FLUX_CACHE (default $XDG_CACHE_HOME/webhooklint-tools or
# ~/.cache/webhooklint-tools): flux-VERSION/bin/flux lives there.
# Cold build: ~7 min on 2 cores; with the binary present: instant.
# Output: the bin folder on stdout; progress on stderr.
set -euo pipefail

VERSION="${1:-${FLUX_VERSION:-v2.9.5}}"
CACHE="${FLUX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/webhooklint-tools}/flux-$VERSION"
BIN="$CACHE/bin/flux"

if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qx "flux version ${VERSION#v}"; then
  echo ">> $BIN is already $VERSION; nothing to build" >&2
  echo "$CACHE/bin"
  exit 0
fi

echo ">> fetching github.com/fluxcd/flux2/v2@$VERSION from the module proxy" >&2
MOD="$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "github.com/fluxcd/flux2/v2@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -f "$MOD/cmd/flux/main.go" ] || { echo "flux-cli: no cmd/flux in github.com/fluxcd/flux2/v2@$VERSION" >&2; exit 1; }

# The module cache is read-only: build in a copy, thrown away afterwards.
mkdir -p "$CACHE/bin"
WORK="$(mktemp -d "$CACHE/build.XXXXXX")"
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
cp -R "$MOD/." "$WORK/"
chmod -R u+w "$WORK"
mkdir -p "$WORK/cmd/flux/manifests"
printf '# Placeholder: the install bundle is not embedded in this build.\n' > "$WORK/cmd/flux/manifests/placeholder.yaml"

echo ">> building flux $VERSION (cold: ~7 min on 2 cores)" >&2
start=$(date +%s)
(cd "$WORK" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath \
  -ldflags="-s -w -X main.VERSION=${VERSION#v}" -o "$BIN.tmp" ./cmd/flux)
mv "$BIN.tmp" "$BIN"
echo ">> built $BIN in $(( $(date +%s) - start ))s: $("$BIN" --version)" >&2
echo "$CACHE/bin"
