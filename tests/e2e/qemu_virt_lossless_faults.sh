#!/usr/bin/env bash
# Three ways a lossless fabric breaks, in one boot beside the lab leaf: rail 2's NIC receives
# pause frames at storm rate (--fault pause-storm=2: the lab's DCB stand-in counts them), the
# cables of rails 0 and 1 cross at the leaf (swap-rails=0,1), and the leaf advertises PFC on
# priority 4 instead of 3 (leaf-pfc=4). The node must fail each by name, with what it
# observed and why, and not join; everything the faults do not touch still passes.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
lab_boot faults --storage-target --target-node lab-target01 \
  --fault pause-storm=2 --fault swap-rails=0,1 --fault leaf-pfc=4
lab_expect_rc 1
"$RAILYARD" report show "$LAB_RUN/report.json" >"$LAB_WORK/show.txt" || true
cat "$LAB_WORK/show.txt"

lab_assert <<'PY'
expect(report["result"] == "fail", "result fail")
expect(status["joined"] is False, "not joined: %s" % status)

storm = check("rail.2.pause_storm")
expect(storm["status"] == "fail", "rail.2.pause_storm fails: %s" % storm)
rx = int(storm["observed"].split(" ")[1].rstrip("/s,")) if storm["observed"].startswith("rx ") else 0
expect(rx >= 10000, "the observed rate is the storm's (20000/s), far above the recipe's 1000: %s" % storm["observed"])
expect("pauses this NIC continuously" in storm["detail"], "the detail says who pauses whom: %s" % storm["detail"])
for i in (0, 1, 3):
    expect(check("rail.%d.pause_storm" % i)["status"] == "pass", "no storm on rail %d" % i)

for i, other in ((0, 1), (1, 0)):
    c = check("rail.%d.lldp" % i)
    expect(c["status"] == "fail", "rail.%d.lldp fails: %s" % (i, c))
    expect(c["observed"].startswith("leaf-r%d port swp1" % other), "rail %d sees leaf-r%d: %s" % (i, other, c["observed"]))
    expect("the cables of rails 0 and 1 are swapped" in c["detail"], "both rails named as swapped: %s" % c["detail"])
for i in (2, 3):
    expect(check("rail.%d.lldp" % i)["status"] == "pass", "rail %d reaches its leaf" % i)

for i in range(4):
    c = check("rail.%d.lldp_pfc" % i)
    expect(c["status"] == "fail", "rail.%d.lldp_pfc fails: %s" % (i, c))
    expect(c["observed"].startswith("PFC enable 0x10 (priority 4)"), "the leaf's PFC as advertised: %s" % c["observed"])
    expect(check("rail.%d.pfc" % i)["status"] == "pass", "the host keeps its own PFC (not willing)")
    for what in ("rdma_write", "lldp_mtu", "lldp_vlan"):
        expect(check("rail.%d.%s" % (i, what))["status"] == "pass", "rail.%d.%s unaffected" % (i, what))
# Through the leaf's bridge, storage and the rails' cross traffic still flow.
expect(check("nvmeof.0.connected")["status"] == "pass", "storage reached through the leaf")
expect(check("rails.cross_rdma_write")["status"] == "pass", "rails reach each other through the leaf")

failed = sorted(c["name"] for c in report["checks"] if c["status"] == "fail")
expected = sorted(["rail.2.pause_storm", "rail.0.lldp", "rail.1.lldp"] + ["rail.%d.lldp_pfc" % i for i in range(4)])
expect(failed == expected, "exactly the faults' checks fail: %s" % failed)
show = open(os.path.join(os.path.dirname(run), "show.txt")).read()
expect("stuck sending pauses" in show, "report show's hint names the usual cause of a pause storm")
expect("swap them back" in show, "report show's hint says what to do about swapped cables")
expect("rail 0  enp17s0 → leaf-r1 port swp1" in show, "report show draws each rail's far end:\n" + show)
PY
