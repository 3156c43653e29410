#!/usr/bin/env bash
# Performance figures, all measured in one run on this machine.
#
# First the scale tables (issues 11 and 24), on workloads generated here:
#   - 3,000 webhook configurations, one per file; the same ×2, ×4, ×8;
#   - 3,000 mutated configurations with about five findings each, and ×8;
#   - 40,000 mixed documents (20,000 Deployments + 20,000 Services) in 200 files;
#   - a GitOps monorepo of 2,000 apps (a base with a webhook, its Service
#     and Deployment, and a prod overlay: 6,000 files), whole, and with one
#     changed file named;
#   - the real-world corpus ten times;
#   - one small file end to end, process start included;
#   - with the cache kept between runs (docs/cache.md): the monorepo whole,
#     with one changed file named, and the corpus ×10, each with an empty
#     cache folder (cold) and again (warm); the whole monorepo also warm
#     after one file changed.
# Each is timed (best wall time of $RUNS runs, with its user+sys CPU time)
# with its peak RSS (/usr/bin/time %M, Debian package "time"), next to its
# floor: hack/yamlfloor decoding the same files into go.yaml.in/yaml/v3 node
# trees on one core, what any YAML linter pays; for the monorepo,
# hack/krustyfloor building every root kustomization once with kustomize's
# krusty API on one core, what `kustomize build` pays; for one changed file,
# the same file linted alone.
#
# Then the Go benchmarks: BenchmarkBareDecode, BenchmarkLint and
# BenchmarkAPIServerDryRun (the real kube-apiserver's dry-run on the same
# configurations; needs etcd, builds kube-apiserver on first use — set
# SKIP_APISERVER=1 to leave it out), and the real-world corpus.
#
# Usage: hack/bench.sh            BASELINE=/path/to/old/webhooklint adds its column
#        RUNS=3 BENCHTIME=10x SKIP_APISERVER=1
#        CACHE_ONLY=1 prints the cache rows only
set -euo pipefail
# Every row but the cache's is measured without the cache, which would
# otherwise be warm after the first of the runs (and the user's).
export WEBHOOKLINT_CACHE=off
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BENCHTIME="${BENCHTIME:-10x}"
RUNS="${RUNS:-3}"
[ -x /usr/bin/time ] || { echo "bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The binary measured is the release build (static, stripped: what the
# Action, the container image and the download install), built by
# hack/release for this machine. A plain `go build` with cgo available
# links kustomize's Go plugin loader dynamically, which keeps every
# exported method and costs ~25 MB of RSS more; it is measured once below.
go run -tags devtools ./hack/release -version bench -targets host -binaries-only -out "$work/release" >/dev/null
bin="$(ls "$work"/release/bin/*/webhooklint)"
go build -o "$work/webhooklint-gobuild" ./cmd/webhooklint
go build -tags devtools -o "$work/yamlfloor" ./hack/yamlfloor
CGO_ENABLED=0 go build -tags devtools -o "$work/krustyfloor" ./hack/krustyfloor

# gen_configs DIR FROM TO: webhook configurations FROM..TO-1, one per file,
# two webhooks each (rules, selectors, a matchCondition; some invalid).
gen_configs() {
  mkdir -p "$1"
  awk -v dir="$1" -v from="$2" -v to="$3" 'BEGIN {
    for (i = from; i < to; i++) {
      f = sprintf("%s/hook-%05d.yaml", dir, i)
      kind = (i % 2) ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration"
      fp = (i % 3) ? "Fail" : "Ignore"
      to_ = (i % 5) ? 5 : 31
      printf "apiVersion: admissionregistration.k8s.io/v1\nkind: %s\nmetadata:\n  name: hook-%d\n  labels: {app.kubernetes.io/name: hooks-%d}\nwebhooks:\n", kind, i, i % 50 > f
      for (w = 0; w < 2; w++) {
        printf "- name: w%d.hook-%d.example.com\n  failurePolicy: %s\n  sideEffects: None\n  admissionReviewVersions: [\"v1\"]\n  timeoutSeconds: %d\n", w, i, fp, to_ > f
        printf "  clientConfig:\n    service: {name: hooks-%d, namespace: hooks-%d, path: /validate}\n", i % 50, i % 50 > f
        printf "  namespaceSelector:\n    matchExpressions:\n    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}\n" > f
        printf "  matchConditions:\n  - name: not-system\n    expression: \"!request.userInfo.username.startsWith(\x27system:\x27)\"\n" > f
        printf "  rules:\n  - apiGroups: [\"\"]\n    apiVersions: [v1]\n    operations: [CREATE, UPDATE]\n    resources: [pods, configmaps]\n    scope: Namespaced\n" > f
      }
      close(f)
    }
  }'
}
# gen_mixed DIR FILES PER: FILES files of PER documents, a Deployment and
# its Service in turn (a GitOps repository).
gen_mixed() {
  mkdir -p "$1"
  awk -v dir="$1" -v files="$2" -v per="$3" 'BEGIN {
    for (i = 0; i < files; i++) {
      f = sprintf("%s/apps-%03d.yaml", dir, i)
      for (j = 0; j < per; j += 2) {
        n = sprintf("app-%d-%d", i, j)
        printf "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: team-%d\n  labels: {app: %s}\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: %s}\n  template:\n    metadata:\n      labels: {app: %s, tier: web}\n    spec:\n      serviceAccountName: %s\n      containers:\n      - name: web\n        image: registry.example.com/%s:1.0\n        ports: [{containerPort: 8080}]\n        resources: {requests: {cpu: 100m, memory: 128Mi}}\n", n, i, n, n, n, n, n > f
        printf "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  namespace: team-%d\nspec:\n  selector: {app: %s}\n  ports:\n  - {name: http, port: 80, targetPort: 8080}\n", n, i, n > f
      }
      close(f)
    }
  }'
}

# gen_monorepo DIR APPS: a GitOps repository (a .git folder at its root) of APPS
# apps, each a base (webhook configuration, Service, Deployment in one file,
# and its kustomization) and a prod overlay: 3 files per app.
gen_monorepo() {
  mkdir -p "$1/.git"
  awk -v dir="$1" -v apps="$2" 'BEGIN {
    for (i = 0; i < apps; i++) {
      a = sprintf("%s/apps/app-%04d", dir, i)
      system("mkdir -p " a "/base " a "/prod")
      n = sprintf("app-%d", i)
      f = a "/base/kustomization.yaml"
      printf "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: %s\nresources:\n- app.yaml\n", n > f
      close(f)
      f = a "/base/app.yaml"
      printf "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: %s\nwebhooks:\n- name: validate.%s.example.com\n  failurePolicy: Fail\n  sideEffects: None\n  admissionReviewVersions: [\"v1\"]\n  timeoutSeconds: 5\n  clientConfig:\n    service: {name: %s, namespace: %s, path: /validate}\n  namespaceSelector:\n    matchExpressions:\n    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}\n  rules:\n  - apiGroups: [\"apps\"]\n    apiVersions: [v1]\n    operations: [CREATE, UPDATE]\n    resources: [deployments]\n    scope: Namespaced\n", n, n, n, n > f
      printf "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s\nspec:\n  selector: {app: %s}\n  ports:\n  - {name: https, port: 443, targetPort: 9443}\n", n, n > f
      printf "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  labels: {app: %s}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: %s}\n  template:\n    metadata:\n      labels: {app: %s}\n    spec:\n      containers:\n      - name: webhook\n        image: registry.example.com/%s:1.0\n        ports: [{containerPort: 9443}]\n", n, n, n, n, n > f
      close(f)
      f = a "/prod/kustomization.yaml"
      printf "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../base\npatches:\n- target: {kind: Deployment, name: %s}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n", n > f
      close(f)
    }
  }'
}
# gen_broken DIR FROM TO: webhook configurations FROM..TO-1, one per file,
# each mutated to have about five findings (a large, badly broken input).
gen_broken() {
  mkdir -p "$1"
  awk -v dir="$1" -v from="$2" -v to="$3" 'BEGIN {
    for (i = from; i < to; i++) {
      f = sprintf("%s/broken-%05d.yaml", dir, i)
      kind = (i % 2) ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration"
      printf "apiVersion: admissionregistration.k8s.io/v1\nkind: %s\nmetadata:\n  name: broken-%d\nwebhooks:\n", kind, i > f
      printf "- name: w.broken-%d.example.com\n  failurePolicy: Fail\n  sideEffects: %s\n  admissionReviewVersions: [\"v1\"]\n  timeoutSeconds: %d\n", i, (i % 3) ? "None" : "Some", 25 + i % 10 > f
      printf "  matchPolicy: Fuzzy\n  namespaceSelector:\n    matchExpressions:\n    - {key: team, operator: Has}\n  clientConfig:\n    url: http://hooks-%d.example.com/validate\n", i % 50 > f
      printf "  rules:\n  - apiGroups: [\"*\"]\n    apiVersions: [\"*\"]\n    operations: [\"*\"]\n    resources: [\"*\"]\n" > f
      close(f)
    }
  }'
}

# The ×k workloads share files: ×2 is ×1 plus 3,000 more, and so on.
for k in 1 2 4 8; do
  mkdir -p "$work/x$k"
  [ "$k" = 1 ] || cp -l "$work/x$((k / 2))"/* "$work/x$k"/
  gen_configs "$work/x$k" $((3000 * k / 2 * (k > 1))) $((3000 * k))
done
gen_mixed "$work/mixed" 200 200
for k in 1 8; do gen_broken "$work/broken$k" 0 $((3000 * k)); done
# The monorepo at 1/8, 1/4, 1/2 and 1× (250 to 2,000 apps).
for n in 250 500 1000 2000; do gen_monorepo "$work/mono$n" "$n"; done
changed=apps/app-0100/base/app.yaml
mkdir -p "$work/isolated" && cp "$work/mono2000/$changed" "$work/isolated/"
corpus=../shared/corpus/real
if [ -d "$corpus" ]; then
  for i in $(seq 10); do mkdir -p "$work/real10/c$i" && cp "$corpus"/* "$work/real10/c$i/"; done
fi
small=examples/good/webhooks.yaml

# measure CMD...: best wall time of $RUNS runs; prints "wall cpu rss_kib".
measure() {
  local best="" cpu="" rss=0 out
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$@" >/dev/null 2>&1 || true
    read -r w u s m < <(tail -1 "$work/time")
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then
      best=$w; cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
    fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  echo "$best $cpu $rss"
}
# measure_lint BIN DIR
measure_lint() { measure "$1" --fail-on never --format counts "$2"; }

row() { # row LABEL DIR [FLOOR]: FLOOR defaults to yamlfloor
  local f l b
  read -r fw fc fm <<<"$(measure "${3:-$work/yamlfloor}" "$2")"
  read -r lw lc lm <<<"$(measure_lint "$bin" "$2")"
  l=$(awk -v w="$lw" -v c="$lc" -v m="$lm" -v f="$fw" 'BEGIN{printf "%6.2f s (cpu %5.2f s) %5.2f× %5d MB", w, c, w/f, m/1024}')
  b=""
  if [ -n "${BASELINE:-}" ]; then
    read -r bw bc bm <<<"$(measure_lint "$BASELINE" "$2")"
    b=$(awk -v w="$bw" -v c="$bc" -v m="$bm" -v f="$fw" 'BEGIN{printf " | %6.2f s (cpu %5.2f s) %5.2f× %5d MB", w, c, w/f, m/1024}')
  fi
  printf "%-34s | %5.2f s %4d MB | %s%s\n" "$1" "$fw" $((fm / 1024)) "$l" "$b"
}

# cache_run DIR CACHE ARGS...: one run of the release build in DIR with
# the cache in CACHE; prints "wall cpu rss_kib".
cache_run() {
  local d=$1 c=$2; shift 2
  (cd "$d" && /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$bin" --cache-dir "$c" --fail-on never --format counts "$@" >/dev/null 2>&1) || true
  awk '{printf "%s %.2f %d\n", $1, $2 + $3, $4}' "$work/time"
}
# cache_row LABEL DIR ARGS...: best of $RUNS runs without the cache, of
# $RUNS cold runs (an empty cache folder each) and of $RUNS warm ones (the
# same run again).
cache_row() {
  local label=$1 d=$2 c="$work/cache" none="" cold="" warm="" r; shift 2
  for _ in $(seq "$RUNS"); do
    r=$(cache_run "$d" "$c" --no-cache "$@")
    if [ -z "$none" ] || awk -v a="${r%% *}" -v b="${none%% *}" 'BEGIN{exit !(a<b)}'; then none=$r; fi
    rm -rf "$c"
    r=$(cache_run "$d" "$c" "$@")
    if [ -z "$cold" ] || awk -v a="${r%% *}" -v b="${cold%% *}" 'BEGIN{exit !(a<b)}'; then cold=$r; fi
    r=$(cache_run "$d" "$c" "$@")
    if [ -z "$warm" ] || awk -v a="${r%% *}" -v b="${warm%% *}" 'BEGIN{exit !(a<b)}'; then warm=$r; fi
  done
  read -r nw nc nm <<<"$none"
  read -r cw cc cm <<<"$cold"
  read -r ww wc wm <<<"$warm"
  printf "%-40s | %6.2f s (cpu %5.2f s) %5d MB | %6.2f s (cpu %5.2f s) %5d MB | %6.3f s (cpu %5.2f s) %5d MB\n" \
    "$label" "$nw" "$nc" $((nm / 1024)) "$cw" "$cc" $((cm / 1024)) "$ww" "$wc" $((wm / 1024))
}
echo "== cache kept between runs (best of $RUNS; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
printf "%-40s | %-33s | %-33s | %s\n" "workload" "--no-cache" "cold (empty cache folder)" "warm"
cache_row "monorepo, 2,000 apps, whole" "$work/mono2000" .
cache_row "monorepo, one changed file named" "$work/mono2000" "$changed"
[ -d "$work/real10" ] && cache_row "real corpus ×10" "$work/real10" .
# Whole monorepo, warm but for one file changed since: its units miss.
rm -rf "$work/cache" && cache_run "$work/mono2000" "$work/cache" . >/dev/null
best=""
for i in $(seq "$RUNS"); do
  sed -i "s/timeoutSeconds: [0-9]*/timeoutSeconds: $((5 + i % 2))/" "$work/mono2000/$changed"
  r=$(cache_run "$work/mono2000" "$work/cache" .)
  if [ -z "$best" ] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then best=$r; fi
done
sed -i "s/timeoutSeconds: [0-9]*/timeoutSeconds: 5/" "$work/mono2000/$changed"
read -r bw bc bm <<<"$best"
printf "%-40s | %-33s | %-33s | %6.3f s (cpu %5.2f s) %5d MB\n" "monorepo whole, one file changed since" "—" "—" "$bw" "$bc" $((bm / 1024))
echo "$(du -sh "$work/cache" | cut -f1) of cache for the monorepo"
[ -n "${CACHE_ONLY:-}" ] && exit 0
echo

echo "== scale (best of $RUNS runs; wall, cpu = user+sys, × = wall / floor wall, peak RSS)"
hdr="webhooklint"
[ -n "${BASELINE:-}" ] && hdr="$hdr | baseline ($BASELINE)"
printf "%-34s | %-15s | %s\n" "workload" "floor (1 core)" "$hdr"
row "3,000 configs, one per file" "$work/x1"
row "24,000 configs (×8)" "$work/x8"
row "40,000 mixed docs in 200 files" "$work/mixed"
row "3,000 broken configs (~5 findings)" "$work/broken1"
row "24,000 broken configs (×8)" "$work/broken8"
row "monorepo, 2,000 apps (krusty floor)" "$work/mono2000" "$work/krustyfloor"
[ -d "$work/real10" ] && row "real corpus ×10" "$work/real10"
# mean_ms BIN DIR ARGS...: mean wall time of 20 runs of BIN in DIR, in ms.
mean_ms() {
  local b=$1 d=$2 start; shift 2
  start=$(date +%s%N)
  for _ in $(seq 20); do (cd "$d" && "$b" --fail-on never "$@" >/dev/null) || true; done
  echo $(( ($(date +%s%N) - start) / 20000000 ))
}
# The baseline's figures for the rows below are taken right after webhooklint's.
printf "%-34s | %-15s | " "monorepo, one changed file named" "$(mean_ms "$bin" "$work/isolated" app.yaml) ms alone"
read -r _ _ om <<<"$(cd "$work/mono2000" && measure "$bin" --fail-on never "$changed")"
b=""
[ -n "${BASELINE:-}" ] && b=" | baseline $(mean_ms "$BASELINE" "$work/mono2000" "$changed") ms, $(mean_ms "$BASELINE" "$work/isolated" app.yaml) ms alone"
echo "$(mean_ms "$bin" "$work/mono2000" "$changed") ms per run (mean of 20), $((om / 1024)) MB$b"
printf "%-34s | %-15s | " "one small file, process start" "—"
read -r _ _ sm <<<"$(measure "$bin" "$small")"
b=""
[ -n "${BASELINE:-}" ] && b=" | baseline $(mean_ms "$BASELINE" . "$small") ms"
echo "$(mean_ms "$bin" . "$small") ms per run (mean of 20), $((sm / 1024)) MB$b"
printf "%-34s | %-15s | " "process floor: --version" "—"
read -r vw _ vm <<<"$(measure "$bin" --version)"
echo "$vw s, $((vm / 1024)) MB (the binary's own pages)"
printf "%-34s | %-15s | " "same, plain go build (cgo)" "—"
read -r vw _ vm <<<"$(measure "$work/webhooklint-gobuild" --version)"
echo "$vw s, $((vm / 1024)) MB"

echo
echo "== linear in the input (configs one per file)"
printf "%-6s | %-8s | %-9s | %-10s | %s\n" "size" "configs" "wall" "cpu" "peak RSS"
for k in 1 2 4 8; do
  read -r w c m <<<"$(measure_lint "$bin" "$work/x$k")"
  printf "%-6s | %8d | %7.2f s | %8.2f s | %5d MB\n" "${k}×" $((3000 * k)) "$w" "$c" $((m / 1024))
done
echo
echo "== linear in the input (monorepo apps, whole repository)"
printf "%-6s | %-8s | %-9s | %-10s | %s\n" "size" "apps" "wall" "cpu" "peak RSS"
for n in 250 500 1000 2000; do
  read -r w c m <<<"$(measure_lint "$bin" "$work/mono$n")"
  printf "%-6s | %8d | %7.2f s | %8.2f s | %5d MB\n" "$(awk -v n="$n" 'BEGIN{printf "%g×", n/2000}')" "$n" "$w" "$c" $((m / 1024))
done

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

if [ -d "$corpus" ]; then
  echo; echo "== whole corpus ($corpus) through the CLI"
  read -r w c m <<<"$(measure_lint "$bin" "$corpus")"
  echo "$w s wall, $c s cpu, $((m / 1024)) MB peak RSS"
fi
