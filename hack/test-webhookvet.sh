#!/usr/bin/env bash
# Builds cmd/webhookvet and runs it the way users do,
#   go vet -vettool=$(command -v webhookvet) ./...
# (and standalone, webhookvet ./... and webhookvet -fix ./...)
# over the kubebuilder-style module in analyzer/testdata/project (its own
# go.mod and go.sum; dependencies come from the Go module cache/proxy), then
# compares the findings with analyzer/testdata/project/webhookvet.golden.
#
#   hack/test-webhookvet.sh            check
#   UPDATE=1 hack/test-webhookvet.sh   rewrite the golden file (review the diff!)
#
# The golden file holds every diagnostic of every registered rule, so a new
# or changed rule that fires on the project shows up here as a diff.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
project=$root/analyzer/testdata/project
golden=$project/webhookvet.golden
work=$(mktemp -d)
mkdir -p "$work/fix"
trap 'rm -rf "$work"' EXIT

go build -o "$work/webhookvet" "$root/cmd/webhookvet"

cd "$project"
set +e
GOFLAGS=-mod=readonly GOWORK=off go vet -vettool="$work/webhookvet" ./... 2>"$work/stderr"
status=$?
set -e

# go vet prints "# package" headers and runs packages in parallel: keep the
# diagnostics only, in a stable order.
{
	echo "exit status $status"
	grep -v '^#' "$work/stderr" | LC_ALL=C sort
} >"$work/got"

if [[ ${UPDATE:-} == 1 ]]; then
	cp "$work/got" "$golden"
	echo "updated $golden"
	exit 0
fi
if ! diff -u "$golden" "$work/got"; then
	echo "FAIL: webhookvet findings differ from $golden (UPDATE=1 $0 to accept)" >&2
	exit 1
fi
echo "ok: go vet -vettool=webhookvet reports $(($(wc -l <"$work/got") - 1)) findings as expected"

# Standalone (the binary loads the packages itself): the same findings,
# with absolute paths; exit status 3 means "diagnostics reported".
set +e
GOFLAGS=-mod=readonly GOWORK=off "$work/webhookvet" ./... 2>"$work/standalone"
status=$?
set -e
sed "s|^$project/||" "$work/standalone" | LC_ALL=C sort >"$work/standalone.got"
if [[ $status != 3 ]] || ! diff -u <(tail -n +2 "$golden") "$work/standalone.got"; then
	echo "FAIL: webhookvet ./... (exit $status) differs from go vet -vettool" >&2
	exit 1
fi
echo "ok: webhookvet ./... reports the same findings"

# Info findings are shown only when asked for (go vet fails on any finding):
# the markers generate the kustomize base, so system-critical-scope on the
# configmaps webhook is info, and a kustomize-base note says where the fix
# goes.
set +e
(cd "$project" && GOFLAGS=-mod=readonly GOWORK=off go vet -vettool="$work/webhookvet" -min-severity=info ./... 2>"$work/info")
set -e
if ! grep -q '^internal/webhook/v1/cronjob_webhook.go:14:4: info: fails closed on kube-system configmaps; .*\[system-critical-scope\]$' "$work/info" ||
	! grep -q '^internal/webhook/v1/cronjob_webhook.go:14:4: info: markers generate the kustomize base config/webhook: 1 finding at info; make the fix in a kustomize patch, not in the markers \[kustomize-base\]$' "$work/info"; then
	cat "$work/info" >&2
	echo "FAIL: -min-severity=info does not show the marker's base finding at info" >&2
	exit 1
fi
echo "ok: -min-severity=info adds the info findings"

# A bad flag value is said once for each vetted package, in one line, and
# not for the packages they depend on (go vet runs the tool on those too).
set +e
(cd "$project" && GOFLAGS=-mod=readonly GOWORK=off go vet -vettool="$work/webhookvet" -disable=no-such-rule ./... 2>"$work/usage")
status=$?
set -e
packages=$(cd "$project" && GOFLAGS=-mod=readonly GOWORK=off go list ./... | wc -l)
errors=$(grep -c '^webhookvet: invalid value "no-such-rule" for flag -disable: unknown rule "no-such-rule"' "$work/usage" || true)
if [[ $status == 0 || $errors != "$packages" || $(grep -cv -e '^#' -e '^webhookvet: ' "$work/usage") != 0 ]]; then
	cat "$work/usage" >&2
	echo "FAIL: a bad -disable value should give one line for each of the $packages packages (exit $status, $errors lines)" >&2
	exit 1
fi
echo "ok: a bad -disable value is one line for each of the $packages vetted packages"

# -fix applies the suggested fixes: the marker without sideEffects gets None.
cp -R "$project/." "$work/fix"
(cd "$work/fix" && GOFLAGS=-mod=readonly GOWORK=off "$work/webhookvet" -fix ./... >/dev/null 2>&1) || true
if ! grep -q 'name=vpod-v1.kb.io,admissionReviewVersions=v1,sideEffects=None$' "$work/fix/internal/webhook/v1/guestbook_webhook.go"; then
	echo "FAIL: webhookvet -fix did not add sideEffects=None to the marker" >&2
	exit 1
fi
echo "ok: webhookvet -fix applies the marker fix"
