#!/usr/bin/env bash
# The storage target is absent, and with it the lab leaf: the rails hang on railyard qemu's
# plain hub. The node cannot connect its NVMe-oF namespace over rail 0, fails on
# nvmeof.0.connected, hears no LLDP on any rail (the lab recipe requires it), and does not
# join. Its rails still move data.
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
lldp = ["rail.%d.lldp" % i for i in range(4)]
expect(all(n.startswith("nvmeof.0.") or n.startswith("apply.NVMe-oF ") or n in lldp for n in failed),
       "only NVMe-oF and LLDP fail: %s" % failed)
for n in lldp:
    expect(check(n)["status"] == "fail" and check(n)["observed"].startswith("nothing heard"), "%s: %s" % (n, check(n)))
for i in range(4):
    expect(check("rail.%d.rdma_write" % i)["status"] == "pass", "rail %d still moves data" % i)
expect(status["joined"] is False and status["ready_unit"] != "active", "not joined: %s" % status)
PY
