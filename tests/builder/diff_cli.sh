#!/usr/bin/env bash
# `railyard diff` from the command line: "no differences" and exit 0 for the same image,
# the changes and exit 0 for different ones, JSON, and exit 2 naming the bad manifest.
set -euo pipefail
railyard=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "diff_cli: $*"; exit 1; }

d64() { printf "%064d" 0 | tr 0 "$1"; }
manifest() {  # DIR BASH_VERSION ROOTFS_SIZE
  mkdir -p "$1"
  cat >"$1/manifest.json" <<JSON
{
  "schema": 1,
  "railyard_version": "0.1.0",
  "recipe": {"name": "qemu-virt", "sha256": "$(d64 a)"},
  "source_date_epoch": 0,
  "image": {"distro": "debian", "suite": "bookworm", "arch": "amd64"},
  "kernel": {"version": "6.1.0-28-amd64", "package": "linux-image-6.1.0-28-amd64", "package_version": "6.1.119-1",
             "cmdline": ["console=ttyS0"]},
  "boot": {"format": "initramfs", "kernel": "vmlinuz", "initrds": ["rootfs.cpio.zst"]},
  "stages": [{"name": "base", "key": "$(d64 1)"}],
  "inputs": [],
  "drivers": [{"name": "debian12-inbox", "version": "44.0-2", "kind": "distro", "packages": ["rdma-core"],
               "modules": ["mlx5_ib"], "dkms": []}],
  "packages": [{"name": "bash", "version": "$2", "arch": "amd64"}],
  "trim": {"dropped": ["sound"], "files": 1, "bytes": 2},
  "artifacts": [{"path": "vmlinuz", "sha256": "$(d64 b)", "size": 10},
                {"path": "rootfs.cpio.zst", "sha256": "$(d64 c)", "size": $3}]
}
JSON
}
manifest "$tmp/old" 5.2.15-2+b7 1000
manifest "$tmp/same" 5.2.15-2+b7 1000
manifest "$tmp/new" 5.2.15-2+b8 1200

out=$("$railyard" diff "$tmp/old/manifest.json" "$tmp/same/manifest.json") || fail "same images: exit $?"
[[ "$out" == "no differences" ]] || fail "same images printed: $out"

out=$("$railyard" diff "$tmp/old/manifest.json" "$tmp/new/manifest.json") || fail "different images: exit $?"
grep -qx "packages: 1 upgraded" <<<"$out" || fail "no package tally in: $out"
grep -qx "  upgraded    bash 5.2.15-2+b7 → 5.2.15-2+b8" <<<"$out" || fail "no bash upgrade in: $out"
grep -qx "  changed     rootfs.cpio.zst 1000 → 1200 bytes (+200)" <<<"$out" || fail "no artifact change in: $out"

json=$("$railyard" diff --json "$tmp/old/manifest.json" "$tmp/new/manifest.json") || fail "--json: exit $?"
python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["differences"] is True, j; assert j["packages"][0]["change"] == "upgraded", j' <<<"$json" ||
  fail "--json: $json"
json=$("$railyard" diff --json "$tmp/old/manifest.json" "$tmp/same/manifest.json")
python3 -c 'import json,sys; assert json.load(sys.stdin)["differences"] is False' <<<"$json" || fail "--json same: $json"

# Bad input: exit 2 and the file named, with line and column for broken JSON.
set +e
err=$("$railyard" diff "$tmp/old/manifest.json" "$tmp/missing/manifest.json" 2>&1 >/dev/null); rc=$?
[[ $rc -eq 2 ]] || fail "missing manifest: exit $rc"
grep -q "$tmp/missing/manifest.json: cannot be read" <<<"$err" || fail "missing manifest: $err"
printf '{\n  "schema": 1,\n  "recipe": ]\n}\n' >"$tmp/same/manifest.json"
err=$("$railyard" diff "$tmp/old/manifest.json" "$tmp/same/manifest.json" 2>&1 >/dev/null); rc=$?
[[ $rc -eq 2 ]] || fail "broken JSON: exit $rc"
grep -q "^railyard diff: $tmp/same/manifest.json:3:13: invalid JSON: syntax error" <<<"$err" || fail "broken JSON: $err"
sed -i 's/"schema": 1/"schema": 7/' "$tmp/new/manifest.json"
err=$("$railyard" diff "$tmp/old/manifest.json" "$tmp/new/manifest.json" 2>&1 >/dev/null); rc=$?
[[ $rc -eq 2 ]] || fail "schema 7: exit $rc"
grep -q "$tmp/new/manifest.json: schema: 7 is not supported" <<<"$err" || fail "schema 7: $err"
echo "diff_cli: ok"
