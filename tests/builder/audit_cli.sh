#!/usr/bin/env bash
# `railyard audit DIR` from the command line on images packed with cpio(1) and zstd(1):
# exit 0 and no output when clean, 1 and one line per finding when not, 2 on bad input.
set -euo pipefail
railyard=$1
for tool in cpio zstd sha256sum; do
  command -v "$tool" >/dev/null || { echo "audit_cli: $tool is missing (ci/setup-deps.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "audit_cli: $*"; exit 1; }

# image DIR TREE: DIR gets vmlinuz, rootfs.cpio.zst packed from TREE, and manifest.json.
image() {
  mkdir -p "$1"
  echo "MZ not a kernel" >"$1/vmlinuz"
  (cd "$2" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | zstd -q -o "$1/rootfs.cpio.zst"
  local arts="" p
  for p in vmlinuz rootfs.cpio.zst; do
    arts+="${arts:+,}{\"path\": \"$p\", \"sha256\": \"$(sha256sum "$1/$p" | cut -d' ' -f1)\", \"size\": $(stat -c %s "$1/$p")}"
  done
  local z; z=$(printf "%064d" 0)
  cat >"$1/manifest.json" <<JSON
{"schema": 1, "railyard_version": "0.1.0", "recipe": {"name": "t", "sha256": "$z"}, "source_date_epoch": 0,
 "image": {"distro": "debian", "suite": "bookworm", "arch": "amd64"},
 "kernel": {"version": "6.1.0-28-amd64", "package": "linux-image-6.1.0-28-amd64", "package_version": "6.1.119-1", "cmdline": []},
 "boot": {"format": "initramfs", "kernel": "vmlinuz", "initrds": ["rootfs.cpio.zst"]},
 "stages": [], "inputs": [], "drivers": [], "packages": [], "trim": {"dropped": [], "files": 0, "bytes": 0},
 "artifacts": [$arts]}
JSON
}

mkdir -p "$tmp/tree/etc/ssh" "$tmp/tree/var/log"
: >"$tmp/tree/etc/machine-id"
echo "root:x:0:0:root:/root:/bin/sh" >"$tmp/tree/etc/passwd"
image "$tmp/clean" "$tmp/tree"
out=$("$railyard" audit "$tmp/clean" 2>"$tmp/err") || fail "clean image: exit $?: $out $(cat "$tmp/err")"
[[ -z "$out" ]] || fail "clean image printed: $out"
grep -q "^railyard audit: $tmp/clean: clean (2 artifacts, 6 root filesystem entries)$" "$tmp/err" ||
  fail "clean summary: $(cat "$tmp/err")"
"$railyard" -q audit "$tmp/clean" 2>"$tmp/err" || fail "clean image, -q: exit $?"
[[ ! -s "$tmp/err" ]] || fail "-q printed more than errors: $(cat "$tmp/err")"
json=$("$railyard" audit --json "$tmp/clean" 2>"$tmp/err") || fail "clean image, --json: exit $?"
python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["clean"] and d["findings"] == [] and d["artifacts"] == 2 \
  and d["entries"] == 6, d' <<<"$json" || fail "clean image, --json: $json"

echo "build-host" >"$tmp/tree/etc/hostname"
echo "-----BEGIN OPENSSH PRIVATE KEY-----" >"$tmp/tree/etc/ssh/ssh_host_ed25519_key"
echo "boot log" >"$tmp/tree/var/log/dpkg.log"
image "$tmp/dirty" "$tmp/tree"
set +e
out=$("$railyard" audit "$tmp/dirty" 2>/dev/null); rc=$?
set -e
[[ $rc -eq 1 ]] || fail "dirty image: exit $rc"
expected="$tmp/dirty/rootfs.cpio.zst: /etc/hostname: present (the build host's name; nodes get theirs from the node overlay)
$tmp/dirty/rootfs.cpio.zst: /etc/ssh/ssh_host_ed25519_key: present (host keys are generated per node at first boot)
$tmp/dirty/rootfs.cpio.zst: /var/log/dpkg.log: a file below /var/log (logs of the build, with its timestamps)"
[[ "$out" == "$expected" ]] || fail "dirty image printed:
$out"
set +e
json=$("$railyard" audit --json "$tmp/dirty" 2>/dev/null); rc=$?
set -e
[[ $rc -eq 1 ]] || fail "dirty image, --json: exit $rc"
python3 - "$json" <<'PY' || fail "dirty image, --json: $json"
import json, sys
d = json.loads(sys.argv[1])
assert not d["clean"] and len(d["findings"]) == 3, d
f = d["findings"][0]
assert f == {"artifact": "rootfs.cpio.zst", "path": "/etc/hostname", "problem": "present",
             "why": "the build host's name; nodes get theirs from the node overlay"}, f
PY

set +e
err=$("$railyard" audit "$tmp/nowhere" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "no directory: exit $rc"
grep -q "^railyard audit: $tmp/nowhere: not a directory" <<<"$err" || fail "no directory: $err"
rm "$tmp/clean/manifest.json"
err=$("$railyard" audit "$tmp/clean" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "no manifest: exit $rc"
grep -q "$tmp/clean/manifest.json: cannot be read" <<<"$err" || fail "no manifest: $err"
echo "audit_cli: ok"
