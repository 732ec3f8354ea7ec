#!/usr/bin/env bash
# What the peer checks add to a first boot: the lab node booted beside its storage target,
# in turns with the target marked as every rail's reference (the lab inventory as shipped)
# and with no reference (the same inventory less `reference = true`, so that no peer check
# is planned). For each boot: the guest's uptime at the agent's result line, the agent's
# verify phase (from its report), and the peer checks' figures. Then the medians and their
# difference: the time a node spends proving its rails across the leaf before it joins.
# Usage: ci/bench-peer-checks.sh [BUILD_DIR]   (as root; ROUNDS=N pairs of boots, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build/ci}")
railyard=$build/railyard
rounds=${ROUNDS:-3}
[[ -x $railyard ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "run as root: the image build bootstraps a root file system" >&2; exit 2; }
cache=${RAILYARD_E2E_CACHE:-$build/e2e}
image=$cache/images/qemu-virt
work=$(mktemp -d "${TMPDIR:-/tmp}/railyard-bench-peer.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache"
SOURCE_DATE_EPOCH=0 flock -o "$cache/build.lock" "$railyard" build recipes/qemu-virt.toml -o "$image" \
  --cache "$cache/stages" >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; exit 1; }

# The inventory without references: the same nodes and addresses, no peer check planned.
sed -e "s|^recipe = .*|recipe = \"$PWD/recipes/qemu-virt.toml\"|" -e '/^reference = true/d' \
  recipes/inventories/qemu-lab.toml >"$work/no-reference.toml"

for round in $(seq "$rounds"); do
  for side in reference none; do
    inventory=recipes/inventories/qemu-lab.toml
    [[ $side == none ]] && inventory=$work/no-reference.toml
    run=$work/$side-$round
    rc=0
    timeout 1500 "$railyard" qemu "$image" --storage-target --nodes "$inventory" --node lab-node01 \
      --target-node lab-target01 --run-dir "$run" --timeout 1200 >"$work/$side-$round.out" 2>&1 || rc=$?
    ((rc <= 1)) || { cat "$work/$side-$round.out" >&2; exit 1; }
    echo "round $round, $side: railyard qemu exited $rc"
  done
done

python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
figures = {"reference": [], "none": []}
for side in figures:
    for r in range(1, rounds + 1):
        run = "%s/%s-%d/node" % (work, side, r)
        status = json.load(open(run + "/status.json"))
        report = json.load(open(run + "/report.json"))
        verify = sum(p["ms"] for p in report.get("phases", []) if p.get("phase") == "verify") / 1000
        peer = [c for c in report["checks"] if ".peer_" in c["name"]]
        figures[side].append((status["result_uptime_s"], verify))
        print("%-9s round %d: result at %.1f s of uptime, verify phase %.1f s, %d peer checks (%s); %s" % (
            side, r, status["result_uptime_s"], verify, len(peer),
            ", ".join(sorted({c["status"] for c in peer})) or "none", report["result"]))
        for c in peer:
            if c["name"].endswith("_bandwidth") or c["name"].endswith("_latency"):
                print("    %s: %s" % (c["name"], c["observed"]))
med = {s: (statistics.median(v[0] for v in f), statistics.median(v[1] for v in f)) for s, f in figures.items()}
print("\nmedian boot to result: %.1f s with the peer checks, %.1f s without: +%.1f s" % (
    med["reference"][0], med["none"][0], med["reference"][0] - med["none"][0]))
print("median verify phase: %.1f s with the peer checks, %.1f s without: +%.1f s" % (
    med["reference"][1], med["none"][1], med["reference"][1] - med["none"][1]))
PY
