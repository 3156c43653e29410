#!/usr/bin/env bash
# Smoke test of the release build, for CI: builds the linux/amd64 release
# artefacts (a snapshot version, nothing published) twice, the second time
# from a copy of the tree at another path, and fails unless both builds are
# byte-identical (binary, archive, checksums.txt). Then checks the archive
# against checksums.txt with sha256sum, that the binary is static and
# prints its version. One target only: each costs minutes of CPU; the
# release workflow builds all six.
# Needs go, git, sha256sum, readelf.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=v0.0.0-snapshot
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "release-smoke: FAIL: $*" >&2; exit 1; }

SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH

(cd "$root" && go run -tags devtools ./hack/release -version "$version" -targets linux/amd64 -out "$work/a")

# The same sources at another path (tracked and untracked, not ignored).
mkdir "$work/tree"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$work/tree"
(cd "$work/tree" && go run -tags devtools ./hack/release -version "$version" -targets linux/amd64 -out "$work/b") >/dev/null

asset=webhooklint_${version#v}_linux_amd64.tar.gz
for f in checksums.txt "$asset" bin/linux_amd64/webhooklint; do
	cmp -s "$work/a/$f" "$work/b/$f" || fail "$f differs between two builds of the same commit"
done
echo "release-smoke: reproducible: two builds from $root and $work/tree agree:"
(cd "$work/a" && sha256sum "$asset" bin/linux_amd64/webhooklint | sed 's/^/    /')

(cd "$work/a" && sha256sum -c checksums.txt) || fail "checksums.txt does not verify"
bin="$work/a/bin/linux_amd64/webhooklint"
if readelf -l "$bin" | grep -q 'Requesting program interpreter'; then fail "the binary is dynamically linked"; fi
[[ $("$bin" --version) == "webhooklint $version" ]] || fail "--version prints $("$bin" --version)"
listing=$(tar -tzvf "$work/a/$asset")
grep -q ' 0/0 .* webhooklint$' <<<"$listing" || fail "archive entry not owned by 0/0: $listing"
echo "release-smoke: binary $(du -h "$bin" | cut -f1), archive $(du -h "$work/a/$asset" | cut -f1); static; --version ok"
