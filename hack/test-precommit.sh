#!/usr/bin/env bash
# Tests .pre-commit-hooks.yaml with the real pre-commit: in a temporary git
# repository, the webhooklint hook must fail on a bad manifest, printing
# positioned findings, and pass on a good one. pre-commit builds the hook
# with `go install ./...` (language: golang) from a commit of this
# repository's working tree (uncommitted changes included), as try-repo
# would, but into PRE_COMMIT_HOME, where the test then checks that it
# installed webhooklint and webhookvet and no development tool.
#
# Installs: the Debian package pre-commit (apt-get) when it is missing.
# Needs: git, go (modules come from the module proxy or the local cache).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v pre-commit >/dev/null; then
	echo "test-precommit: installing pre-commit (apt)"
	apt-get install -y pre-commit >/dev/null || { apt-get update >/dev/null && apt-get install -y pre-commit >/dev/null; }
fi
echo "test-precommit: $(pre-commit --version)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private pre-commit home, so the hook is built from this tree and not
# taken from an earlier run; the shared module cache avoids downloading
# the dependencies again (pre-commit points GOPATH at its own folder).
export PRE_COMMIT_HOME="$work/pre-commit-home"
export GOMODCACHE=${GOMODCACHE:-$(go env GOMODCACHE)}
export GOFLAGS="${GOFLAGS:-} -modcacherw"

repo="$work/repo"
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.email test@example.com
git -C "$repo" config user.name test
git -C "$repo" config commit.gpgsign false

# The working tree as one commit (try-repo's shadow repository; try-repo
# itself installs into a store it deletes afterwards).
shadow="$work/shadow"
mkdir -p "$shadow"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$shadow"
git -C "$shadow" init -q
git -C "$shadow" add -A
git -C "$shadow" -c user.email=test@example.com -c user.name=test -c commit.gpgsign=false commit -qm tree
cat >"$work/hooks.yaml" <<EOF
repos:
  - repo: $shadow
    rev: $(git -C "$shadow" rev-parse HEAD)
    hooks:
      - id: webhooklint
EOF

run_hook() {
	(cd "$repo" && pre-commit run -c "$work/hooks.yaml" webhooklint --all-files --color never) >"$work/out" 2>&1
}

fail() {
	echo "test-precommit: FAIL: $*" >&2
	echo "--- pre-commit output:" >&2
	cat "$work/out" >&2
	exit 1
}

# 1. A bad manifest: the hook fails and prints file:line:col findings.
mkdir -p "$repo/deploy"
cp "$root/testdata/integrations/bad/webhooks.yaml" "$repo/deploy/webhooks.yaml"
printf '{"name": "not-a-manifest", "version": "1.0.0"}\n' >"$repo/package.json"
git -C "$repo" add -A && git -C "$repo" commit -qm bad
if run_hook; then
	fail "the hook passed on a bad manifest"
fi
grep -Eq '^webhooklint\.+Failed$' "$work/out" || fail "no 'webhooklint...Failed' line"
grep -q 'deploy/webhooks.yaml:23:5: error: unknown field "webhooks\[0\].timeoutSecond"' "$work/out" ||
	fail "no positioned finding for deploy/webhooks.yaml:23:5"
# pre-commit's golang language runs `go install ./...`: the two commands,
# not the development tools (they build only with -tags devtools).
built=$(find "$PRE_COMMIT_HOME" -path '*/golangenv-*/bin/*' -type f -printf '%f\n' | sort | tr '\n' ' ')
[ "$built" = "webhooklint webhookvet " ] || fail "go install ./... built: '$built', want webhooklint and webhookvet"
echo "test-precommit: the golang hook installed: $built"
echo "test-precommit: bad manifest: hook failed with:"
grep -E '^deploy/' "$work/out" | sed 's/^/    /'

# 2. The same repository fixed: the hook passes.
cp "$root/testdata/integrations/good/webhooks.yaml" "$repo/deploy/webhooks.yaml"
git -C "$repo" add -A && git -C "$repo" commit -qm good
run_hook || fail "the hook failed on a good manifest"
grep -Eq '^webhooklint\.+Passed$' "$work/out" || fail "no 'webhooklint...Passed' line"
echo "test-precommit: good manifest: hook passed"

# 3. The language: system hook runs the webhooklint on PATH (a release
# binary in real use; here one built from this tree).
(cd "$root" && go build -o "$work/bin/webhooklint" ./cmd/webhooklint)
cp "$root/testdata/integrations/bad/webhooks.yaml" "$repo/deploy/webhooks.yaml"
git -C "$repo" add -A && git -C "$repo" commit -qm bad-again
if (cd "$repo" && PATH="$work/bin:$PATH" pre-commit try-repo "$root" webhooklint-system --all-files --color never) >"$work/out" 2>&1; then
	fail "the system hook passed on a bad manifest"
fi
grep -q 'deploy/webhooks.yaml:23:5: error: unknown field "webhooks\[0\].timeoutSecond"' "$work/out" ||
	fail "the system hook printed no positioned finding"
echo "test-precommit: system hook: failed on the bad manifest with findings"

# 4. The docker_image hook cannot run without a Docker engine; pre-commit
# still checks its manifest entry (hack/test-image.sh tests the image).
pre-commit validate-manifest "$root/.pre-commit-hooks.yaml" >"$work/out" 2>&1 || fail "pre-commit rejects .pre-commit-hooks.yaml"
grep -q 'language: docker_image' "$root/.pre-commit-hooks.yaml" || fail "no docker_image hook"
echo "test-precommit: 4 passed, 0 failed"
