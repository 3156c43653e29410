#!/usr/bin/env bash
# Runs the composite GitHub Action (action.yml) as the Actions runner would,
# on this machine, and checks its annotations, SARIF, outputs and job
# summary: internal/actiontest, with the release artefacts and the build
# fallback built by hack/release (WEBHOOKLINT_ACTION_BUILD=1; go test ./...
# alone uses the test binary as the release). Needs bash and go; installs
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
WEBHOOKLINT_ACTION_BUILD=1 go test -count=1 -timeout 60m -v ./internal/actiontest
