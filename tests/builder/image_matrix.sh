#!/usr/bin/env bash
# ci/image-matrix.sh: the matrix of shipped recipes and driver releases, a dry run per
# entry, a driver release beside a pinned one becoming an entry of its own, and the CI
# definitions that run it being valid YAML.
set -euo pipefail
railyard=$1 src=$3
python3 -c 'import yaml' 2>/dev/null || { echo "image_matrix: python3-yaml is missing (ci/setup-deps.sh installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "image_matrix: $*"; exit 1; }
export RAILYARD=$railyard
unset SOURCE_DATE_EPOCH

out=$("$src/ci/image-matrix.sh" --dry-run) || fail "--dry-run: exit $?: $out"
grep -q "^ENTRY  *KIND  *DRIVERS$" <<<"$out" || fail "no matrix table: $out"
shipped=0
for r in "$src"/recipes/*.toml; do
  name=$(basename "$r" .toml)
  shipped=$((shipped + 1))
  grep -Eq "^$name +pinned +" <<<"$out" || fail "no entry for $name: $out"
  grep -q "^railyard build $name: dry run, nothing is built or written$" <<<"$out" || fail "no dry run of $name: $out"
done
grep -Eq "^qemu-virt +pinned +debian12-inbox railyard-lab-qos$" <<<"$out" || fail "qemu-virt's drivers: $out"
grep -q "^image-matrix: $shipped entries, 0 failed$" <<<"$out" || fail "tally: $out"
grep -q "nvidia-roce-noble\|qemu-lab\|gpu4-rack1" <<<"$(grep pinned <<<"$out")" && fail "base recipes or inventories in the matrix: $out"

# A newer release of a pinned bundle becomes an entry per recipe that pins its family.
cp -r "$src/drivers" "$tmp/drivers"
sed -e 's/^name = "doca-ofed-2.10.0"/name = "doca-ofed-2.11.0"/' -e 's/^version = "2.10.0"/version = "2.11.0"/' \
  -e 's|/doca/2.10.0/|/doca/2.11.0/|' "$src/drivers/doca-ofed-2.10.0.toml" >"$tmp/drivers/doca-ofed-2.11.0.toml"
export IMAGE_MATRIX_DRIVERS=$tmp/drivers
json=$("$src/ci/image-matrix.sh" --json) || fail "--json: exit $?"
python3 - "$json" <<'PY' || fail "--json: $json"
import json, sys
m = {e["id"]: e for e in json.loads(sys.argv[1])}
v = m["gpu4-cx6dx-100g.doca-ofed-2.11.0"]
assert v["variant"] and v["drivers"] == ["doca-ofed-2.11.0", "cuda-13.0"], v
assert "hgx-h100-8x400g.doca-ofed-2.11.0" in m, m
assert not any(k.startswith("qemu-virt.") for k in m), m  # debian12-inbox has no other release
assert m["qemu-virt"]["drivers"] == ["debian12-inbox", "railyard-lab-qos"], m
PY
out=$("$src/ci/image-matrix.sh" --dry-run --only gpu4-cx6dx-100g.doca-ofed-2.11.0) || fail "variant dry run: $out"
grep -q "^railyard build gpu4-cx6dx-100g.doca-ofed-2.11.0: dry run" <<<"$out" || fail "variant dry run: $out"
grep -Eq "^drivers .* doca-ofed-2.11.0 2.11.0, cuda-13.0 13.0$" <<<"$out" || fail "variant drivers row: $out"
grep -q "^image-matrix: 1 entries, 0 failed$" <<<"$out" || fail "variant tally: $out"

"$src/ci/image-matrix.sh" --gitlab-pipeline >"$tmp/child.yml" || fail "--gitlab-pipeline: exit $?"
python3 - "$tmp/child.yml" <<'PY' || fail "child pipeline: $(cat "$tmp/child.yml")"
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
assert p["image:gpu4-cx6dx-100g.doca-ofed-2.11.0"]["variables"]["ENTRY"] == "gpu4-cx6dx-100g.doca-ofed-2.11.0", p
assert p["image:qemu-virt"]["extends"] == ".image", p
assert any("ci/image-matrix.sh --only" in line for line in p[".image"]["script"]), p
PY
unset IMAGE_MATRIX_DRIVERS

set +e
err=$("$src/ci/image-matrix.sh" --dry-run --only no-such-entry 2>&1); rc=$?
set -e
[[ $rc -eq 2 ]] || fail "unknown entry: exit $rc"
grep -q "no entry 'no-such-entry' in the matrix" <<<"$err" || fail "unknown entry: $err"

# The CI definitions are YAML and run this script.
python3 - "$src" <<'PY' || fail "CI definitions"
import sys, yaml
src = sys.argv[1]
gh = yaml.safe_load(open(src + "/.github/workflows/images.yml"))
steps = [s.get("run", "") for s in gh["jobs"]["image"]["steps"]]
assert any("ci/image-matrix.sh --only" in s for s in steps), steps
assert "fromJSON(needs.matrix.outputs.entries)" in gh["jobs"]["image"]["strategy"]["matrix"]["entry"]
gl = yaml.safe_load(open(src + "/.gitlab-ci.yml"))
assert any("--gitlab-pipeline" in s for s in gl["railyard"]["script"]), gl
assert gl["images"]["trigger"]["include"][0]["artifact"] == "images.yml", gl
PY
echo "image_matrix: ok"
