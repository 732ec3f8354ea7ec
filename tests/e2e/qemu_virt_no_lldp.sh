#!/usr/bin/env bash
# The lab leaf sends no LLDP (--fault no-lldp), and the node is booted with no inventory at
# all: railyard qemu gives the node and the target the addresses the lab recipe implies. The
# lab recipe requires LLDP, so every rail fails rail.N.lldp after the wait, naming what may
# keep the frames from the host; everything else, storage included, passes on the implied
# addresses.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
LAB_IDENTITY=implied lab_boot no-lldp --storage-target --fault no-lldp
lab_expect_rc 1

lab_assert <<'PY'
expect(report["node"] == "railyard-lab", "the implied identity: %s" % report["node"])
addresses = [r["address"] for r in report["plan"]["rails"]]
expect(addresses == ["198.18.%d.11/24" % i for i in range(4)], "the implied rail addresses: %s" % addresses)
for i in range(4):
    c = check("rail.%d.lldp" % i)
    expect(c["status"] == "fail", "rail.%d.lldp fails: %s" % (i, c))
    expect(c["observed"].startswith("nothing heard on enp"), "nothing heard: %s" % c["observed"])
    expect("firmware runs its own LLDP agent" in c["detail"], "the detail names what may keep the frames: %s" % c["detail"])
    for what in ("lldp_pfc", "lldp_mtu", "lldp_vlan"):
        expect(check("rail.%d.%s" % (i, what))["status"] == "skip", "rail.%d.%s skipped" % (i, what))
failed = sorted(c["name"] for c in report["checks"] if c["status"] == "fail")
expect(failed == ["rail.%d.lldp" % i for i in range(4)], "only LLDP fails: %s" % failed)
expect(check("nvmeof.0.connected")["status"] == "pass", "storage on the implied addresses: %s" % check("nvmeof.0.connected"))
expect(all(l["neighbor"] is None for l in report["lldp"]), "the report says nothing was heard")
PY
