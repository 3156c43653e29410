#!/usr/bin/env bash
# Performance figures (docs/performance.md), all from one run on this machine,
# of the release build (hack/release: static, stripped; what the Action, the
# container image and a release download install).
#
# 1. Every workload of issue 37 beside its floor, without the cache, with an
#    empty cache folder (cold) and with the cache of that run (warm):
#      - 24,000 clean webhook configurations, one per file, in one folder;
#      - 40,000 mixed documents (Deployments and Services) in 200 files;
#      - 24,000 configurations with about five findings each;
#      - the real-world corpus ten times (ten folders of its 175 files);
#      - a GitOps monorepo of 2,000 apps (a base with a webhook, its Service
#        and Deployment, and a prod overlay: 6,000 files), whole.
#    The floor is hack/yamlfloor decoding the same files into YAML node trees
#    on one core (what any YAML linter pays); for the monorepo, hack/krustyfloor
#    building every root kustomization with kustomize's krusty API on one core
#    (what `kustomize build` pays).
# 2. One changed file of the monorepo named (pre-commit, the Action on changed
#    paths), mean of $NAMED runs: without the cache, cold, warm, and warm but
#    with the file edited before each run; beside it, the same file alone,
#    one small file and `--version` (process start).
# 3. Each workload at ×1, ×2, ×4 and ×8 (the monorepo 250 to 2,000 apps, the
#    corpus 1 to 8 copies), without the cache, with a verdict on linearity:
#    CPU per unit of input at ×8 over ×1, and the cost of the last doubling
#    (×4 to ×8, per unit) over that of the first (×1 to ×2), in CPU and in
#    the largest heap a collection marked (GODEBUG=gctrace=1: what the input
#    makes the run keep), with peak RSS's beside it. Peak RSS is not judged:
#    cli.tuneGC lets a small heap grow by a fixed headroom and a large one by
#    its own size, so its first doubling is cheap by design
#    (docs/performance.md, "Linear from ×1 to ×8").
# 4. The Go benchmarks, with the real kube-apiserver's dry-run on the same
#    configurations (needs etcd; SKIP_APISERVER=1 leaves it out).
#
# Times are wall (best of $RUNS runs) and CPU (user+sys of that run); peak RSS
# is the largest of the runs (hack/runstat reads the kernel's accounting of
# each child). The 1-minute load average is printed beside every row: on a
# shared machine wall times are upper bounds and CPU the comparable figure.
#
# Usage: hack/bench.sh                 RUNS=3 NAMED=20 by default
#        BASELINE=/path/to/webhooklint adds a row of another build under each
#        SKIP_APISERVER=1              leaves out the API server's benchmark
#        QUICK=1                       every workload at 1/8 of its size, one
#                                      run each, no Go benchmarks (a smoke test)
set -euo pipefail
# Only the cache's own columns use a cache: the user's would be warm after
# the first run.
export WEBHOOKLINT_CACHE=off
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BENCHTIME="${BENCHTIME:-10x}"
RUNS="${RUNS:-3}"
NAMED="${NAMED:-20}"
# Sizes are divided by $div: the ×8 rows are issue 37's sizes at div 1.
div=1
if [ -n "${QUICK:-}" ]; then div=8 RUNS=1 NAMED=3; fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go run -tags devtools ./hack/release -version bench -targets host -binaries-only -out "$work/release" >/dev/null
bin="$(ls "$work"/release/bin/*/webhooklint)"
# A plain `go build` with cgo links kustomize's plugin loader dynamically,
# which keeps every exported method: measured once, for --version.
go build -o "$work/webhooklint-gobuild" ./cmd/webhooklint
go build -tags devtools -o "$work/yamlfloor" ./hack/yamlfloor
CGO_ENABLED=0 go build -tags devtools -o "$work/krustyfloor" ./hack/krustyfloor
go build -tags devtools -o "$work/workload" ./hack/workload
go build -tags devtools -o "$work/runstat" ./hack/runstat

load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
# rstat ARGS...: hack/runstat's line, "best mean cpu_of_best mean_cpu rss_kib".
rstat() { "$work/runstat" "$@"; }
# edit FILE: a new timeoutSeconds in FILE (1 to 30 in turn), written in
# place, as an editor that does not rename: the file's folder is unchanged.
cat > "$work/edit" <<'EOF'
#!/bin/sh
n=$(( $(cat "$0.n" 2>/dev/null || echo 0) % 30 + 1 ))
echo "$n" > "$0.n"
sed "s/timeoutSeconds: [0-9]*/timeoutSeconds: $n/" "$1" > "$0.tmp" && cat "$0.tmp" > "$1"
EOF
chmod +x "$work/edit"
lint=("$bin" --fail-on never --format counts)

# The workloads, each at ×1, ×2, ×4 and ×8 of its base size (per unit of
# hack/workload -list; the monorepo's unit is an app).
declare -A base unit
while read -r name n u; do base[$name]=$((n / div)) unit[$name]=$u; done < <("$work/workload" -list)
for name in configs mixed broken monorepo; do
  for k in 1 2 4 8; do "$work/workload" "$name" $((base[$name] * k)) "$work/$name$k"; done
done
base[real]=175 unit[real]="corpus file"
corpus=../shared/corpus/real
copies=10
[ -z "${QUICK:-}" ] || copies=2
if [ -d "$corpus" ]; then
  for i in $(seq "$copies"); do mkdir -p "$work/realall/c$i" && cp "$corpus"/* "$work/realall/c$i/"; done
  for k in 1 2 4 8; do
    mkdir -p "$work/real$k"
    for i in $(seq $((k > copies ? copies : k))); do cp -rl "$work/realall/c$i" "$work/real$k/"; done
  done
fi
apps=$((base[monorepo] * 8))
changed="$("$work/workload" -changed "$apps")"
mkdir -p "$work/isolated" && cp "$work/monorepo8/$changed" "$work/isolated/"

echo "$("$bin" --version | head -1), $(nproc) CPUs, load average at start $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo

# row LABEL TARGET_RATIO TARGET_MB DIR FLOOR...: the workload in DIR beside
# its floor, without the cache, cold and warm; TARGET_* are issue 37's
# (- for none). The verdict is on the run without the cache.
row() {
  local label=$1 tr=$2 tm=$3 dir=$4 c="$work/cache"; shift 4
  read -r fw _ fc _ _ <<<"$(rstat -n "$RUNS" -- "$@" "$dir")"
  read -r nw _ nc _ nm <<<"$(rstat -n "$RUNS" -- "${lint[@]}" --no-cache "$dir")"
  read -r cw _ cc _ cm <<<"$(rstat -n "$RUNS" -before "rm -rf '$c'" -- "${lint[@]}" --cache-dir "$c" "$dir")"
  read -r ww _ wc _ wm <<<"$(rstat -n "$RUNS" -- "${lint[@]}" --cache-dir "$c" "$dir")"
  awk -v l="$label" -v fw="$fw" -v fc="$fc" -v nw="$nw" -v nc="$nc" -v nm="$nm" -v cw="$cw" -v cc="$cc" -v cm="$cm" \
    -v ww="$ww" -v wc="$wc" -v wm="$wm" -v tr="$tr" -v tm="$tm" -v load="$(load)" 'BEGIN {
    r = nw / fw; m = nm / 1024; t = ""; v = ""
    if (tr != "-") { t = sprintf("≤ %s×", tr); v = (r <= tr) ? "met" : "missed" }
    if (tm != "-") { t = t (t ? ", " : "") sprintf("≤ %d MB", tm); v = (v == "missed" || m > tm) ? "missed" : "met" }
    printf "%-34s | %6.2f s cpu %6.2f | %6.2f s cpu %6.2f %5d MB %5.2f× (cpu %4.2f×) | %6.2f s cpu %6.2f %5d MB | %6.2f s cpu %6.2f %5d MB | %-20s %-6s | %s\n",
      l, fw, fc, nw, nc, m, r, nc / fc, cw, cc, cm / 1024, ww, wc, wm / 1024, t, v, load
  }'
  if [ -n "${BASELINE:-}" ]; then
    read -r bw _ bc _ bm <<<"$(rstat -n "$RUNS" -- "$BASELINE" --fail-on never --format counts "$dir")"
    awk -v bw="$bw" -v bc="$bc" -v bm="$bm" -v fw="$fw" -v fc="$fc" -v load="$(load)" 'BEGIN {
      printf "%-34s | %-17s | %6.2f s cpu %6.2f %5d MB %5.2f× (cpu %4.2f×) | %-31s | %-31s | %-27s | %s\n",
        "  baseline", "", bw, bc, bm / 1024, bw / fw, bc / fc, "", "", "", load }'
  fi
}
echo "== workloads (best of $RUNS runs; × = wall / the floor's wall, the floor on one core)"
printf "%-34s | %-17s | %-45s | %-31s | %-31s | %-27s | %s\n" "workload" "floor" "webhooklint --no-cache" "cold cache (empty folder)" "warm cache (same run again)" "target (no cache)" "load"
n=$((base[configs] * 8)) && row "$n configs, one per file" 1.5 250 "$work/configs8" "$work/yamlfloor"
n=$((base[mixed] * 8)) && row "$n mixed docs in $((n / 200)) files" 1.0 100 "$work/mixed8" "$work/yamlfloor"
n=$((base[broken] * 8)) && row "$n broken configs (~5 findings)" - 300 "$work/broken8" "$work/yamlfloor"
[ -d "$corpus" ] && row "real corpus ×$copies" 1.5 - "$work/realall" "$work/yamlfloor"
row "monorepo, $apps apps, whole" 0.7 - "$work/monorepo8" "$work/krustyfloor"
# The whole monorepo, warm but for one file edited since: its unit misses.
read -r ew _ ec _ em <<<"$(rstat -n "$RUNS" -before "'$work/edit' '$work/monorepo8/$changed'" -- "${lint[@]}" --cache-dir "$work/cache" "$work/monorepo8")"
cp "$work/isolated/app.yaml" "$work/monorepo8/$changed"
printf "%-34s | %-17s | %-45s | %-31s | %6.2f s cpu %6.2f %5d MB | %-27s | %s\n" "  warm, one file edited since" "" "" "" "$ew" "$ec" $((em / 1024)) "" "$(load)"
echo "$(du -sh "$work/cache" | cut -f1) of cache for the monorepo"
echo

# named LABEL TARGET_MS DIR ARGS...: mean of $NAMED runs of webhooklint in DIR.
named() {
  local label=$1 t=$2 d=$3; shift 3
  read -r bw mw _ mc m <<<"$(rstat -n "$NAMED" -C "$d" "$@")"
  awk -v l="$label" -v bw="$bw" -v mw="$mw" -v mc="$mc" -v m="$m" -v t="$t" -v load="$(load)" 'BEGIN {
    v = (t == "-") ? "" : sprintf("≤ %d ms %s", t, (mw * 1000 <= t) ? "met" : "missed")
    printf "%-44s | %7.1f ms %7.1f ms %7.1f ms %4d MB | %-16s | %s\n", l, mw * 1000, bw * 1000, mc * 1000, m / 1024, v, load }'
}
echo "== one changed file named (mean of $NAMED runs)"
printf "%-44s | %-40s | %-16s | %s\n" "run" "mean wall, best wall, mean CPU, peak RSS" "target" "load"
c="$work/cache-named"
named "the file alone" - "$work/isolated" -- "${lint[@]}" --no-cache app.yaml
named "in the monorepo, --no-cache" 60 "$work/monorepo8" -- "${lint[@]}" --no-cache "$changed"
named "in the monorepo, cold (empty cache folder)" 60 "$work/monorepo8" -before "rm -rf '$c'" -- "${lint[@]}" --cache-dir "$c" "$changed"
named "in the monorepo, warm (same run again)" 30 "$work/monorepo8" -- "${lint[@]}" --cache-dir "$c" "$changed"
named "in the monorepo, warm, the file edited" 30 "$work/monorepo8" \
  -before "'$work/edit' '$changed'" -- "${lint[@]}" --cache-dir "$c" "$changed"
cp "$work/isolated/app.yaml" "$work/monorepo8/$changed"
named "one small file (examples/good)" - . -- "${lint[@]}" --no-cache examples/good/webhooks.yaml
named "--version (process start)" - . -- "$bin" --version
named "--version, plain go build (cgo)" - . -- "$work/webhooklint-gobuild" --version
if [ -n "${BASELINE:-}" ]; then
  named "baseline: in the monorepo (its default cache off)" - "$work/monorepo8" -- "$BASELINE" --fail-on never --format counts "$changed"
  named "baseline: the file alone" - "$work/isolated" -- "$BASELINE" --fail-on never --format counts app.yaml
fi
echo

# scale NAME DIR_PREFIX UNITS: the workload at ×1…×8 without the cache.
scale() {
  local name=$1 prefix=$2 units=$3 k
  echo "-- $name (×1 = $units ${unit[$name]}s)"
  printf "%-4s | %9s | %9s | %9s | %7s | %11s | %s\n" size units wall cpu "peak RSS" "peak marked" "cpu per 1,000 units"
  for k in 1 2 4 8; do
    read -r w _ c _ m h <<<"$(rstat -marked -n "$RUNS" -- "${lint[@]}" --no-cache "$prefix$k")"
    echo "$k $((units * k)) $w $c $m $h"
  done | tee "$work/scale" | awk '{ printf "%-4s | %9d | %7.2f s | %7.2f s | %5d MB | %8d MB | %.3f s\n", $1 "×", $2, $3, $4, $5 / 1024, $6, $4 / $2 * 1000 }'
  # The marked heap is in whole MiB, and when a collection comes moves it by
  # a MiB or two: a first doubling under 2 MiB (a workload that keeps about
  # the same whatever its size, as the monorepo's one root at a time) counts
  # as 2, so that noise is not judged.
  awk -v load="$(load)" '{ c[$1] = $4; m[$1] = $5 / 1024; h[$1] = $6 } END {
    per = (c[8] / 8) / c[1]; dc = ((c[8] - c[4]) / 4) / (c[2] - c[1]); dm = ((m[8] - m[4]) / 4) / (m[2] - m[1])
    dh = ((h[8] - h[4]) / 4) / (h[2] - h[1] < 2 ? 2 : h[2] - h[1])
    printf "cpu per unit ×8/×1 %.2f; last doubling per unit over the first: cpu %.2f, peak marked %.2f (peak RSS %.2f) → %s (load %s)\n",
      per, dc, dh, dm, (per <= 1.25 && dc <= 1.5 && dh <= 1.5) ? "linear" : "NOT linear", load }' "$work/scale"
}
echo "== linear in the input (best of $RUNS runs, no cache)"
for name in configs mixed broken monorepo; do scale "$name" "$work/$name" "${base[$name]}"; done
[ -d "$corpus" ] && [ -z "${QUICK:-}" ] && scale real "$work/real" 175

[ -z "${QUICK:-}" ] || exit 0
if [ -n "${SKIP_APISERVER:-}" ]; then
  echo; echo "== Go benchmarks (benchtime $BENCHTIME; API server left out)"
  go test -run '^$' -bench 'BareDecode|BenchmarkLint$|Scale' -benchtime "$BENCHTIME" ./lint/ | grep -E '^Benchmark'
else
  export E2E_DIR=/tmp/webhooklint-bench ETCD_PORT=42379 APISERVER_PORT=46443
  hack/build-kube-apiserver.sh >/dev/null
  trap 'hack/e2e-apiserver.sh stop >/dev/null; rm -rf "$work"' EXIT
  hack/e2e-apiserver.sh start >/dev/null
  set -a; . "$E2E_DIR/env"; set +a
  echo; echo "== Go benchmarks (benchtime $BENCHTIME)"
  WEBHOOKLINT_BENCH_KUBECONFIG="$WEBHOOKLINT_E2E_KUBECONFIG" \
    go test -run '^$' -bench 'BareDecode|BenchmarkLint$|Scale|APIServerDryRun' -benchtime "$BENCHTIME" ./lint/ |
    grep -E '^Benchmark'
fi
