#!/usr/bin/env bash
# The storage target is absent: the node cannot connect its NVMe-oF namespace over rail 0,
# fails on nvmeof.0.connected, and does not join. Its rails still pass.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
lab_collector
lab_boot no-target
lab_expect_rc 1

lab_assert <<'PY'
expect(report["result"] == "fail", "result fail")
expect(check("nvmeof.0.connected")["status"] == "fail", "nvmeof.0.connected failed: %s" % check("nvmeof.0.connected"))
failed = sorted(c["name"] for c in report["checks"] if c["status"] == "fail")
expect(all(n.startswith("nvmeof.0.") or n.startswith("apply.NVMe-oF ") for n in failed), "only NVMe-oF fails: %s" % failed)
for i in range(4):
    expect(check("rail.%d.rdma_write" % i)["status"] == "pass", "rail %d still moves data" % i)
expect(status["joined"] is False and status["ready_unit"] != "active", "not joined: %s" % status)
PY
