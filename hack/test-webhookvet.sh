#!/usr/bin/env bash
# Builds cmd/webhookvet and runs it the way users do,
#   go vet -vettool=$(command -v webhookvet) ./...
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
echo "ok: webhookvet reports $(($(wc -l <"$work/got") - 1)) findings as expected"
