#!/usr/bin/env bash
# Routed rails end to end: recipes/qemu-virt-l3.toml built into an image and booted as
# lab-node01 of recipes/inventories/qemu-lab-l3.toml beside lab-target01. The target VM is
# the rails' leaves too: per rail a router (a network namespace running FRR with the
# frr.conf `railyard fabric leaf-config` writes for that leaf) between the node's port and
# the target's, the target a routed host with its own bgpd, NVMe-oF target and two tenant
# VNIs. The node must bring up BGP unnumbered on every rail, learn the fabric's prefixes,
# keep each rail's traffic on its rail, reach the target over NVMe-oF RDMA across the
# routed rail 0, bring up its VXLAN tenant network, find the other tenant's address
# unreachable, pass and join; a second agent run in the same boot changes nothing. Then
# the faults: rail 1's leaf runs no bgpd, rail 2's leaf expects another AS of the node, the
# target answers for the other tenant's address, and no leaf sends LLDP: the node fails each
# check by name and does not join, while storage, rail 0's and rail 3's sessions still pass.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt-l3.toml"
LAB_INVENTORY=$SRC/recipes/inventories/qemu-lab-l3.toml
lab_boot pass --storage-target --target-node lab-target01 --append railyard.qemu.rerun=1
lab_expect_rc 0
lab_assert <<'PY'
expect(report["result"] == "pass", "result pass, not %s: %s" % (report["result"],
       [(c["name"], c["observed"], c["detail"]) for c in report["checks"] if c["status"] == "fail"]))
expect(report["problems"] == [], "no planning problems: %s" % report["problems"])
expect(target and target["result"] == "ready", "the storage target served its export: %s" % target)
rails = report["plan"]["rails"]
expect(len(rails) == 4, "4 rails planned")
for i in range(4):
    for what in ("link", "address", "bgp", "bgp_prefixes", "route", "no_default_route", "rdma_port", "roce_v2_gid",
                 "rdma_write", "lldp"):
        c = check("rail.%d.%s" % (i, what))
        expect(c["status"] == "pass", "rail.%d.%s passes: %s %s" % (i, what, c["observed"], c["detail"]))
    expect(rails[i]["address"] == "198.18.%d.11/32" % i, "rail %d's address is a /32: %s" % (i, rails[i]["address"]))
    expect("Established" in check("rail.%d.bgp" % i)["observed"], "rail %d: %s" % (i, check("rail.%d.bgp" % i)))
    # The leaf is leaf-config's: AS 65100 + rail, seen on the node's port swp1.
    expect("65%d" % (100 + i) in check("rail.%d.bgp" % i)["observed"] + check("rail.%d.bgp" % i)["detail"],
           "rail %d peers with AS 65%d: %s" % (i, 100 + i, check("rail.%d.bgp" % i)))
    expect(check("rail.%d.lldp" % i)["observed"].startswith("leaf-r%d port swp1 " % i), check("rail.%d.lldp" % i)["observed"])
for what in ("vxlan", "vtep", "isolation"):
    c = check("tenant.%s" % what)
    expect(c["status"] == "pass", "tenant.%s passes: %s %s" % (what, c["observed"], c["detail"]))
expect("198.18.255.100 via enp" in check("tenant.vtep")["observed"], "the target's VTEP is routed over a rail: %s" % check("tenant.vtep"))
expect(check("nvmeof.0.connected")["status"] == "pass", "NVMe-oF over the routed rail 0: %s" % check("nvmeof.0.connected"))
expect("live over rdma" in check("nvmeof.0.connected")["observed"], "the controller is live over rdma")
expect(check("nvmeof.0.namespace_read")["status"] == "pass", "namespace read: %s" % check("nvmeof.0.namespace_read"))
# The lab's figure: the agent's start to every session Established (its phases up to bgp),
# and the bgp phase alone (bgpd's start to every rail Established with routes). The leaf VM
# boots beside the node, so the first also waits for its leaves to come up.
names = [p["phase"] for p in report["phases"]]
expect("bgp" in names, "the report times the bgp phase: %s" % names)
if "bgp" in names:
    upto = report["phases"][:names.index("bgp") + 1]
    print("e2e: agent start to every session Established: %.1f s (%s); bgp phase %.1f s" %
          (sum(p["ms"] for p in upto) / 1000, ", ".join("%s %.1f s" % (p["phase"], p["ms"] / 1000) for p in upto),
           report["phases"][names.index("bgp")]["ms"] / 1000))
expect(status["agent_exit"] == 0 and status["joined"] is True, "joined: %s" % status)
# A second run finds everything as planned: the same FRR configuration, the same tables.
expect(rerun is not None and rerun["result"] == "pass", "the second run passes: %s" % (rerun or {}).get("result"))
changed = [c for c in (rerun or {}).get("changes", []) if c.get("outcome") not in ("unchanged", "unsupported")]
expect(changed == [], "the second run changes nothing: %s" % changed)
PY

lab_boot faults --storage-target --target-node lab-target01 --fault leaf-bgp-down=1 --fault leaf-refuse-asn=2 \
  --fault tenant-leak --fault no-lldp
lab_expect_rc 1
lab_assert <<'PY'
expect(report["result"] == "fail", "result fail: %s" % report["result"])
expect(status["joined"] is False, "a node whose fabric is not proven does not join: %s" % status)
for i in (0, 3):
    expect(check("rail.%d.bgp" % i)["status"] == "pass", "rail %d's leaf is sound: %s" % (i, check("rail.%d.bgp" % i)))
down = check("rail.1.bgp")
expect(down["status"] == "fail" and "Established" not in down["observed"], "leaf-bgp-down=1 fails rail.1.bgp: %s" % down)
refused = check("rail.2.bgp")
expect(refused["status"] == "fail", "leaf-refuse-asn=2 fails rail.2.bgp: %s" % refused)
expect("Bad Peer AS" in refused["observed"] + refused["detail"], "rail.2.bgp names the refusal: %s" % refused)
# The rail without a leaf speaker gets no table, and says why; every other rail's is filled
# (rail 2's too: its leaf refused the session but answered, so its address is known).
failed_changes = [(c["object"], c["detail"]) for c in report["changes"] if c["outcome"] == "failed"]
expect(len(failed_changes) == 1 and failed_changes[0][0].startswith("rail 1 (") and failed_changes[0][0].endswith("table 101")
       and "link-local address is not known" in failed_changes[0][1], "only rail 1's table is missing: %s" % failed_changes)
# A silent leaf (no-lldp): every rail fails rail.N.lldp after the wait, naming what may keep
# the frames from the host; the TLV checks that need a neighbour are skipped.
for i in range(4):
    c = check("rail.%d.lldp" % i)
    expect(c["status"] == "fail" and c["observed"].startswith("nothing heard on enp"), "rail.%d.lldp: %s" % (i, c))
    expect("firmware runs its own LLDP agent" in c["detail"], "the detail names what may keep the frames: %s" % c["detail"])
    for what in ("lldp_pfc", "lldp_mtu"):
        expect(check("rail.%d.%s" % (i, what))["status"] == "skip", "rail.%d.%s skipped" % (i, what))
expect(all(l["neighbor"] is None for l in report["lldp"]), "the report says nothing was heard")
expect(check("nvmeof.0.connected")["status"] == "pass", "storage over rail 0 still: %s" % check("nvmeof.0.connected"))
failed = sorted(c["name"] for c in report["checks"] if c["status"] == "fail")
expected = sorted(["apply." + failed_changes[0][0] if failed_changes else "apply", "rail.1.bgp", "rail.1.bgp_prefixes",
                   "rail.1.route", "rail.2.bgp", "rail.2.bgp_prefixes", "tenant.isolation"] +
                  ["rail.%d.lldp" % i for i in range(4)])
expect(failed == expected, "exactly what the faults break fails: %s" % failed)
leak = check("tenant.isolation")
expect(leak["status"] == "fail" and "10.100.0.200" in leak["observed"] + leak["detail"], "tenant-leak fails tenant.isolation: %s" % leak)
PY
