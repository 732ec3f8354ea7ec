#!/usr/bin/env bash
# The real PXE chain: `railyard pxe` makes a tree of the lab image and inventory; QEMU's own
# iPXE ROM on the node's management NIC gets boot.ipxe over TFTP (user networking,
# restrict=on), chains to the script of its MAC, loads the kernel, the image and the node's
# overlay, and boots; the agent reads the identity the overlay brought, passes beside the
# storage target and joins: its slurmd registers with the lab controller using the munge key
# the overlay brought.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
[[ -f /usr/lib/ipxe/qemu/efi-virtio.rom ]] || lab_fail "missing: /usr/lib/ipxe/qemu/efi-virtio.rom (ipxe-qemu)"
lab_image "$SRC/recipes/qemu-virt.toml"
# The lab Slurm cluster's munge key: in the node's overlay from the tree, on the controller
# from railyard qemu.
head -c 1024 /dev/urandom >"$LAB_WORK/munge.key"
"$RAILYARD" pxe --image "$LAB_IMAGE" --nodes "$SRC/recipes/inventories/qemu-lab.toml" -o "$LAB_WORK/tree" \
  --ipxe-dir "" --munge-key "$LAB_WORK/munge.key" >"$LAB_WORK/pxe.log" 2>&1 ||
  { cat "$LAB_WORK/pxe.log"; lab_fail "railyard pxe failed"; }
lab_collector
lab_boot pxe --pxe "$LAB_WORK/tree" --storage-target --target-node lab-target01 --munge-key "$LAB_WORK/munge.key" \
  --slurm-out "$LAB_WORK/pxe/slurm.txt"
lab_expect_rc 0

# iPXE prints each file it loads and " ok" once it is whole; a slow download draws its
# progress in place first, so the console is read as a terminal shows it.
console=$(python3 "$SRC/tests/e2e/lib/console_text.py" "$LAB_RUN/node/console.log")
for step in "boot.ipxe... ok" "pxe/52-54-00-00-00-01.ipxe... ok" "../image/vmlinuz... ok" \
  "../image/rootfs.cpio.zst... ok" "../nodes/node-lab-node01.cpio.zst... ok" "systemd.hostname=lab-node01"; do
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
# Slurm with the key the tree's overlay brought: registered, IDLE on the lab controller.
expect(slurm_field("State") == "IDLE", "the controller has lab-node01 IDLE: %r" % slurm)
expect(report["join"]["slurm"]["actions"] == [a for a in report["join"]["slurm"]["actions"] if a["action"] == "features"],
       "nothing to resume: %s" % report["join"]["slurm"]["actions"])
if isinstance(status.get("slurm_uptime_s"), float) and isinstance(status.get("agent_start_uptime_s"), float):
    print("e2e: agent start to IDLE on the controller: at most %.1f s" % (status["slurm_uptime_s"] - status["agent_start_uptime_s"]))
expect(collector_log.count("201 stored lab-node01/") == 1, "the report reached the collector:\n" + collector_log)
PY
