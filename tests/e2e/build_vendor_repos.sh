#!/usr/bin/env bash
# Driver releases from vendor apt repositories, end to end: two flat repositories made at
# test time and signed with a throwaway key (tests/e2e/lib/vendor.bash), an OFED-like one and
# a CUDA-like one whose peer-memory module must be compiled against the OFED one, served on
# 127.0.0.1 and installed through kind = "apt" bundles with key_url, key_fingerprint and
# pin_priority. Each refusal (wrong key, unsigned or wrongly signed repository, missing
# package, DKMS build failure) exits 1 naming the bundle and the cause and writes nothing to
# -o; the build builds both modules for the image's kernel on the cached base, and a second
# release of the OFED stand-in rebuilds the peer-memory module against it.
source "$(dirname "$0")/lib/lab.bash"
source "$(dirname "$0")/lib/vendor.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"  # the base the builds below reuse

vendor_init
V=$VENDOR_ROOT
mkdir -p "$V/ofed-1.0" "$V/ofed-1.1" "$V/cuda" "$V/ofed-unsigned" "$V/ofed-impostor" "$V/ofed-broken"
tree=$LAB_WORK/trees
vendor_labofed_src "$tree/ofed-1.0" 1.0
vendor_labofed_src "$tree/ofed-1.1" 1.1
vendor_labofed_src "$tree/ofed-broken" 1.0 broken
vendor_peermem_src "$tree/cuda" 1.0
for r in ofed-1.0 ofed-unsigned ofed-impostor; do
  vendor_deb "$V/$r" labofed-dkms 1.0 "dkms" "$tree/ofed-1.0"
  vendor_deb "$V/$r" labofed 1.0 "labofed-dkms (= 1.0)"
done
vendor_deb "$V/ofed-1.1" labofed-dkms 1.1 "dkms" "$tree/ofed-1.1"
vendor_deb "$V/ofed-1.1" labofed 1.1 "labofed-dkms (= 1.1)"
vendor_deb "$V/ofed-broken" labofed-dkms 1.0 "dkms" "$tree/ofed-broken"
vendor_deb "$V/ofed-broken" labofed 1.0 "labofed-dkms (= 1.0)"
vendor_deb "$V/cuda" labpeermem-dkms 1.0 "dkms, labofed-dkms (>= 1.0)" "$tree/cuda"
# A package Debian has too, at a higher version: pin_priority 600 makes the vendor's win, as
# NVIDIA's repositories override the distribution's rdma-core.
vendor_deb "$V/cuda" hello 1.0-railyard-vendor ""
for r in ofed-1.0 ofed-1.1 cuda ofed-broken; do vendor_publish "$V/$r"; done
vendor_publish "$V/ofed-unsigned" unsigned
vendor_publish "$V/ofed-impostor" "$VENDOR_OTHER_FPR"
vendor_serve

drivers=$LAB_WORK/drivers
mkdir -p "$drivers"
cp -r "$SRC"/drivers/. "$drivers/"
ofed='"labofed"'
vendor_bundle "$drivers/labofed-1.0.toml" labofed-1.0 1.0 ofed-1.0 "$ofed" '"labofed"' '"labofed"'
vendor_bundle "$drivers/labofed-1.1.toml" labofed-1.1 1.1 ofed-1.1 "$ofed" '"labofed"' '"labofed"'
vendor_bundle "$drivers/labpeermem-1.0.toml" labpeermem-1.0 1.0 cuda '"labpeermem-dkms", "hello"' '"labpeermem"' \
  '"labpeermem"'
vendor_bundle "$drivers/labofed-pinmismatch.toml" labofed-pinmismatch 1.0 ofed-1.0 "$ofed" '"labofed"' '"labofed"' \
  "$VENDOR_OTHER_FPR"
vendor_bundle "$drivers/labofed-unsigned.toml" labofed-unsigned 1.0 ofed-unsigned "$ofed" '"labofed"' '"labofed"'
vendor_bundle "$drivers/labofed-impostor.toml" labofed-impostor 1.0 ofed-impostor "$ofed" '"labofed"' '"labofed"'
vendor_bundle "$drivers/labofed-missing.toml" labofed-missing 1.0 ofed-1.0 '"labofed", "labofed-tools"' '"labofed"' \
  '"labofed"'
vendor_bundle "$drivers/labofed-broken.toml" labofed-broken 1.0 ofed-broken "$ofed" '"labofed"' '"labofed"'

# recipe NAME BUNDLE...: the lab recipe with these bundles added after its own.
recipe() {
  local name=$1 list
  shift
  list=$(printf ', "%s"' "$@")
  mkdir -p "$LAB_WORK/r"
  sed "s/^drivers = \[\"debian12-inbox\", \"railyard-lab-qos\"\]$/drivers = [\"debian12-inbox\", \"railyard-lab-qos\"$list]/" \
    "$SRC/recipes/qemu-virt.toml" >"$LAB_WORK/r/$name.toml"
  grep -q "\"$1\"" "$LAB_WORK/r/$name.toml" || lab_fail "could not add $* to the recipe"
  # The stand-ins drive no device: systemd-modules-load loads labpeermem at boot (and
  # labofed, which it needs), as an operator loads a peer-memory module.
  sed -i 's/"modules_load=railyard_lab_qos,\([a-z0-9_,]*\)"/"modules_load=railyard_lab_qos,\1,labpeermem"/' "$LAB_WORK/r/$name.toml"
  grep -q '"modules_load=railyard_lab_qos,[a-z0-9_,]*,labpeermem"' "$LAB_WORK/r/$name.toml" || lab_fail "could not load labpeermem at boot"
  echo "$LAB_WORK/r/$name.toml"
}

# build RECIPE OUT LOG: railyard build on the shared stage cache; its exit status.
build() {
  SOURCE_DATE_EPOCH=0 timeout 2400 "$RAILYARD" --drivers "$drivers" --overlays "$SRC/overlays" build "$1" -o "$2" \
    --cache "$LAB_CACHE/stages" >"$3" 2>&1
}

# refused BUNDLE WHY PATTERN...: a build with BUNDLE exits 1, its error names the bundle and
# matches every PATTERN, and nothing is left at -o.
refused() {
  local bundle=$1 why=$2 out=$LAB_WORK/refused-$1 log=$LAB_WORK/refused-$1.log rc=0 start=$SECONDS
  shift 2
  build "$(recipe "$bundle" "$bundle")" "$out" "$log" || rc=$?
  ((rc == 1)) || { tail -n 30 "$log" >&2; lab_fail "$why: exit $rc, not 1"; }
  grep -q "$bundle" "$log" || { tail -n 30 "$log" >&2; lab_fail "$why: the error does not name bundle $bundle"; }
  local p
  for p in "$@"; do
    grep -qE -- "$p" "$log" || { tail -n 30 "$log" >&2; lab_fail "$why: the error does not say /$p/"; }
  done
  [[ ! -e $out ]] || lab_fail "$why: the refused build left $out"
  echo "build_vendor_repos: refused ($why) in $((SECONDS - start)) s: $(grep -m1 "^railyard build:" "$log" | cut -c1-240)"
}

refused labofed-pinmismatch "a key whose fingerprint is not the pinned one" \
  "labofed-pinmismatch.toml: apt.key_url: .*the key's fingerprint is $VENDOR_FPR .*not the pinned $VENDOR_OTHER_FPR"
refused labofed-unsigned "an unsigned repository" \
  "labofed-unsigned.toml: bundle labofed-unsigned 1.0: its repository $VENDOR_URL/ofed-unsigned/ is not signed"
refused labofed-impostor "a repository signed with another key" \
  "labofed-impostor.toml: bundle labofed-impostor 1.0: its repository .* is signed by key ${VENDOR_OTHER_FPR:24}, not by the bundle's key \\($VENDOR_FPR\\)"
refused labofed-missing "a package missing from the repository" \
  "labofed-missing.toml: bundle labofed-missing 1.0: package labofed-tools is in none of the image's repositories"
refused labofed-broken "a DKMS build that fails" \
  "labofed-broken.toml: bundle labofed-broken 1.0: DKMS build of labofed/1.0 for [^ ]+ failed" "make.log \\(last lines\\)" \
  "labofed.c:[0-9]+:[0-9]+: error:"

# modinfo_of OUT FIELD MODULE: a field of MODULE's .ko as packed into OUT's image.
modinfo_of() {
  local out=$1 field=$2 module=$3 ko dir
  dir=$LAB_WORK/unpacked-$(basename "$1")
  if [[ ! -d $dir ]]; then
    mkdir -p "$dir"
    (cd "$dir" && zstd -dc "$out"/rootfs*.cpio.zst | cpio -idm --quiet '*updates/dkms/*.ko' '*/modules.dep' 2>/dev/null)
  fi
  ko=$(find "$dir" -name "$module.ko" | head -1)
  [[ -n $ko ]] || lab_fail "$module.ko is not in the image at $out"
  modinfo -F "$field" "$ko"
}

# check_release OUT OFED_VERSION: the manifest records both bundles, their packages and
# modules, built for the image's kernel; labpeermem was built against that labofed.
check_release() {
  local out=$1 ofed=$2 kver
  kver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"]["version"])' "$out/manifest.json")
  python3 - "$out/manifest.json" "$kver" "$ofed" <<'PY' || lab_fail "the manifest of $out does not record the vendor bundles"
import json, sys
m, kver, ofed = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
drivers = {d["name"]: d for d in m["drivers"]}
o, p = drivers["labofed-" + ofed], drivers["labpeermem-1.0"]
assert o["kind"] == "apt" and o["version"] == ofed and o["packages"] == ["labofed"], o
assert [(k["module"], k["version"], k["kernel"]) for k in o["dkms"]] == [("labofed", ofed, kver)], o["dkms"]
assert [f.rsplit("/", 1)[1] for f in o["dkms"][0]["files"]] == ["labofed.ko"], o["dkms"]
assert [(k["module"], k["version"]) for k in p["dkms"]] == [("labpeermem", "1.0")], p["dkms"]
assert [f.rsplit("/", 1)[1] for f in p["dkms"][0]["files"]] == ["labpeermem.ko"], p["dkms"]
lab = drivers["railyard-lab-qos"]["dkms"][0]["files"]
assert [f.rsplit("/", 1)[1] for f in lab] == ["railyard_lab_qos.ko"], lab
# A lean image: the toolchain went, and the vendor's DKMS sources with it; their modules stay.
t = m["build_tools"]
assert t["kept"] == [] and t["why_kept"] == "", t
assert {"dkms", "gcc-12", "make", "linux-headers-" + kver} <= set(t["removed"]), t["removed"]
assert t["sources_removed"] == ["labofed " + ofed, "labofed-dkms " + ofed, "labpeermem-dkms 1.0"], t["sources_removed"]
versions = {p["name"]: p["version"] for p in m["packages"]}
assert versions.get("hello") == "1.0-railyard-vendor", ("the vendor's pin did not win", versions.get("hello"))
left = {p["name"] for p in m["packages"]} & ({"dkms", "gcc-12", "make", "labofed-dkms"} | set(t["removed"]))
assert not left, left
PY
  [[ $(modinfo_of "$out" version labofed) == "$ofed" ]] || lab_fail "labofed.ko in $out is not $ofed"
  [[ $(modinfo_of "$out" vermagic labofed) == "$kver "* ]] || lab_fail "labofed.ko was not built for $kver"
  [[ $(modinfo_of "$out" depends labpeermem) == labofed ]] || lab_fail "labpeermem.ko does not depend on labofed"
  grep -qE "^(/lib/modules/$kver/)?updates/dkms/labpeermem.ko: (/lib/modules/$kver/)?updates/dkms/labofed.ko$" \
    "$LAB_WORK/unpacked-$(basename "$out")"/*/lib/modules/"$kver"/modules.dep ||
    lab_fail "modules.dep of $out does not have labpeermem needing labofed (the modules were not indexed again)"
  local against
  against=$(modinfo_of "$out" labofed labpeermem)
  [[ $against == "$ofed" ]] || lab_fail "labpeermem.ko in $out was built against labofed $against, not $ofed"
  echo "build_vendor_repos: $out: labofed $ofed and labpeermem (built against labofed $against) for $kver;" \
    "image $(du -cb "$out"/rootfs*.cpio.zst | tail -1 | cut -f1) bytes"
}

# release NAME OFED_VERSION: builds the recipe with labofed OFED_VERSION and labpeermem 1.0
# into LAB_WORK/out-OFED_VERSION on the cached base and checks it; REL_SECONDS is its time.
release() {
  local out=$LAB_WORK/out-$2 log=$LAB_WORK/build-$2.log start=$SECONDS
  build "$(recipe "$1" "labofed-$2" labpeermem-1.0)" "$out" "$log" ||
    { tail -n 40 "$log" >&2; lab_fail "the build with labofed $2 failed"; }
  REL_SECONDS=$((SECONDS - start))
  grep -q "base: reusing" "$log" || lab_fail "the build with labofed $2 did not reuse the cached base"
  check_release "$out" "$2"
}

release v1.0 1.0
out10=$LAB_WORK/out-1.0 t10=$REL_SECONDS
# The next OFED release: the peer-memory module is rebuilt against it.
release v1.1 1.1
out11=$LAB_WORK/out-1.1 t11=$REL_SECONDS
"$RAILYARD" diff "$out10/manifest.json" "$out11/manifest.json" >"$LAB_WORK/diff.txt" || true
cat "$LAB_WORK/diff.txt"
grep -q "labofed-1.1" "$LAB_WORK/diff.txt" || lab_fail "railyard diff does not name the new bundle"
grep -qE "labofed.*1\.0.*1\.1" "$LAB_WORK/diff.txt" || lab_fail "railyard diff does not name the module's versions"
echo "build_vendor_repos: 1.0 build ${t10} s, 1.1 rebuild ${t11} s on the cached base"

# The 1.1 image boots in the lab: the modules load (modules.dep was rebuilt after the
# toolchain left), and the report lists them with their versions.
LAB_IMAGE=$out11
lab_boot vendor-1.1 --storage-target --target-node lab-target01
lab_expect_rc 0
lab_assert <<'PY'
mods = {m["name"]: m for m in report["modules"] or []}
def mod(name, **want):
    m = mods.get(name)
    expect(m is not None, "%s in the report's modules: %s" % (name, sorted(mods)))
    for k, v in want.items():
        expect(m[k] == v, "%s.%s is %r, not %r: %s" % (name, k, m[k], v, m))
mod("labofed", bundle="labofed-1.1", bundle_version="1.1", built="1.1", loaded=True, version="1.1")
mod("labpeermem", bundle="labpeermem-1.0", built="1.0", loaded=True, version="1.0")
mod("railyard_lab_qos", bundle="railyard-lab-qos", built="1.0", loaded=True)
expect(all(len(mods[n]["srcversion"] or "") >= 20 for n in ("labofed", "labpeermem")), "srcversion of the loaded modules")
expect(mods["mlx5_core"]["loaded"] is False, "the lab has no ConnectX: %s" % mods["mlx5_core"])
PY
"$RAILYARD" report show "$LAB_RUN/report.json" >"$LAB_WORK/show.txt" || true
grep -Eq "^  labofed +1\.1 +loaded +labofed-1\.1, DKMS 1\.1, srcversion " "$LAB_WORK/show.txt" ||
  { cat "$LAB_WORK/show.txt" >&2; lab_fail "railyard report show does not list labofed 1.1 as loaded"; }
echo "build_vendor_repos: the 1.1 image booted; $(grep -E '^  lab(ofed|peermem) ' "$LAB_WORK/show.txt" | tr -s ' ' | paste -sd ';')"
