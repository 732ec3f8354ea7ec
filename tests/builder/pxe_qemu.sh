#!/usr/bin/env bash
# A PXE tree booted by QEMU's own iPXE ROM over plain TFTP (user network, tftp= the tree,
# bootfile boot.ipxe): the relative paths resolve, a known MAC fetches its script, the
# kernel, the image and its overlay, and runs the kernel (iPXE's own ipxe.lkrn stands in
# for Linux); an unknown MAC gets the readable message.
set -euo pipefail
railyard=$1 src=$3
lkrn=/usr/lib/ipxe/ipxe.lkrn
[[ -f $lkrn ]] || lkrn=/boot/ipxe.lkrn
for need in qemu-system-x86_64 cpio zstd sha256sum python3 "$lkrn" /usr/lib/ipxe/qemu/efi-virtio.rom; do
  command -v "$need" >/dev/null || [[ -f $need ]] ||
    { echo "pxe_qemu: $need is missing (ci/setup-deps.sh installs qemu-system-x86, ipxe-qemu and ipxe)"; exit 1; }
done
tmp=$(mktemp -d)
qemu_pid=
cleanup() { [[ -n $qemu_pid ]] && kill "$qemu_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "pxe_qemu: $*"; exit 1; }

# The console reader first: iPXE's progress, drawn in place over a slow download (its
# bytes as a 60 MB image's download wrote them), reads as the line a terminal shows.
printf '../image/rootfs.cpio.zst... 17%%\b\b\b\b    \b\b\b\b 86%%\b\b\b\b    \b\b\b\b ok\r\n\e[0mnext\r\n' >"$tmp/progress.log"
rendered=$(python3 "$src/tests/e2e/lib/console_text.py" "$tmp/progress.log")
[[ $rendered == $'../image/rootfs.cpio.zst... ok\nnext' ]] || fail "console_text.py read iPXE's progress as: $rendered"

# shellcheck source=tests/builder/lib/stand_in_image.bash
source "$src/tests/builder/lib/stand_in_image.bash"
stand_in_image "$tmp/img" "$lkrn" "$src/recipes/qemu-virt.toml"
grep -v "^recipe = " "$src/recipes/inventories/qemu-lab.toml" >"$tmp/nodes.toml"
"$railyard" pxe --image "$tmp/img" --nodes "$tmp/nodes.toml" -o "$tmp/tree" --ipxe-dir "" >/dev/null 2>&1 ||
  fail "railyard pxe failed"

# boot MAC LOG PATTERN...: boots until every pattern is in the serial log (60 s at most).
boot() {
  local mac=$1 log=$2
  shift 2
  timeout 90 qemu-system-x86_64 -accel tcg -m 256 -nographic -no-reboot -serial "file:$log" -monitor none \
    -netdev "user,id=n0,restrict=on,tftp=$tmp/tree,bootfile=boot.ipxe" \
    -device "virtio-net-pci,netdev=n0,mac=$mac" -boot n >/dev/null 2>&1 &
  qemu_pid=$!
  local pattern ok console deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)); do
    ok=1
    # As a terminal shows it: a slow download draws its progress over "... ok" in place.
    console=$(python3 "$src/tests/e2e/lib/console_text.py" "$log" 2>/dev/null) || console=
    for pattern in "$@"; do grep -qF -- "$pattern" <<<"$console" || { ok=0; break; }; done
    ((ok)) && break
    sleep 0.1
  done
  kill "$qemu_pid" 2>/dev/null || true
  wait "$qemu_pid" 2>/dev/null || true
  qemu_pid=
  ((ok)) || fail "$mac: no '$pattern' in the console:
$(tail -n 20 <<<"$console")"
}

boot 52:54:00:00:00:01 "$tmp/known.log" "tftp://10.0.2.2/boot.ipxe... ok" "pxe/52-54-00-00-00-01.ipxe... ok" \
  "../image/vmlinuz... ok" "../image/rootfs.cpio.zst... ok" "../nodes/node-lab-node01.cpio.zst... ok" \
  "iPXE initialising devices"
boot 52:54:00:00:00:99 "$tmp/unknown.log" "railyard: no node with MAC 52:54:00:00:00:99 in this PXE tree" \
  "railyard: add it to the node inventory and run railyard pxe again."
echo "pxe_qemu: ok"
