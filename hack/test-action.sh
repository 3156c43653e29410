#!/usr/bin/env bash
# Runs the composite GitHub Action (action.yml) as the Actions runner would,
# on this machine, and checks its annotations, SARIF, outputs and job
# summary: internal/actiontest. Needs bash and go; installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -v ./internal/actiontest
