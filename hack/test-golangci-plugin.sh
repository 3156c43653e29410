#!/usr/bin/env bash
# Builds golangci-lint with the webhooklint module plugin exactly as
# `golangci-lint custom` does, without GitHub, then runs it on the
# kubebuilder-style module analyzer/testdata/project and checks that it
# reports the same findings as go vet -vettool=webhookvet
# (analyzer/testdata/project/webhookvet.golden).
#
# Offline recipe (documented in docs/analyzer.md):
#   1. go install golangci-lint at the version pinned in .custom-gcl.yml
#      (from the Go module proxy);
#   2. `golangci-lint custom` runs `git clone --branch <version>
#      https://github.com/golangci/golangci-lint.git`. The module proxy
#      serves the same tree (the module zip of that tag), so we put it in a
#      local git repository with that tag and point the clone URL at it with
#      git's url.<base>.insteadOf, passed through GIT_CONFIG_COUNT/KEY/VALUE
#      (the environment golangci-lint keeps for git);
#   3. `golangci-lint custom` then does the rest itself: writes the plugin
#      import, go mod edit -replace, go mod tidy, go build.
#
# Building golangci-lint takes minutes on a small machine, so the binaries
# are cached in $WEBHOOKLINT_CACHE (default ~/.cache/webhooklint; the
# values that turn the linter's cache off leave the default), keyed by the
# golangci-lint version and a hash of this module's sources.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${WEBHOOKLINT_CACHE:-}
case "${cache,,}" in
'' | off | 0 | false | no) cache=${XDG_CACHE_HOME:-$HOME/.cache}/webhooklint ;;
esac
version=$(sed -n 's/^version: *//p' "$root/.custom-gcl.yml")
mkdir -p "$cache/bin"
log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }

# 1. golangci-lint itself.
gcl=$cache/bin/golangci-lint-$version
if [[ ! -x $gcl ]]; then
	log "installing golangci-lint $version"
	GOBIN=$cache/gobin-$version go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"
	mv "$cache/gobin-$version/golangci-lint" "$gcl"
	rmdir "$cache/gobin-$version"
fi

# The custom binary depends on the plugin's packages in this module and on
# the module's dependencies.
key=$(
	cd "$root"
	{
		echo "$version"
		cat go.mod go.sum .custom-gcl.yml
		go list -deps -f '{{if .Module}}{{if .Module.Main}}{{range .GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}' ./analyzer/gclplugin |
			LC_ALL=C sort | xargs sha256sum
	} | sha256sum | cut -c1-16
)
custom=$cache/bin/custom-gcl-$version-$key

# 2. + 3. golangci-lint custom against a local mirror of the tag.
if [[ ! -x $custom ]]; then
	mirror=$cache/golangci-lint-$version.git
	if [[ ! -d $mirror ]]; then
		log "mirroring golangci-lint $version from the Go module proxy"
		src=$(go mod download -json "github.com/golangci/golangci-lint/v2@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
		tmp=$(mktemp -d)
		cp -R "$src/." "$tmp"
		chmod -R u+w "$tmp"
		git -C "$tmp" init -q
		git -C "$tmp" add -A
		git -C "$tmp" -c user.name=webhooklint -c user.email=ci@invalid commit -q -m "golangci-lint $version (module zip)"
		git -C "$tmp" tag "$version"
		git clone -q --bare "$tmp" "$mirror"
		rm -rf "$tmp"
	fi
	log "building custom golangci-lint (golangci-lint custom, takes minutes the first time)"
	out=$(mktemp -d)
	(
		cd "$root"
		GIT_CONFIG_COUNT=1 \
			GIT_CONFIG_KEY_0="url.file://$mirror.insteadOf" \
			GIT_CONFIG_VALUE_0="https://github.com/golangci/golangci-lint.git" \
			"$gcl" custom -v --destination "$out" --name custom-gcl
	)
	# Keep one custom binary per version: older ones are for older sources.
	rm -f "$cache/bin/custom-gcl-$version-"*
	mv "$out/custom-gcl" "$custom"
	rm -rf "$out"
fi
log "using $custom"

# Run it on the testdata module and compare with what go vet reports.
project=$root/analyzer/testdata/project
work=$(mktemp -d)
mkdir -p "$work/fix"
trap 'rm -rf "$work"' EXIT
# golangci-lint caches results per package and does not notice that the
# plugin changed: start from an empty cache so the run sees this code.
export GOLANGCI_LINT_CACHE=$work/cache
set +e
(cd "$project" && GOFLAGS=-mod=readonly GOWORK=off "$custom" run --allow-parallel-runners \
	--output.text.path=stdout --output.text.print-issued-lines=false --output.text.colors=false \
	--show-stats=false ./...) >"$work/out" 2>"$work/err"
status=$?
set -e
if [[ $status != 1 ]]; then
	cat "$work/out" "$work/err" >&2
	echo "FAIL: custom golangci-lint exited $status, want 1 (issues found)" >&2
	exit 1
fi
# golangci-lint appends " (webhooklint)": the linter, which is the plugin.
grep -E '^[^ ]+\.go:[0-9]+:[0-9]+: ' "$work/out" | sed 's/ (webhooklint)$//' | LC_ALL=C sort >"$work/got"
tail -n +2 "$project/webhookvet.golden" >"$work/want"
if ! diff -u "$work/want" "$work/got"; then
	echo "FAIL: golangci-lint with the webhooklint plugin does not report what go vet does" >&2
	exit 1
fi
echo "ok: custom golangci-lint reports the $(wc -l <"$work/got") webhookvet findings"

# golangci-lint --fix applies the analyzer's suggested fixes: the marker
# that lacks sideEffects gets sideEffects=None.
cp -R "$project/." "$work/fix"
(cd "$work/fix" && GOFLAGS=-mod=readonly GOWORK=off "$custom" run --allow-parallel-runners --fix ./... >/dev/null 2>&1) || true
if ! grep -q 'name=vpod-v1.kb.io,admissionReviewVersions=v1,sideEffects=None$' "$work/fix/internal/webhook/v1/guestbook_webhook.go"; then
	echo "FAIL: golangci-lint --fix did not add sideEffects=None to the marker" >&2
	exit 1
fi
echo "ok: golangci-lint --fix applies the marker fix"
