#!/usr/bin/env bash
# The real PXE chain: `railyard pxe` makes a tree of the lab image and inventory; QEMU's own
# iPXE ROM on the node's management NIC gets boot.ipxe over TFTP (user networking,
# restrict=on), chains to the script of its MAC, loads the kernel, the image and the node's
# overlay, and boots; the agent reads the identity the overlay brought, passes beside the
# storage target and joins.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
[[ -f /usr/lib/ipxe/qemu/efi-virtio.rom ]] || lab_fail "missing: /usr/lib/ipxe/qemu/efi-virtio.rom (ipxe-qemu)"
lab_image "$SRC/recipes/qemu-virt.toml"
"$RAILYARD" pxe --image "$LAB_IMAGE" --nodes "$SRC/recipes/inventories/qemu-lab.toml" -o "$LAB_WORK/tree" \
  --ipxe-dir "" >"$LAB_WORK/pxe.log" 2>&1 || { cat "$LAB_WORK/pxe.log"; lab_fail "railyard pxe failed"; }
lab_collector
lab_boot pxe --pxe "$LAB_WORK/tree" --storage-target --target-node lab-target01
lab_expect_rc 0

# iPXE prints each file it loads; the image's progress ("22% 49% …") replaces its "... ok".
console=$(strings "$LAB_RUN/node/console.log")
for step in "boot.ipxe... ok" "pxe/52-54-00-00-00-01.ipxe... ok" "../image/vmlinuz... ok" \
  "../image/rootfs.cpio.zst..." "../nodes/node-lab-node01.cpio.zst... ok" "systemd.hostname=lab-node01"; do
  grep -qF -- "$step" <<<"$console" || lab_fail "the PXE chain did not show '$step' on the console"
done
grep -qF -- "-kernel" "$LAB_RUN/node/qemu.cmdline" && lab_fail "the node was given a kernel directly, not PXE-booted"

lab_assert <<'PY'
expect(report["result"] == "pass", "result pass: %s" % [c["name"] for c in report["checks"] if c["status"] == "fail"])
expect(report["node"] == "lab-node01", "the identity came from the tree's node overlay: %s" % report["node"])
for i in range(4):
    expect(check("rail.%d.address" % i)["observed"].startswith("198.18.%d.11/24" % i), "rail %d got lab-node01's address" % i)
expect(check("nvmeof.0.connected")["status"] == "pass", "NVMe-oF over rail 0")
expect(status["joined"] is True, "joined: %s" % status)
expect(collector_log.count("201 stored lab-node01/") == 1, "the report reached the collector:\n" + collector_log)
PY
