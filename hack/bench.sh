#!/usr/bin/env bash
# Performance figures, all measured in one run on this machine:
#   - BenchmarkBareDecode: decoding the workload into YAML node trees, one
#     core (the floor any YAML linter pays);
#   - BenchmarkLint: webhooklint on the same 1,224 documents, end to end;
#   - BenchmarkAPIServerDryRun: the real kube-apiserver's dry-run verdict on
#     the same webhook configurations (a server is started on loopback);
#   - the whole real-world corpus through the CLI, and one small file end to
#     end, process start included.
# Usage: hack/bench.sh [-benchtime N]   (needs etcd; builds kube-apiserver on first use)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BENCHTIME="${BENCHTIME:-10x}"
export E2E_DIR=/tmp/webhooklint-bench ETCD_PORT=42379 APISERVER_PORT=46443

hack/build-kube-apiserver.sh >/dev/null
trap 'hack/e2e-apiserver.sh stop >/dev/null' EXIT
hack/e2e-apiserver.sh start >/dev/null
set -a; . "$E2E_DIR/env"; set +a

echo "== benchmarks (benchtime $BENCHTIME)"
WEBHOOKLINT_BENCH_KUBECONFIG="$WEBHOOKLINT_E2E_KUBECONFIG" \
  go test -run '^$' -bench 'BareDecode|BenchmarkLint$|APIServerDryRun' -benchtime "$BENCHTIME" ./lint/ |
  grep -E '^Benchmark'

bin="$(mktemp -d)/webhooklint"
go build -o "$bin" ./cmd/webhooklint
corpus=../shared/corpus/real
if [ -d "$corpus" ]; then
  echo "== whole corpus ($corpus) through the CLI, 5 runs"
  for _ in 1 2 3 4 5; do
    /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB max RSS" "$bin" --fail-on never --format counts "$corpus" >/dev/null
  done
fi
echo "== one small file end to end (examples/good-webhooks.yaml), 20 runs"
start=$(date +%s%N)
for _ in $(seq 20); do "$bin" examples/good-webhooks.yaml >/dev/null; done
echo "$(( ($(date +%s%N) - start) / 20000000 )) ms per run (process start included)"
