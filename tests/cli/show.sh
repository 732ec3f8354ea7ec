#!/usr/bin/env bash
# `railyard show` resolves extends and defaults; bad input exits 2 with positions.
set -euo pipefail
railyard=$1 src=$2
cd "$src"
out=$("$railyard" show recipes/gpu4-cx6dx-100g.toml)
grep -q "^name = 'gpu4-cx6dx-100g'" <<<"$out"          # own name, not the base's
grep -q "drivers = \[ 'doca-ofed-2.10.0', 'cuda-13.0' \]" <<<"$out"  # from the base
grep -q "^vlan = 200" <<<"$out"                         # from the SKU
grep -q "^table_base = 100" <<<"$out"                   # a default
json=$("$railyard" show --json recipes/hgx-h100-8x400g.toml)
grep -q '"gpu_count" : 8' <<<"$json"
grep -q '"NCCL_IB_QPS_PER_CONNECTION" : "4"' <<<"$json"
# The embedded default needs no file.
"$railyard" show | grep >/dev/null "^name = 'qemu-virt'"
# Bad input: exit 2, error on stderr with file:line:col.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'schema = 1\n[image]\nsuite = "bookworm"\n[fabric]\nvlan = 0\n' >"$tmp/bad.toml"
set +e
err=$("$railyard" show "$tmp/bad.toml" 2>&1 >/dev/null)
rc=$?
set -e
[[ $rc -eq 2 ]] || { echo "show of a bad recipe exited $rc, want 2"; exit 1; }
grep -q "bad.toml:5:8: error: fabric.vlan: 0 is out of range; allowed: 1–4094" <<<"$err"
echo "show: ok"
