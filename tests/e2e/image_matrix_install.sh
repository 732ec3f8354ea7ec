#!/usr/bin/env bash
# CI's image job as CI runs it: railyard installed once into a fresh prefix (cmake --install:
# bin/railyard and the agent package under share/railyard/packages), then ci/image-matrix.sh
# with that railyard builds the lab recipe's row, audits it and diffs it against the previous
# image's manifest. The stage cache is the lab's, so only what changed is built.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"  # the previous image, and the warm cache

build_dir=$(dirname "$RAILYARD")
prefix=$LAB_WORK/prefix
cmake --install "$build_dir" --prefix "$prefix" >"$LAB_WORK/install.log" 2>&1 ||
  { tail -n 20 "$LAB_WORK/install.log" >&2; lab_fail "cmake --install into a fresh prefix failed"; }
[[ -x $prefix/bin/railyard ]] || lab_fail "no bin/railyard in the install prefix"
compgen -G "$prefix/share/railyard/packages/railyard-firstboot_*.deb" >/dev/null ||
  lab_fail "the install prefix has no agent package under share/railyard/packages"
[[ ! -e $prefix/bin/packages ]] || lab_fail "the agent package was installed beside the binary, not under share/"

mkdir -p "$LAB_WORK/previous/qemu-virt"
cp "$LAB_IMAGE/manifest.json" "$LAB_WORK/previous/qemu-virt/"
start=$SECONDS
# From a copy of the script's checkout layout, as a CI job runs it; the build finds its
# agent package through the prefix (nothing beside build/ is reachable from there).
RAILYARD=$prefix/bin/railyard IMAGE_MATRIX_CACHE=$LAB_CACHE/stages SOURCE_DATE_EPOCH=0 \
  "$SRC/ci/image-matrix.sh" --only qemu-virt --out "$LAB_WORK/out" --previous "$LAB_WORK/previous" \
  >"$LAB_WORK/matrix.log" 2>&1 || { tail -n 40 "$LAB_WORK/matrix.log" >&2; lab_fail "ci/image-matrix.sh --only qemu-virt failed"; }
took=$((SECONDS - start))
grep -q "^image-matrix: 1 entries, 0 failed$" "$LAB_WORK/matrix.log" || lab_fail "tally: $(tail -n 5 "$LAB_WORK/matrix.log")"
out=$LAB_WORK/out
[[ -f $out/qemu-virt/manifest.json && -f $out/qemu-virt.audit.txt && -f $out/qemu-virt.diff.txt && -f $out/qemu-virt.diff.json ]] ||
  lab_fail "the row did not leave its image, audit and diffs: $(ls "$out")"
compgen -G "$out/qemu-virt/rootfs*.cpio.zst" >/dev/null || lab_fail "no root file system image in $out/qemu-virt"
python3 - "$out/qemu-virt/manifest.json" "$prefix" <<'PY' || lab_fail "the image's agent is not the installed package"
import hashlib, json, os, sys
m, prefix = json.load(open(sys.argv[1])), sys.argv[2]
agent = [i for i in m["inputs"] if i["kind"] == "agent"]
assert len(agent) == 1, m["inputs"]
deb = os.path.join(prefix, "share/railyard/packages", agent[0]["name"])
assert hashlib.sha256(open(deb, "rb").read()).hexdigest() == agent[0]["sha256"], (deb, agent)
PY
grep -q "no previous image" "$out/qemu-virt.diff.txt" && lab_fail "the row was not diffed against the previous manifest"
echo "image_matrix_install: the lab row from a fresh install prefix in ${took} s (warm stage cache)"
