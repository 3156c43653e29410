#!/usr/bin/env bash
# Tests the VS Code extension in editors/vscode without VS Code (which
# cannot be downloaded here): npm ci from the lockfile, the TypeScript
# build, node:test (the extension loaded with a stub of the vscode module,
# and a protocol round trip with the webhooklint server built from this
# tree), then vsce package, which checks the manifest and writes the .vsix.
#
# Installs: the Debian packages nodejs and npm (apt-get) when npm is
# missing. Needs: go, and the npm registry (or npm's cache).
# VSIX=path keeps the package (default: a temporary file, removed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v npm >/dev/null; then
	echo "test-vscode: installing nodejs and npm (apt)"
	apt-get install -y nodejs npm >/dev/null || { apt-get update >/dev/null && apt-get install -y nodejs npm >/dev/null; }
fi
echo "test-vscode: node $(node --version), npm $(npm --version)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/webhooklint" "$root/cmd/webhooklint"

cd "$root/editors/vscode"
npm ci --no-audit --no-fund
npx --no-install tsc -p .
# CI=true: the round trip fails rather than skips without a server.
CI=true WEBHOOKLINT_BIN="$work/webhooklint" node --test test/
npx --no-install vsce package --skip-license -o "${VSIX:-$work/webhooklint.vsix}"
