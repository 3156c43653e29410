#!/usr/bin/env bash
# Validates webhooklint's SARIF output the way CI must:
#   1. with the SARIF Multitool's `validate` (npm @microsoft/sarif-multitool),
#      failing on any error- or warning-level validation result;
#   2. against the SARIF 2.1.0 JSON schema, in Go (report/sarif_test.go),
#      after checking that the vendored schema is still the one the
#      Multitool ships.
# Logs validated: the golden logs of report/testdata/sarif and the logs the
# real binary writes for each folder of testdata/integrations.
#
# Installs: @microsoft/sarif-multitool (npm, pinned) into $SARIF_TOOLS_DIR
# (default: $XDG_CACHE_HOME/webhooklint-tools or ~/.cache/...). Needs go, node, npm.
set -euo pipefail

MULTITOOL_VERSION=5.7.0
root=$(cd "$(dirname "$0")/.." && pwd)
tools=${SARIF_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/webhooklint-tools/sarif-multitool-$MULTITOOL_VERSION}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mt_pkg="$tools/node_modules/@microsoft/sarif-multitool-linux"
if [[ ! -x "$mt_pkg/Sarif.Multitool" ]]; then
	echo "validate-sarif: installing @microsoft/sarif-multitool@$MULTITOOL_VERSION into $tools"
	mkdir -p "$tools"
	npm install --prefix "$tools" --no-audit --no-fund --no-save \
		"@microsoft/sarif-multitool@$MULTITOOL_VERSION" "@microsoft/sarif-multitool-linux@$MULTITOOL_VERSION" >&2
	# npm may skip the package's postinstall (which only sets this bit).
	chmod u+x "$mt_pkg/Sarif.Multitool"
fi
multitool="$mt_pkg/Sarif.Multitool"

# The vendored schema must be the Multitool's own, byte for byte.
if ! cmp -s "$mt_pkg/sarif-2.1.0.json" "$root/report/testdata/sarif-schema-2.1.0.json"; then
	echo "validate-sarif: report/testdata/sarif-schema-2.1.0.json differs from $mt_pkg/sarif-2.1.0.json" >&2
	exit 1
fi

# Logs from the real binary: findings (exit 1), a clean run (exit 0).
(cd "$root" && go build -o "$work/webhooklint" ./cmd/webhooklint)
logs=("$root"/report/testdata/sarif/*.sarif)
for example in "$root"/testdata/integrations/*/; do
	name=$(basename "$example")
	set +e
	(cd "$root" && "$work/webhooklint" --format sarif "testdata/integrations/$name") >"$work/$name.sarif"
	rc=$?
	set -e
	if [[ $rc -gt 1 ]]; then
		echo "validate-sarif: webhooklint exited $rc on testdata/integrations/$name" >&2
		exit 1
	fi
	logs+=("$work/$name.sarif")
done

# validate LOG: runs the Multitool and prints "errors warnings notes".
validate() {
	local log=$1 out="$work/validation-$(basename "$1")"
	if ! "$multitool" validate --json-schema "$root/report/testdata/sarif-schema-2.1.0.json" \
		--level "Error;Warning;Note" --log ForceOverwrite --output "$out" "$log" >"$work/multitool.log" 2>&1; then
		cat "$work/multitool.log" >&2
		echo "validate-sarif: the Multitool failed on $log" >&2
		return 1
	fi
	# The validation log is itself SARIF: count its results by level, and
	# count tool errors (such as a log that does not parse) as errors.
	node -e '
		const log = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const n = {error: 0, warning: 0, note: 0};
		for (const run of log.runs || []) {
			for (const r of run.results || []) n[r.level || "warning"] = (n[r.level || "warning"] || 0) + 1;
			for (const inv of run.invocations || [])
				for (const x of inv.toolExecutionNotifications || []) if ((x.level || "warning") === "error") n.error++;
		}
		console.log(n.error, n.warning, n.note);
	' "$out"
}

# The check must be able to fail: a log with a line 0 and a rule name that
# repeats its id has to draw an error and a warning.
sed -e '0,/"startLine": 3/s//"startLine": 0/' -e 's/"name": "TimeoutTooLong"/"name": "timeout-too-long"/' \
	"$root/report/testdata/sarif/findings.sarif" >"$work/broken.sarif"
read -r errors warnings _ < <(validate "$work/broken.sarif")
if [[ $errors -eq 0 || $warnings -eq 0 ]]; then
	echo "validate-sarif: the Multitool found $errors errors and $warnings warnings in a broken log; the check is not working" >&2
	exit 1
fi

status=0
for log in "${logs[@]}"; do
	counts=$(validate "$log") || { status=1; continue; }
	read -r errors warnings notes <<<"$counts"
	echo "validate-sarif: ${log#"$root"/}: $errors errors, $warnings warnings, $notes notes"
	# Every log draws notes (no versionControlProvenance, no snippets). A
	# log the Multitool cannot deserialize (an unknown enum value, such as
	# level "warn") draws nothing at all and exit status 0: count that as
	# a failure. The Go schema check below names the actual problem.
	if [[ $((errors + warnings + notes)) -eq 0 ]]; then
		echo "validate-sarif: the Multitool reported nothing for ${log#"$root"/}: it could not read the log" >&2
		status=1
	fi
	if [[ $errors -gt 0 || $warnings -gt 0 ]]; then
		grep -E ': (error|warning) ' "$work/multitool.log" >&2 || true
		status=1
	fi
done

# The same logs against the schema, in Go.
(cd "$root" && SARIF_VALIDATE_FILES="$(IFS=:; echo "${logs[*]}")" go test ./report -run 'TestSARIFSchema' -count=1)
exit $status
