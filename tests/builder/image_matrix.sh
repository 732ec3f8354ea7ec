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

# The CI definitions are YAML and run this script with railyard from an install prefix,
# which carries the agent package the builds need (share/railyard/packages).
python3 - "$src" <<'PY' || fail "CI definitions"
import sys, yaml
src = sys.argv[1]
gh = yaml.safe_load(open(src + "/.github/workflows/images.yml"))
prep = "\n".join(s.get("run", "") for s in gh["jobs"]["matrix"]["steps"])
assert "cmake --install build/ci --prefix" in prep and "agent-package" in prep, prep
up = [s for s in gh["jobs"]["matrix"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
assert up and up[0]["with"]["path"] == "prefix/", up
steps = [s.get("run", "") for s in gh["jobs"]["image"]["steps"]]
assert any("RAILYARD=prefix/bin/railyard ci/image-matrix.sh --only" in s for s in steps), steps
assert "--privileged" in gh["jobs"]["image"]["container"]["options"], gh["jobs"]["image"]["container"]
uploads = [s["with"]["path"] for s in gh["jobs"]["image"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
assert any("manifest.json" in p and ".diff.txt" in p for p in uploads) and any(p.rstrip().endswith("/") for p in uploads), uploads
assert "fromJSON(needs.matrix.outputs.entries)" in gh["jobs"]["image"]["strategy"]["matrix"]["entry"]
gl = yaml.safe_load(open(src + "/.gitlab-ci.yml"))
script = gl["railyard"]["script"]
assert any("--gitlab-pipeline" in s for s in script), gl
assert any("cmake --install build/ci --prefix" in s for s in script), script
assert "prefix/" in gl["railyard"]["artifacts"]["paths"], gl["railyard"]["artifacts"]
assert gl["images"]["trigger"]["include"][0]["artifact"] == "images.yml", gl
PY
python3 - "$tmp/child.yml" <<'PY' || fail "child pipeline jobs: $(cat "$tmp/child.yml")"
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))[".image"]
assert job["tags"] == ["privileged"], job
assert any(l.startswith("RAILYARD=prefix/bin/railyard ci/image-matrix.sh --only") for l in job["script"]), job
assert any("--gitlab-previous" in l for l in job["script"]), job
assert "out/$ENTRY/" in job["artifacts"]["paths"], job["artifacts"]
PY
IMAGE_MATRIX_RUNNER_TAGS="gpu-lab, privileged" "$src/ci/image-matrix.sh" --gitlab-pipeline >"$tmp/tagged.yml"
python3 -c 'import sys, yaml; assert yaml.safe_load(open(sys.argv[1]))[".image"]["tags"] == ["gpu-lab", "privileged"]' \
  "$tmp/tagged.yml" || fail "IMAGE_MATRIX_RUNNER_TAGS"
command -v yamllint >/dev/null || fail "yamllint is missing (ci/setup-deps.sh installs it)"
yamllint -c "$src/.yamllint" "$src/.github/workflows/images.yml" "$src/.gitlab-ci.yml" "$tmp/child.yml" ||
  fail "yamllint (config .yamllint)"

# --gitlab-previous: the previous manifest, one file of GitLab's job artifacts API (here a
# stand-in on 127.0.0.1 serving the same path), with the job's token.
api=$tmp/api/projects/7/jobs/artifacts/main/raw/out/qemu-virt
mkdir -p "$api"
echo '{"schema": 1}' >"$api/manifest.json"
python3 -m http.server --bind 127.0.0.1 --directory "$tmp/api" 0 >"$tmp/http.log" 2>&1 &
http=$!
for _ in $(seq 50); do port=$(grep -o 'port [0-9]*' "$tmp/http.log" | cut -d' ' -f2) && [[ -n $port ]] && break; sleep 0.1; done
[[ -n ${port:-} ]] || { kill $http; fail "no HTTP server for the artifacts API stand-in"; }
CI_API_V4_URL=http://127.0.0.1:$port CI_PROJECT_ID=7 CI_COMMIT_REF_NAME=main CI_JOB_TOKEN=t \
  "$src/ci/image-matrix.sh" --gitlab-previous qemu-virt "$tmp/previous" >"$tmp/prev.out" 2>&1 || { kill $http; fail "--gitlab-previous: $(cat "$tmp/prev.out")"; }
grep -q '"job=image:qemu-virt\|GET /projects/7/jobs/artifacts/main/raw/out/qemu-virt/manifest.json?job=image%3Aqemu-virt' "$tmp/http.log" ||
  { kill $http; fail "--gitlab-previous asked for: $(cat "$tmp/http.log")"; }
set +e
CI_API_V4_URL=http://127.0.0.1:$port CI_PROJECT_ID=7 CI_COMMIT_REF_NAME=main CI_JOB_TOKEN=t \
  "$src/ci/image-matrix.sh" --gitlab-previous gpu4-cx6dx-100g "$tmp/previous" >/dev/null 2>&1; rc=$?
set -e
kill $http
cmp -s "$api/manifest.json" "$tmp/previous/qemu-virt/manifest.json" || fail "--gitlab-previous wrote no manifest"
[[ $rc -ne 0 && ! -e $tmp/previous/gpu4-cx6dx-100g/manifest.json ]] || fail "--gitlab-previous without a previous job: exit $rc"
echo "image_matrix: ok"
