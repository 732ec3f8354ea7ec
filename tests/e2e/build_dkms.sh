#!/usr/bin/env bash
# DKMS modules are built for the image's kernel: a recipe with a DKMS bundle (Debian's
# v4l2loopback-dkms standing in for OFED's) builds on the cached base, the manifest names
# the module, its version and the image's kernel, and the .ko is in the image under
# /lib/modules/KVER/updates. v4l2loopback-dkms depends on dkms: it goes with the build tools,
# its module stays, and the manifest says so.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"  # the base this build reuses

mkdir -p "$LAB_WORK/r/drivers"
cp -r "$SRC"/drivers/. "$LAB_WORK/r/drivers/"
cp "$SRC/tests/e2e/drivers/v4l2loopback-test.toml" "$LAB_WORK/r/drivers/"
sed 's/^drivers = \["debian12-inbox", "railyard-lab-qos"\]$/drivers = ["debian12-inbox", "railyard-lab-qos", "v4l2loopback-test"]/' \
  "$SRC/recipes/qemu-virt.toml" >"$LAB_WORK/r/qemu-virt.toml"
grep -q '"v4l2loopback-test"' "$LAB_WORK/r/qemu-virt.toml" || lab_fail "could not add the DKMS bundle to the recipe"
out=$LAB_WORK/out

# v4l2loopback needs videodev (drivers/media), which the lab recipe drops: the build must
# refuse, naming the module and its bundle, rather than drop a module it was asked to build.
if SOURCE_DATE_EPOCH=0 timeout 2400 "$RAILYARD" --overlays "$SRC/overlays" build "$LAB_WORK/r/qemu-virt.toml" -o "$out" \
  --cache "$LAB_CACHE/stages" >"$LAB_WORK/refused.log" 2>&1; then
  lab_fail "a recipe dropping what its DKMS module needs was built"
fi
grep -q "v4l2loopback.ko (DKMS module v4l2loopback of driver bundle v4l2loopback-test)" "$LAB_WORK/refused.log" ||
  { tail -n 20 "$LAB_WORK/refused.log" >&2; lab_fail "the refusal does not name the DKMS module"; }
[[ ! -e $out ]] || lab_fail "a refused build left $out"

sed -i 's/"drivers\/media", //' "$LAB_WORK/r/qemu-virt.toml"
grep -q '"drivers/media"' "$LAB_WORK/r/qemu-virt.toml" && lab_fail "could not keep drivers/media"
SOURCE_DATE_EPOCH=0 timeout 2400 "$RAILYARD" --overlays "$SRC/overlays" build "$LAB_WORK/r/qemu-virt.toml" -o "$out" \
  --cache "$LAB_CACHE/stages" >"$LAB_WORK/build.log" 2>&1 || {
  tail -n 40 "$LAB_WORK/build.log" >&2
  lab_fail "the build with a DKMS bundle failed"
}
! grep -q "^\[1/7\] base: building" "$LAB_WORK/build.log" || lab_fail "the base was built again instead of coming from the cache"

kver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"]["version"])' "$out/manifest.json")
ko=$(python3 - "$out/manifest.json" "$kver" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
d = [b for b in m["drivers"] if b["name"] == "v4l2loopback-test"][0]
k = d["dkms"][0]
assert k["module"] == "v4l2loopback", k
assert k["kernel"] == sys.argv[2], (k["kernel"], sys.argv[2])
assert k["files"] and all(f.startswith("lib/modules/%s/updates/" % sys.argv[2]) for f in k["files"]), k["files"]
tools = m["build_tools"]
assert tools["kept"] == [] and "dkms" in tools["removed"], tools
assert [s.split(" ")[0] for s in tools["sources_removed"]] == ["v4l2loopback-dkms"], tools
print(k["files"][0])
PY
) || lab_fail "the manifest does not record the DKMS module for kernel $kver"
# /lib is /usr/lib in a merged-/usr image: the archive holds the file under its real path.
zstd -dc "$out"/rootfs*.cpio.zst | cpio -it --quiet 2>/dev/null | grep -Ex "(usr/)?$ko" >/dev/null ||
  lab_fail "$ko is not in the image"
echo "build_dkms: v4l2loopback built for $kver: $ko"
