#!/usr/bin/env bash
# The storage target is absent, and with it the lab leaf and the rails' reference: the rails
# hang on railyard qemu's plain hub. The node cannot connect its NVMe-oF namespace over rail 0,
# fails on nvmeof.0.connected, hears no LLDP on any rail (the lab recipe requires it), reaches
# no reference on any rail (peer_write fails with what it tried, the figures unmeasured), and
# does not join. Its rails still move data.
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
peer = ["rail.%d.peer_%s" % (i, w) for i in range(4) for w in ("write", "bandwidth", "latency")]
expect(all(n.startswith("nvmeof.0.") or n.startswith("apply.NVMe-oF ") or n in lldp or n in peer for n in failed),
       "only NVMe-oF, LLDP and the peer probes fail: %s" % failed)
for i in range(4):
    c = check("rail.%d.peer_write" % i)
    expect(c["status"] == "fail" and c["observed"] == "no exchange with 198.18.%d.100:18515" % i
           and "attempt 1: " in c["detail"], "rail %d reaches no reference: %s" % (i, c))
    expect(check("rail.%d.peer_bandwidth" % i)["observed"] == "not measured", check("rail.%d.peer_bandwidth" % i))
for n in lldp:
    expect(check(n)["status"] == "fail" and check(n)["observed"].startswith("nothing heard"), "%s: %s" % (n, check(n)))
for i in range(4):
    expect(check("rail.%d.rdma_write" % i)["status"] == "pass", "rail %d still moves data" % i)
expect(status["joined"] is False and status["ready_unit"] != "active", "not joined: %s" % status)
PY
