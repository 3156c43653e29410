#!/usr/bin/env bash
# hostile.sh BINARY... — runs each webhooklint binary on generated hostile
# inputs (issue 15, workstream "sources") and prints a Markdown table:
# exit code, wall time and peak RSS per shape. Every run is capped
# (prlimit --as=4 GiB, timeout 120 s) so a binary that does not bound itself
# cannot take the machine. Needs prlimit, GNU time (/usr/bin/time), python3.
set -u
work=$(mktemp -d)
trap 'kill $srv 2>/dev/null; rm -rf "$work"' EXIT

# A loopback HTTP server that logs every request it gets.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$work" && exec python3 -m http.server "$port" --bind 127.0.0.1 >"$work/requests.log" 2>&1) &
srv=$!
url="http://127.0.0.1:$port"
sleep 1

bomb() { # a kilobyte of YAML that expands to 10^9 nodes
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n'
	for i in 1 2 3 4 5 6 7 8; do
		p=$((i - 1)); printf '  a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n' $i $i $p $p $p $p $p $p $p $p $p $p
	done
}
ns='apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n'
chart() { # chart DIR TEMPLATE
	mkdir -p "$1/templates"
	printf 'apiVersion: v2\nname: hostile\nversion: 0.1.0\n' >"$1/Chart.yaml"
	printf 'list: [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z]\n' >"$1/values.yaml"
	printf 'kind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  x: |\n    %s\n' "$2" >"$1/templates/bad.yaml"
	printf 'kind: ConfigMap\nmetadata:\n  name: ok\n' >"$1/templates/ok.yaml"
}

d=$work/shapes; mkdir -p "$d"
# name|args|description
shapes=()
s=$d/remote; mkdir -p $s; printf "$ns" >$s/local.yaml
cat >$s/kustomization.yaml <<K
resources: [local.yaml, $url/r.yaml]
configurations: [$url/c.yaml]
crds: [$url/crd.yaml]
transformers: [$url/t.yaml]
generators: [$url/g.yaml]
validators: [$url/v.yaml]
replacements: [{path: $url/rp.yaml}]
patchesStrategicMerge: [$url/psm.yaml]
patches: [{path: $url/p.yaml}]
patchesJson6902: [{target: {kind: Namespace, name: a, version: v1}, path: $url/j.yaml}]
configMapGenerator: [{name: c, files: [$url/f.txt], envs: [$url/e.env]}]
secretGenerator: [{name: s, files: [k=$url/sf.txt]}]
openapi: {path: $url/o.json}
K
shapes+=("kustomize: remote reference in every field|$s")
s=$d/kbomb-patch; mkdir -p $s; printf "$ns" >$s/local.yaml; bomb >$s/bomb.yaml; printf 'resources: [local.yaml]\npatches: [{path: bomb.yaml}]\n' >$s/kustomization.yaml
shapes+=("kustomize: 1 KB alias bomb in a patch|$s")
s=$d/kbomb-res; mkdir -p $s; bomb >$s/bomb.yaml; printf 'resources: [bomb.yaml]\n' >$s/kustomization.yaml
shapes+=("kustomize: 1 KB alias bomb in a resource|$s")
chart $d/until '{{ range until 100000000 }}x{{ end }}'; shapes+=("helm: until 100000000|$d/until")
chart $d/nested '{{ range until 100000 }}{{ range until 100000 }}{{ range until 100000 }}xxxxxxxx{{ end }}{{ end }}{{ end }}'; shapes+=("helm: three nested until loops|$d/nested")
chart $d/nofunc '{{ range $.Values.list }}{{ range $.Values.list }}{{ range $.Values.list }}{{ range $.Values.list }}{{ range $.Values.list }}{{ range $.Values.list }}xxxxxxxxxxxxxxxx{{ end }}{{ end }}{{ end }}{{ end }}{{ end }}{{ end }}'; shapes+=("helm: six nested ranges over values, no function call|$d/nofunc")
chart $d/tplerr '{{ required "x is required" .Values.x }}'; shapes+=("helm: template error|$d/tplerr")
s=$d/fifo; mkdir -p $s; printf "$ns" >$s/ok.yaml; mkfifo $s/pipe.yaml; shapes+=("named pipe among the files|$s")
mkdir -p $d/real; printf "$ns" >$d/real/ok.yaml; ln -s $d/real $d/link; shapes+=("symlinked folder, no trailing slash|$d/link")
s=$d/loop; mkdir -p $s; printf "$ns" >$s/ok.yaml; ln -s $s/loop.yaml $s/loop.yaml; shapes+=("symbolic link loop among the files|$s")
s=$d/dangling; mkdir -p $s; printf "$ns" >$s/ok.yaml; ln -s $s/gone.yaml $s/dangling.yaml; shapes+=("dangling symbolic link among the files|$s")
s=$d/tplcomment; mkdir -p $s; printf '# render with {{ .Values.x }}\nkind: A\n  bad: : :\n' >$s/f.yaml; shapes+=("syntax error, {{ in a comment (--fail-on error)|$s")
s=$d/tplquoted; mkdir -p $s; printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  t: "{{ .Values.x }}"\n  bad: [\n' >$s/f.yaml; shapes+=("syntax error, {{ in a quoted value (--fail-on error)|$s")
s=$d/big; mkdir -p $s; { printf '# {{ .Values.x }}\n'; head -c 70000000 /dev/zero | tr '\0' '#'; } >$s/big.yaml; shapes+=("70 MB file with {{ (--fail-on error)|$s")
s=$d/cycle; mkdir -p $s/a $s/b; printf 'resources: [../b]\n' >$s/a/kustomization.yaml; printf 'resources: [../a]\n' >$s/b/kustomization.yaml; shapes+=("kustomization cycle|$s/a")
s=$d/config; mkdir -p $s; printf "$ns" >$s/ok.yaml; printf 'a: 1\nb: [1, 2\nc: 3\n' >$s/.webhooklint.yaml; shapes+=("config syntax error on line 2|$s")

printf '| shape | binary | exit | time (s) | peak RSS (MiB) | requests | first finding / stderr |\n|---|---|---|---|---|---|---|\n'
for sh in "${shapes[@]}"; do
	name=${sh%%|*}; arg=${sh#*|}
	for bin in "$@"; do
		: >"$work/requests.log"
		extra=(); case $name in *--fail-on*) extra=(--fail-on error);; esac
		/usr/bin/time -f '%e %M' -o "$work/time" timeout 120 prlimit --as=4294967296 \
			"$bin" --color never "${extra[@]}" "$arg" >"$work/out" 2>"$work/err" </dev/null
		code=$?
		read -r secs rss <"$work/time" 2>/dev/null || { secs=?; rss=0; }
		[ "$(head -c 12 "$work/time")" = "Command exit" ] && read -r secs rss < <(tail -1 "$work/time")
		reqs=$(grep -c '"GET' "$work/requests.log")
		first=$( (grep -m1 -E 'error|warning|info' "$work/out"; head -c 300 "$work/err" | head -1) | head -1 | sed "s|$work/shapes/||g; s/|/\\\\|/g" | cut -c1-150)
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$(basename "$bin")" "$code" "$secs" "$((rss / 1024))" "$reqs" "$first"
	done
done
