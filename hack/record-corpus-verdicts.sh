#!/usr/bin/env bash
# Records the real API server's verdict on every webhook configuration in
# the shared real-world corpus (../shared/corpus/real), for
# lint/corpus_test.go. Needs a running oracle (see ../shared/oracle/README.md
# or hack/kube-apiserver.sh) and its verdict tool.
#
# Usage: hack/record-corpus-verdicts.sh [CORPUS_DIR]
# Env:   KUBECONFIG (default /tmp/oracle/kubeconfig), VERDICT (the verdict binary)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS="${1:-$ROOT/../shared/corpus/real}"
VERDICT="${VERDICT:-$HOME/.cache/kube-oracle/bin/verdict}"
KUBECONFIG="${KUBECONFIG:-/tmp/oracle/kubeconfig}"
OUT="$ROOT/testdata/corpus/verdicts.jsonl"
cd "$CORPUS"
"$VERDICT" -kubeconfig "$KUBECONFIG" -j 4 -field-validation=Strict -- * |
  python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
keep = [r for r in rows if r.get("kind", "").endswith("WebhookConfiguration")]
keep.sort(key=lambda r: (r["file"], r["doc"], r.get("item", -1)))
for r in keep:
    print(json.dumps({k: r.get(k) for k in ("file", "doc", "item", "apiVersion", "kind", "name", "accepted", "stage", "message", "causes", "warnings") if r.get(k) not in (None, [], "")}, sort_keys=True))
' > "$OUT"
echo "recorded $(wc -l < "$OUT") verdicts in $OUT"
