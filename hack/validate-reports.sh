#!/usr/bin/env bash
# Validates the CI report formats the real binary writes for each folder of
# testdata/integrations, with --output: junit against the Jenkins JUnit XSD
# and checkstyle against report/testdata/checkstyle.xsd (xmllint --schema),
# gitlab against the Code Quality schema (in Go, report/ci_formats_test.go),
# together with the golden reports. The tests run with xmllint required, so
# they cannot skip.
# Installs: libxml2-utils (apt) when xmllint is missing. Needs go.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! command -v xmllint >/dev/null; then
	echo "validate-reports: installing libxml2-utils (apt)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >/dev/null ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >/dev/null; }
fi

(cd "$root" && go build -o "$work/webhooklint" ./cmd/webhooklint)
files=()
for example in "$root"/testdata/integrations/*/; do
	name=$(basename "$example")
	set +e
	(cd "$root" && "$work/webhooklint" --format counts --output "junit=$work/$name.xml" \
		--output "checkstyle=$work/$name.checkstyle.xml" --output "gitlab=$work/$name.json" \
		"testdata/integrations/$name") >/dev/null
	rc=$?
	set -e
	[[ $rc -le 1 ]] || { echo "validate-reports: webhooklint exited $rc on testdata/integrations/$name" >&2; exit 1; }
	xmllint --noout --schema "$root/report/testdata/junit-10.xsd" "$work/$name.xml"
	xmllint --noout --schema "$root/report/testdata/checkstyle.xsd" "$work/$name.checkstyle.xml"
	files+=("junit=$work/$name.xml" "checkstyle=$work/$name.checkstyle.xml" "gitlab=$work/$name.json")
done
(cd "$root" && REPORT_VALIDATE_FILES="$(IFS=:; echo "${files[*]}")" WEBHOOKLINT_REQUIRE_XMLLINT=1 \
	go test ./report -run 'TestXMLFormatsValidate|TestGitLabSchemaAndFingerprints' -count=1 -v) |
	grep -E '^(---|ok|FAIL|PASS)'
