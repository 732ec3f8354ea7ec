#!/usr/bin/env bash
# The main job on the embedded default recipe (recipes/qemu-virt.toml): installs what is
# missing, builds railyard, checks the shipped recipes, builds the lab image, boots it in
# QEMU with four Soft-RoCE rails and an NVMe-oF storage target on the rail wire, and prints
# the node's first-boot self-test report. Run as root (image builds bootstrap as root).
#   RAILYARD_DEMO_BUILD   build directory (default build/demo)
#   RAILYARD_DEMO_OUT     image and report directory (default out/demo)
#   RAILYARD_DEMO_CACHE   stage cache (default: railyard's, /var/cache/railyard for root)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

./ci/setup-deps.sh
build=${RAILYARD_DEMO_BUILD:-build/demo}
out=${RAILYARD_DEMO_OUT:-out/demo}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target railyard railyard-firstboot agent-package
railyard="$build/railyard"
cache_opt=()
[[ -n ${RAILYARD_DEMO_CACHE:-} ]] && cache_opt=(--cache "$RAILYARD_DEMO_CACHE")

echo "== railyard check: the embedded default recipe, then everything shipped"
"$railyard" check -q
"$railyard" check -q recipes/*.toml recipes/inventories/*.toml drivers/*.toml

echo "== railyard build recipes/qemu-virt.toml"
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0} "$railyard" build recipes/qemu-virt.toml -o "$out/qemu-virt" "${cache_opt[@]}"

echo "== railyard qemu: the node and its storage target (the rails' leaf, NVMe-oF, the Slurm controller)"
set +e
"$railyard" qemu "$out/qemu-virt" --storage-target \
  --nodes recipes/inventories/qemu-lab.toml --node lab-node01 --target-node lab-target01 \
  --report-out "$out/report.json" --console-log "$out/console.log" --slurm-out "$out/slurm.txt"
rc=$?
set -e
if [[ -s $out/report.json ]]; then
  echo "== the node's self-test report ($out/report.json)"
  "$railyard" report show "$out/report.json" || true
fi
if [[ -s $out/slurm.txt ]]; then
  echo "== the lab's Slurm controller: scontrol show node lab-node01 ($out/slurm.txt)"
  sed -E 's/ ([A-Za-z]+)=/\n\1=/g' "$out/slurm.txt" | grep -E '^(NodeName|State|Partitions|AvailableFeatures|Reason)=' || true
fi
echo "== demo finished in $((SECONDS - start)) s: railyard qemu exited $rc (0 joined, 1 self-test failed, 2 harness error)"
exit $rc
