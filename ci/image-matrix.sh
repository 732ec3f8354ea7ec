#!/usr/bin/env bash
# The image matrix CI rebuilds: every shipped recipe (recipes/*.toml; not base/ or
# inventories/) with the driver releases it pins, plus one entry per other release in
# drivers/ of a pinned bundle's family that supports the recipe's distro and suite
# (doca-ofed-2.11.0 beside a pinned doca-ofed-2.10.0), so a new driver release is built
# against every SKU before a recipe adopts it. The same script runs the matrix in CI
# (.github/workflows/images.yml, .gitlab-ci.yml) and locally.
#
#   ci/image-matrix.sh --dry-run                 the matrix, and `railyard build --dry-run` per entry
#   ci/image-matrix.sh --json                    the matrix as JSON (CI's job list)
#   ci/image-matrix.sh --gitlab-pipeline         a GitLab child pipeline with one job per entry
#   ci/image-matrix.sh --gitlab-previous ID DIR  in a GitLab job: the manifest the last successful
#                                                pipeline of the branch built for ID, as DIR/ID/manifest.json
#   ci/image-matrix.sh [--only ID] [--out DIR] [--previous DIR]
#                                                build each entry into DIR/ID, audit it, and diff
#                                                it against PREVIOUS/ID/manifest.json when there
# railyard is $RAILYARD, else build/ci/railyard, else the one on $PATH. IMAGE_MATRIX_RECIPES,
# _DRIVERS and _OVERLAYS replace the checkout's directories; IMAGE_MATRIX_CACHE is the
# builds' stage cache (railyard build --cache; its default otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

usage() { sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 2; }
mode=build only="" out=out/matrix previous=""
while (($#)); do
  case $1 in
    --dry-run) mode=dry-run ;;
    --json) mode=json ;;
    --gitlab-pipeline) mode=gitlab ;;
    --gitlab-previous)
      mode=gitlab-previous only=${2:?--gitlab-previous needs an entry id} previous=${3:?--gitlab-previous needs a directory}
      shift 2 ;;
    --only) only=${2:?--only needs an entry id}; shift ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --previous) previous=${2:?--previous needs a directory}; shift ;;
    -h|--help) usage ;;
    *) echo "image-matrix: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done

if [[ $mode == gitlab-previous ]]; then
  [[ $only =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] ||
    { echo "image-matrix: --gitlab-previous: '$only' is no entry id (letters, digits, '.', '_', '-')" >&2; exit 2; }
  # The job artifacts API, one file of the last successful job image:ID on this branch, with
  # the job's token; Python, since the job image has no curl.
  mkdir -p "$previous/$only"
  python3 - "$only" "$previous/$only/manifest.json" <<'PY'
import os, sys, urllib.parse, urllib.request
entry, dest = sys.argv[1], sys.argv[2]
url = "%s/projects/%s/jobs/artifacts/%s/raw/out/%s/manifest.json?job=%s" % (
    os.environ["CI_API_V4_URL"], os.environ["CI_PROJECT_ID"], urllib.parse.quote(os.environ["CI_COMMIT_REF_NAME"], safe=""),
    urllib.parse.quote(entry), urllib.parse.quote("image:" + entry))
req = urllib.request.Request(url, headers={"JOB-TOKEN": os.environ["CI_JOB_TOKEN"]})
data = urllib.request.urlopen(req, timeout=60).read()
with open(dest + ".part", "wb") as f:
    f.write(data)
os.rename(dest + ".part", dest)
print("previous manifest of %s: %d bytes" % (entry, len(data)))
PY
  exit
fi

railyard=${RAILYARD:-}
[[ -z $railyard && -x build/ci/railyard ]] && railyard=build/ci/railyard
[[ -z $railyard ]] && railyard=$(command -v railyard || true)
[[ -n $railyard && -x $railyard ]] || { echo "image-matrix: no railyard binary (set RAILYARD or build build/ci)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "image-matrix: python3 is missing (ci/setup-deps.sh installs it)" >&2; exit 2; }
recipes_dir=${IMAGE_MATRIX_RECIPES:-$src/recipes}
drivers_dir=${IMAGE_MATRIX_DRIVERS:-$src/drivers}
overlays_dir=${IMAGE_MATRIX_OVERLAYS:-$src/overlays}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each recipe resolved (extends applied) as JSON, one file per recipe.
shopt -s nullglob
recipes=("$recipes_dir"/*.toml)
((${#recipes[@]})) || { echo "image-matrix: no recipes in $recipes_dir" >&2; exit 2; }
for r in "${recipes[@]}"; do
  "$railyard" show --json --drivers "$drivers_dir" --overlays "$overlays_dir" "$r" >"$work/$(basename "$r" .toml).json" ||
    { echo "image-matrix: $r does not resolve (run railyard check on it)" >&2; exit 2; }
done

# The matrix, one JSON object per line: {"id", "recipe" (a file), "drivers", "variant"}.
# Variants get a recipe of their own that extends the shipped one with the other release.
python3 - "$work" "$drivers_dir" "${recipes[@]}" >"$work/matrix.jsonl" <<'PY'
import json, os, sys, tomllib
work, drivers_dir, recipes = sys.argv[1], sys.argv[2], sys.argv[3:]

def family(name, version):
    suffix = "-" + version
    return name[: -len(suffix)] if version and name.endswith(suffix) and len(name) > len(suffix) else name

manifests = {}
for f in sorted(os.listdir(drivers_dir)):
    if f.endswith(".toml"):
        with open(os.path.join(drivers_dir, f), "rb") as fh:
            m = tomllib.load(fh)
        manifests[m["name"]] = m

for path in recipes:
    stem = os.path.basename(path)[: -len(".toml")]
    with open(os.path.join(work, stem + ".json")) as fh:
        r = json.load(fh)
    name, image = r["name"], r["image"]
    pinned = list(image.get("drivers", []))
    print(json.dumps({"id": name, "recipe": path, "drivers": pinned, "variant": False}))
    target = f'{image["distro"]}:{image["suite"]}'
    for i, bundle in enumerate(pinned):
        m = manifests.get(bundle)
        if m is None:
            continue
        fam = family(m["name"], m.get("version", ""))
        for other in sorted(manifests.values(), key=lambda x: x["name"]):
            if other["name"] == bundle or family(other["name"], other.get("version", "")) != fam:
                continue
            if other.get("suites") and target not in other["suites"]:
                continue
            drivers = pinned[:i] + [other["name"]] + pinned[i + 1:]
            vid = f'{name}.{other["name"]}'
            vpath = os.path.join(work, vid + ".toml")
            with open(vpath, "w") as fh:
                fh.write(f'# {name} with {other["name"]} instead of {bundle} (ci/image-matrix.sh)\n')
                fh.write(f'schema = 1\nextends = {json.dumps(os.path.abspath(path))}\nname = {json.dumps(vid)}\n\n')
                fh.write(f'[image]\ndrivers = {json.dumps(drivers)}\n')
            print(json.dumps({"id": vid, "recipe": vpath, "drivers": drivers, "variant": True}))
PY

entries=()
while IFS= read -r line; do entries+=("$line"); done <"$work/matrix.jsonl"
field() { python3 -c 'import json,sys; v=json.loads(sys.argv[1])[sys.argv[2]]; print(" ".join(v) if isinstance(v, list) else v)' "$1" "$2"; }

if [[ $mode == json ]]; then
  # Recipe files of variants live in a temporary directory: CI jobs rebuild the matrix and
  # pick their entry by id.
  python3 -c 'import json,sys; print(json.dumps([{k: e[k] for k in ("id", "drivers", "variant")} for e in map(json.loads, sys.stdin)]))' \
    <"$work/matrix.jsonl"
  exit 0
fi

if [[ $mode == gitlab ]]; then
  # JSON is YAML: one job per entry, each running this script for its id (and first
  # --gitlab-previous, for the manifest to diff against).
  python3 - "$work/matrix.jsonl" <<'PY'
import json, os, sys
# Runners that may run privileged containers (railyard build mounts): .gitlab-ci.yml.
tags = [t.strip() for t in os.environ.get("IMAGE_MATRIX_RUNNER_TAGS", "privileged").split(",") if t.strip()]
pipeline = {
    ".image": {
        "image": "debian:bookworm",
        "needs": [{"pipeline": "$PARENT_PIPELINE_ID", "job": "railyard"}],
        "tags": tags,
        "script": [
            "./ci/setup-deps.sh",
            'ci/image-matrix.sh --gitlab-previous "$ENTRY" previous || echo "no previous image of $ENTRY"',
            'RAILYARD=prefix/bin/railyard ci/image-matrix.sh --only "$ENTRY" --out out --previous previous',
        ],
        "artifacts": {"when": "always", "expire_in": "30 days",
                      "paths": ["out/$ENTRY/", "out/$ENTRY.diff.txt", "out/$ENTRY.diff.json", "out/$ENTRY.audit.txt"]},
    },
}
with open(sys.argv[1]) as fh:
    for e in map(json.loads, fh):
        pipeline["image:" + e["id"]] = {"extends": ".image", "variables": {"ENTRY": e["id"]}}
print(json.dumps(pipeline, indent=2))
PY
  exit 0
fi

printf '%-44s %-8s %s\n' ENTRY KIND DRIVERS
for e in "${entries[@]}"; do
  kind=pinned
  [[ $(field "$e" variant) == True ]] && kind=variant
  printf '%-44s %-8s %s\n' "$(field "$e" id)" "$kind" "$(field "$e" drivers)"
done

# Building needs root and mounts (mmdebstrap's chroot, /proc and /dev in the image): say so
# before the first build rather than deep in one.
if [[ $mode == build ]]; then
  if [[ $(id -u) -ne 0 ]] || ! unshare --mount true 2>/dev/null; then
    echo "image-matrix: railyard build needs root with mount privileges: run as root, in CI a privileged" \
      "container (GitHub Actions: container options --privileged; GitLab: a Docker runner with" \
      "privileged = true, tagged as IMAGE_MATRIX_RUNNER_TAGS says)" >&2
    exit 2
  fi
fi

failed=0 ran=0
for e in "${entries[@]}"; do
  id=$(field "$e" id) recipe=$(field "$e" recipe)
  [[ -z $only || $only == "$id" ]] || continue
  ran=$((ran + 1))
  echo
  echo "== $id"
  common=(--drivers "$drivers_dir" --overlays "$overlays_dir")
  if [[ $mode == dry-run ]]; then
    "$railyard" "${common[@]}" build --dry-run "$recipe" || { echo "image-matrix: $id: dry run failed"; failed=$((failed + 1)); }
    continue
  fi
  mkdir -p "$out"
  cache=()
  [[ -n ${IMAGE_MATRIX_CACHE:-} ]] && cache=(--cache "$IMAGE_MATRIX_CACHE")
  if ! "$railyard" "${common[@]}" build "$recipe" -o "$out/$id" "${cache[@]}"; then
    echo "image-matrix: $id: build failed"
    failed=$((failed + 1))
    continue
  fi
  "$railyard" audit "$out/$id" | tee "$out/$id.audit.txt" || { echo "image-matrix: $id: audit found problems"; failed=$((failed + 1)); }
  if [[ -n $previous && -f $previous/$id/manifest.json ]]; then
    "$railyard" diff "$previous/$id/manifest.json" "$out/$id/manifest.json" | tee "$out/$id.diff.txt"
    "$railyard" diff --json "$previous/$id/manifest.json" "$out/$id/manifest.json" >"$out/$id.diff.json"
  else
    echo "no previous image of $id to compare with" | tee "$out/$id.diff.txt"
  fi
done
[[ -z $only || $ran -gt 0 ]] || { echo "image-matrix: no entry '$only' in the matrix" >&2; exit 2; }
echo
echo "image-matrix: $ran entries, $failed failed"
((failed == 0))
