#!/usr/bin/env bash
# A vendor root filesystem archive as the base (image.rootfs_url): the lab image's own base,
# archived with tar and zstd and served on 127.0.0.1, gives the same image as bootstrapping
# does: every entry of the root filesystem alike but the recipe file it carries, the same
# package list, and a clean audit. The archive is fetched once and kept by its sha256.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"

base_key=$(python3 -c 'import json,sys; print([s["key"] for s in json.load(open(sys.argv[1]))["stages"] if s["name"] == "base"][0])' \
  "$LAB_IMAGE/manifest.json")
base=$LAB_CACHE/stages/base/$base_key/output
[[ -d $base ]] || lab_fail "the lab image's base $base_key is not in the stage cache"
mkdir -p "$LAB_WORK/srv/vendor"
tar -C "$base" --numeric-owner --xattrs --xattrs-include='*' -cf - . | zstd -q -T0 -3 -o "$LAB_WORK/srv/vendor/rootfs.tar.zst"
sha=$(sha256sum "$LAB_WORK/srv/vendor/rootfs.tar.zst" | cut -d' ' -f1)

python3 -u -m http.server --bind 127.0.0.1 --directory "$LAB_WORK/srv" 0 >"$LAB_WORK/http.log" 2>&1 &
http_pid=$!
trap 'kill $http_pid 2>/dev/null; lab_cleanup' EXIT
port=
for _ in $(seq 100); do
  port=$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$LAB_WORK/http.log")
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { cat "$LAB_WORK/http.log" >&2; lab_fail "the HTTP server did not start"; }

mkdir -p "$LAB_WORK/r"
sed "s|^mirror = \"host\"$|rootfs_url = \"http://127.0.0.1:$port/vendor/rootfs.tar.zst\"\nrootfs_sha256 = \"$sha\"|" \
  "$SRC/recipes/qemu-virt.toml" >"$LAB_WORK/r/qemu-virt.toml"
grep -q '^rootfs_sha256 = ' "$LAB_WORK/r/qemu-virt.toml" || lab_fail "could not point the recipe at the archive"

build() {
  SOURCE_DATE_EPOCH=0 timeout 1200 "$RAILYARD" --drivers "$SRC/drivers" --overlays "$SRC/overlays" build \
    "$LAB_WORK/r/qemu-virt.toml" -o "$LAB_WORK/out/$1" --cache "$LAB_WORK/cache" >"$LAB_WORK/$1.log" 2>&1 || {
    tail -n 40 "$LAB_WORK/$1.log" >&2
    lab_fail "the build from the archive failed ($1)"
  }
}
build first
image=$LAB_WORK/out/first
grep -q "fetch http://127.0.0.1:$port/vendor/rootfs.tar.zst" "$LAB_WORK/first.log" || lab_fail "the archive was not fetched"
grep -q "mmdebstrap" "$LAB_WORK/first.log" && lab_fail "the build bootstrapped although the recipe names an archive"
grep -q "has the kernel and all" "$LAB_WORK/first.log" || lab_fail "the build installed packages the archive already had"
"$RAILYARD" audit "$image" || lab_fail "railyard audit found problems in the image built from the archive"

# The recipe differs (rootfs_url), and a build from an archive writes the recipe's dpkg path
# filters to a file of its own (the archive's 99mmdebstrap holds the same lines): both are
# checked below, the rest must be the same entry for entry.
filters=etc/dpkg/dpkg.cfg.d/90railyard-path-filters
listing() {
  zstd -dc "$1" | cpio -itv --quiet 2>/dev/null | grep -v -e ' etc/railyard/recipe.toml$' -e " $filters\$"
}
zstd -dc "$image/rootfs.cpio.zst" | (cd "$LAB_WORK" && cpio -id --quiet "$filters" 2>/dev/null)
[[ -f $LAB_WORK/$filters ]] || lab_fail "the image built from the archive has no $filters"
diff <(grep -v '^#' "$LAB_WORK/$filters") <(zstd -dc "$LAB_IMAGE/rootfs.cpio.zst" |
  (cd "$LAB_WORK" && mkdir -p boot-root && cd boot-root && cpio -id --quiet etc/dpkg/dpkg.cfg.d/99mmdebstrap 2>/dev/null &&
   grep '^path-' etc/dpkg/dpkg.cfg.d/99mmdebstrap)) ||
  lab_fail "the archive build's dpkg path filters are not the bootstrap's"
diff <(listing "$LAB_IMAGE/rootfs.cpio.zst") <(listing "$image/rootfs.cpio.zst") >"$LAB_WORK/listing.diff" || {
  head -n 20 "$LAB_WORK/listing.diff" >&2
  lab_fail "the root filesystem built from the archive differs from the bootstrapped one"
}
packages() { python3 -c 'import json,sys; [print(p["name"], p["version"]) for p in json.load(open(sys.argv[1]))["packages"]]' "$1"; }
diff <(packages "$LAB_IMAGE/manifest.json") <(packages "$image/manifest.json") || lab_fail "the package lists differ"

# With the stages gone but the cache's downloads kept, the base is unpacked again from the
# archive fetched before: nothing is fetched.
requests=$(grep -c '"GET /vendor/rootfs.tar.zst' "$LAB_WORK/http.log")
rm -rf "$LAB_WORK/cache/base" "$LAB_WORK/cache/drivers" "$LAB_WORK/cache/pack"
build second
grep -q "unpack rootfs.tar.zst" "$LAB_WORK/second.log" || lab_fail "the second build did not unpack the archive"
[[ $(grep -c '"GET /vendor/rootfs.tar.zst' "$LAB_WORK/http.log") -eq $requests ]] || lab_fail "the archive was fetched again"
cmp "$image/rootfs.cpio.zst" "$LAB_WORK/out/second/rootfs.cpio.zst" || lab_fail "two builds from the archive differ"
echo "build_rootfs_archive: the image from a $(($(stat -c %s "$LAB_WORK/srv/vendor/rootfs.tar.zst") >> 20)) MiB archive matches the bootstrapped one"
