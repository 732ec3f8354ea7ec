#!/usr/bin/env bash
# `railyard qemu`'s refusals before any VM boots: several --node and the faults that name a
# node are checked against the image's recipe and the lab's wiring, each with exit 2 and
# what is allowed. The image is a stand-in holding only the resolved lab recipe: nothing here
# boots, and a check passed would go on to QEMU, so every case must be refused.
set -euo pipefail
railyard=$1 src=$3
for tool in cpio zstd sha256sum; do
  command -v "$tool" >/dev/null || { echo "qemu_cli: $tool is missing (ci/setup-deps.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "qemu_cli: $*"; exit 1; }

# shellcheck source=tests/builder/lib/stand_in_image.bash
source "$src/tests/builder/lib/stand_in_image.bash"
echo "MZ not a kernel" >"$tmp/vmlinuz"
"$railyard" show "$src/recipes/qemu-virt.toml" | tail -n +2 >"$tmp/recipe.toml"
stand_in_image "$tmp/img" "$tmp/vmlinuz" "$tmp/recipe.toml"
inv=$src/recipes/inventories/qemu-lab.toml

# refused WHAT ARGS...: exit 2, and standard error holds WHAT.
refused() {
  local what=$1 rc=0
  shift
  "$railyard" qemu "$tmp/img" --run-dir "$tmp/run" --timeout 5 "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 2 ]] || fail "$* exited $rc, expected 2: $(cat "$tmp/out" "$tmp/err")"
  grep -qF -- "$what" "$tmp/err" || fail "$*: no '$what' in: $(cat "$tmp/err")"
  [[ ! -e $tmp/run ]] || fail "$*: a refused run made its directory"
}

two=(--nodes "$inv" --node lab-node01 --node lab-node02)
refused "several --node share the lab leaf, which is the storage target VM: add --storage-target" "${two[@]}"
refused "--node lab-node01: named twice" --nodes "$inv" --node lab-node01 --node lab-node01 --storage-target
refused "--node given 2 times: the lab leaf has 8 ports, room for 1 nodes of 5 rails" "${two[@]}" --storage-target --rails 5
refused "--slurm-out copies one node's file; with several --node, each node's is kept in the run directory" \
  "${two[@]}" --storage-target --slurm-out "$tmp/slurm.txt"
refused "--console-log copies one node's file" "${two[@]}" --storage-target --console-log "$tmp/console.log"
refused "--node lab-node09: $inv has no such node" --nodes "$inv" --node lab-node01 --node lab-node09 --storage-target
refused "--fault rail-loss names lab-node02, which is not a node of this run (lab-node01)" \
  --nodes "$inv" --node lab-node01 --storage-target --fault rail-loss=lab-node02:1:5
refused "--fault rail-slow=lab-node01:4:1: expected rail-slow=NODE:R:MBIT, MBIT 1–10000, R a rail 0–3" \
  "${two[@]}" --storage-target --fault rail-slow=lab-node01:4:1
refused "change the lab leaf, which is the storage target VM: add --storage-target" \
  --nodes "$inv" --node lab-node01 --fault rail-loss=lab-node01:1:5
refused "--target-node lab-node01 is also booted as a --node: one VM cannot be both" "${two[@]}" --storage-target \
  --target-node lab-node01
refused "--slurm-topology: the controller fetches topology.conf from the collector: add --collector" \
  "${two[@]}" --storage-target --slurm-topology
refused "--slurm-topology: the lab's Slurm controller runs on the storage target VM: add --storage-target" \
  --nodes "$inv" --node lab-node01 --collector 127.0.0.1:9 --slurm-topology
echo "qemu_cli: ok"
