#!/usr/bin/env bash
# Tests the VS Code extension in editors/vscode without VS Code (which
# cannot be downloaded here): npm ci from the lockfile, tsc's type check,
# the esbuild bundle (dist/extension.js), node:test (the bundle needs
# nothing but vscode and Node's modules; the extension loaded with a stub
# of the vscode module; a protocol round trip with the webhooklint server
# built from this tree), then vsce package, which checks the manifest and
# writes the .vsix, and a look inside it: the bundle, no node_modules.
#
# Installs: the Debian packages nodejs and npm (apt-get) when npm is
# missing, unzip when it is. Needs: go, and the npm registry (or npm's
# cache).
# VSIX=path keeps the package (default: a temporary file, removed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v npm >/dev/null; then
	echo "test-vscode: installing nodejs and npm (apt)"
	apt-get install -y nodejs npm >/dev/null || { apt-get update >/dev/null && apt-get install -y nodejs npm >/dev/null; }
fi
if ! command -v unzip >/dev/null; then
	echo "test-vscode: installing unzip (apt)"
	apt-get install -y unzip >/dev/null || { apt-get update >/dev/null && apt-get install -y unzip >/dev/null; }
fi
echo "test-vscode: node $(node --version), npm $(npm --version)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/webhooklint" "$root/cmd/webhooklint"

cd "$root/editors/vscode"
npm ci --no-audit --no-fund
npx --no-install tsc -p . # types only: tsconfig.json says noEmit
node esbuild.js
# CI=true: the round trip fails rather than skips without a server.
CI=true WEBHOOKLINT_BIN="$work/webhooklint" node --test test/
vsix=${VSIX:-$work/webhooklint.vsix}
npx --no-install vsce package --skip-license -o "$vsix"

# The package's code is the bundle alone: no node_modules, no other script.
files=$(unzip -Z1 "$vsix")
if ! grep -qx 'extension/dist/extension.js' <<<"$files"; then
	echo "test-vscode: $vsix lacks extension/dist/extension.js" >&2
	exit 1
fi
if grep -E '(^|/)node_modules/|\.js$' <<<"$files" | grep -vx 'extension/dist/extension.js'; then
	echo "test-vscode: $vsix holds the files above besides the bundle" >&2
	exit 1
fi
echo "test-vscode: $vsix: $(wc -l <<<"$files") files, $(wc -c <"$vsix") bytes"
