#!/usr/bin/env bash
# The lab recipe end to end: recipes/qemu-virt.toml built into an image, booted by
# railyard qemu as lab-node01 and lab-node02 beside their NVMe-oF storage target, which is
# also every rail's leaf (each node on ports of its own, swp1 and swp2) and reference. The node must map its rails
# to the NICs where the PCIe tree put them, bring up Soft-RoCE with RoCE v2 GIDs on VLAN
# rails, move data over RDMA per rail and between rails, reach the target over NVMe-oF RDMA,
# write its NCCL profile, report to the collector, pass and start its join unit; a second
# agent run in the same boot, and a second run of the target, must change nothing; then
# railyard-firstboot verify passes on the joined node, and fails once a rail's link is down.
# Slurm: the lab controller on the target starts with the node drained by railyard (as a
# failed earlier boot leaves it); the pass registers slurmd and resumes it, the failing verify
# drains it again with the rail in the reason. Both nodes pass, each proving every rail across
# the leaf to the reference, and both join; lab-node01 is asserted in full, lab-node02 on what
# differs between nodes. The controller runs topology/tree from the collector's topology
# (--slurm-topology) and places both nodes in one scalable unit; its reconfigures keep the
# features the agents set and the drain.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
lab_collector
LAB_NODES="lab-node01 lab-node02" lab_boot pass --storage-target --target-node lab-target01 \
  --append railyard.qemu.rerun=1 --append railyard.qemu.verify=1 --slurm-drained "railyard: rail.2.link (a previous boot)" \
  --slurm-topology
lab_expect_rc 0

lab_assert <<'PY'
# Keep checking: verify passes on the node as first boot left it, changing nothing, and fails
# naming the rail whose link was taken down after the join.
expect(verify is not None, "railyard.qemu.verify=1 exported the verify runs")
verify = verify or {"pass": None, "down": None}
expect(verify.get("exit") == 0 and (verify["pass"] or {}).get("result") == "pass",
       "verify passes after the join: exit %s, failing %s" % (verify.get("exit"),
       [c["name"] for c in (verify["pass"] or {}).get("checks", []) if c.get("status") == "fail"]))
down_rails = [i for i, r in enumerate(report["plan"]["rails"]) if r["ifname"] == verify.get("down_link")]
expect(down_rails, "rail 1's RDMA device sits on a rail NIC: %s" % verify.get("down_link"))
failing = [c["name"] for c in (verify["down"] or {}).get("checks", []) if c.get("status") == "fail" and c.get("required")]
expect(verify.get("down_exit") == 1, "verify exits 1 with a rail down: %s" % verify.get("down_exit"))
expect(down_rails and "rail.%d.link" % down_rails[0] in failing, "verify names the rail that went down: %s" % failing)
expect(report["result"] == "pass", "result pass, not %s" % report["result"])
expect(report["node"] == "lab-node01", "the node is lab-node01")
expect(report["problems"] == [], "no planning problems: %s" % report["problems"])
expect(journal_err is not None and journal_err.strip() == "", "a node that joins logs no errors: %r" % journal_err)
expect(isinstance(status.get("result_uptime_s"), float), "the result line's uptime is exported: %s" % status)
expect(target and target["result"] == "ready", "the storage target served its export: %s" % target)
# railyard.qemu.rerun=1 ran the target twice too; what it sent is the second run's.
target_changed = [c for c in (target or {}).get("changes", []) if c.get("outcome") not in ("unchanged", "unsupported")]
expect(target_changed == [], "the target's second run changes nothing: %s" % target_changed)
expect(any(c["object"].startswith("nvmet port") for c in (target or {}).get("changes", [])), "the export was checked")
expect([p.get("phase") for p in (target or {}).get("phases", [])] == ["discover", "apply", "export"]
       and all(p["ms"] >= 0 for p in target["phases"]), "the target's phases, timed: %s" % (target or {}).get("phases"))

# Lossless for real: the lab's DCB stand-in answers the agent's DCB messages, sysfs files and
# ethtool calls, and every check reads the value back from the kernel, naming the stand-in.
nics = {n["ifname"]: n for n in report["inventory"]["nics"]}
for i in range(4):
    ifname = report["plan"]["rails"][i]["ifname"]
    expect(nics[ifname]["dcb_emulated_by"] == "railyard-lab-qos 1.0", "rail %d's DCB is the lab stand-in's: %s" % (i, nics[ifname]))
    for what in ("pfc", "trust", "dscp_map", "ecn", "storm_prevention", "pause_storm"):
        c = check("rail.%d.%s" % (i, what))
        expect(c["status"] == "pass", "rail.%d.%s passes: %s %s" % (i, what, c["observed"], c["detail"]))
        expect("railyard-lab-qos 1.0 (lab stand-in, not hardware)" in c["detail"], "rail.%d.%s names the stand-in" % (i, what))
    expect(check("rail.%d.pfc" % i)["observed"] == "pfc_en 0x08", "priority 3 lossless, read back")
    expect(check("rail.%d.trust" % i)["observed"] == "dscp", "DSCP trust, read back")
    expect(check("rail.%d.storm_prevention" % i)["observed"] == "100 ms", "storm prevention 100 ms, read back")
    # The far end: rail i reaches leaf-ri on port swp1 (the inventory's lldp_port), whose lldpd
    # advertises what railyard fabric leaf-config wrote for it.
    for what in ("lldp", "lldp_pfc", "lldp_mtu", "lldp_vlan"):
        c = check("rail.%d.%s" % (i, what))
        expect(c["status"] == "pass", "rail.%d.%s passes: %s %s" % (i, what, c["observed"], c["detail"]))
    expect(check("rail.%d.lldp" % i)["observed"].startswith("leaf-r%d port swp1 " % i), check("rail.%d.lldp" % i)["observed"])
    heard = [l for l in report["lldp"] if l["rail"] == i]
    expect(heard and heard[0]["neighbor"]["pfc"]["enabled"] == "0x08", "the report lists rail %d's neighbour: %s" % (i, heard))
# The fabric between nodes: each rail writes across the leaf to the target's responder on that
# rail (lab-target01 is the inventory's reference), bytes compared, the rxe counters clean.
peer_figures = []
for i in range(4):
    for what in ("peer_write", "peer_bandwidth", "peer_latency"):
        c = check("rail.%d.%s" % (i, what))
        expect(c["status"] == "pass", "rail.%d.%s passes: %s %s" % (i, what, c["observed"], c["detail"]))
        expect("198.18.%d.100:18515" % i in c["observed"], "rail %d probes the target's rail-%d address: %s" % (i, i, c["observed"]))
    expect("counters clean" in check("rail.%d.peer_write" % i)["observed"], check("rail.%d.peer_write" % i))
    peer_figures.append("rail %d %s, %s" % (i, check("rail.%d.peer_bandwidth" % i)["observed"].split(" to ")[0],
                                             check("rail.%d.peer_latency" % i)["observed"].split(" to ")[0]))
print("peer probes: " + "; ".join(peer_figures))
dcb_changes = [c for c in report["changes"] if ": PFC" in c["object"] or ": trust" in c["object"]]
expect(dcb_changes and all(c["outcome"] == "changed" for c in dcb_changes), "first boot set PFC and trust: %s" % dcb_changes)

# Rails: in PCI order on the NICs railyard qemu placed, NUMA nodes as the topology says.
rails = report["plan"]["rails"]
expect(len(rails) == 4, "4 rails planned")
for slot in topology["rails"]:
    i = slot["rail"]
    r = rails[i]
    expect(r["nic_pci"] == slot["pci"], "rail %d on %s, not %s" % (i, slot["pci"], r["nic_pci"]))
    expect(r["ifname"] == "enp%ds0" % int(slot["pci"][5:7], 16), "rail %d named by its bus: %s" % (i, r["ifname"]))
    expect(r["netdev"] == r["ifname"] + ".100", "rail %d carries VLAN 100" % i)
    expect(r["rdma_device"] == "rxe%d" % i, "rail %d is rxe%d" % (i, i))
for i in range(4):
    for what in ("link", "mtu", "vlan", "address", "rdma_port", "roce_v2_gid", "rdma_write", "no_default_route"):
        c = check("rail.%d.%s" % (i, what))
        expect(c["status"] == "pass", "rail.%d.%s passes: %s %s" % (i, what, c["observed"], c["detail"]))
    expect("ACTIVE" in check("rail.%d.rdma_port" % i)["observed"], "rail %d port ACTIVE" % i)
    expect(check("rail.%d.vlan" % i)["observed"].endswith("id 100"), "rail %d VLAN 100" % i)
expect(check("rails.cross_rdma_write")["status"] == "pass",
       "RDMA between rails: %s" % check("rails.cross_rdma_write"))
expect(check("rails.cross_rdma_write")["observed"].count("Mb/s") == 6, "all 6 rail pairs measured")
expect(check("nvmeof.0.connected")["status"] == "pass", "NVMe-oF connected: %s" % check("nvmeof.0.connected"))
expect("live over rdma" in check("nvmeof.0.connected")["observed"], "the controller is live over rdma")
expect(check("nvmeof.0.namespace_read")["status"] == "pass", "namespace read: %s" % check("nvmeof.0.namespace_read"))

# The NCCL profile the agent wrote, as the guest has it.
conf = files.get("/etc/nccl.conf", "")
expect("NCCL_IB_HCA==rxe0:1,rxe1:1,rxe2:1,rxe3:1\n" in conf, "NCCL_IB_HCA lists the rails in order:\n" + conf)
expect("NCCL_SOCKET_IFNAME==enp0s2\n" in conf, "NCCL bootstraps over the management NIC")
expect("NCCL_IB_TC=106\n" in conf, "NCCL traffic class = DSCP 26 with ECT")
gid = check("rail.0.roce_v2_gid")["observed"].split(" ")[1]  # "index 2 on enp17s0.100"
expect("NCCL_IB_GID_INDEX=%s\n" % gid in conf, "NCCL gets the rails' RoCE v2 GID index, known after apply:\n" + conf)
expect("/etc/nccl/topo.xml" in files, "the NCCL topology file is written")
expect(files.get("/etc/nvme/hostnqn", "").startswith("nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-525400000001"),
       "the NVMe host NQN comes from the VM's SMBIOS UUID: %r" % files.get("/etc/nvme/hostnqn"))

# Joined: the agent said so and the join unit runs.
expect(status["agent_exit"] == 0 and status["joined"] is True, "joined: %s" % status)
expect(status["ready_unit"] == "active", "railyard-ready.service started: %s" % status["ready_unit"])
j = report["join"]
expect(j["joined"] is True and j["gate"] == "/run/railyard/joined", "the report records the join: %s" % j)
expect([(u["unit"], u["ok"], u["state"]) for u in j["units"]] ==
       [("railyard-ready.service", True, "active (exited)"), ("slurmd.service", True, "active (running)")],
       "the agent waited for its join units to be active: %s" % j["units"])

# Slurm: registered, resumed from railyard's own drain, features from the self-test; after the
# failing verify, drained again naming the rail.
s = j.get("slurm") or {}
expect(s.get("controller") == "10.0.2.101" and isinstance(s.get("registered_ms"), int), "registered: %s" % s)
expect([a["action"] for a in s.get("actions", []) if a["exit"] == 0] == ["features", "resume"],
       "features set, then railyard's drain resumed: %s" % s.get("actions"))
expect(slurm is not None and slurm_field("NodeName") == "lab-node01", "the node exported the controller's view: %r" % slurm)
expect(slurm_field("State") == "IDLE", "the controller has lab-node01 IDLE: %r" % slurm_field("State"))
expect(slurm_field("Partitions") == "lab", "in partition lab: %r" % slurm_field("Partitions"))
expect(slurm_field("AvailableFeatures") == "railyard,rails4,rxe0,rxe1,rxe2,rxe3",
       "the features say what the self-test found: %r" % slurm_field("AvailableFeatures"))
down = verify.get("slurm_down", "")
expect("DRAIN" in (slurm_field("State", down) or "") and (slurm_field("Reason", down) or "").startswith("railyard: rail.1.link"),
       "the failing verify drained lab-node01 naming rail 1: %r %r" % (slurm_field("State", down), slurm_field("Reason", down)))
if isinstance(status.get("slurm_uptime_s"), float) and isinstance(status.get("agent_start_uptime_s"), float):
    print("e2e: agent start to the controller's answer after a resume: %.1f s" % (status["slurm_uptime_s"] - status["agent_start_uptime_s"]))
expect(j["posted"] is True and j["posts"][-1]["error"] is None, "the report's POST is recorded: %s" % j["posts"])
expect(set(p["phase"] for p in report["phases"]) >= {"discover", "plan", "apply", "verify"}, "phases timed")

# The report reached the collector on the host (and the rerun's too).
mine = [c for c in collected if c.get("node") == "lab-node01" and c.get("result") == "pass"]
expect(len(mine) >= 1, "the collector holds lab-node01's report (%d reports)" % len(collected))

# The image: the lab stand-in built by DKMS for the image's kernel, and the build tools it
# needed gone again.
with open(os.path.join(os.environ["LAB_IMAGE"], "manifest.json")) as f:
    manifest = json.load(f)
lab = [d for d in manifest["drivers"] if d["name"] == "railyard-lab-qos"]
expect(lab and lab[0]["emulates"] == ["dcb"] and lab[0]["dkms"][0]["module"] == "railyard-lab-qos",
       "the manifest records the lab stand-in and its DKMS module: %s" % lab)
expect("dkms" in manifest["build_tools"]["removed"] and manifest["build_tools"]["kept"] == [],
       "dkms and the headers left the image: %s" % manifest["build_tools"])
expect(not any(p["name"] in ("dkms", "gcc-12") or p["name"].startswith("linux-headers-") for p in manifest["packages"]),
       "no build tool is among the image's packages")

# A second agent run in the same boot: passes, changes nothing.
expect(status["rerun_exit"] == 0, "the second run exits 0: %s" % status["rerun_exit"])
expect(rerun and rerun["result"] == "pass", "the second run passes")
changed = [c for c in (rerun or {}).get("changes", []) if c.get("outcome") not in ("unchanged", "unsupported")]
expect(changed == [], "the second run changes nothing: %s" % changed)
expect(rerun_files == files, "the second run writes the same files: %s" %
       sorted(k for k in set(files) | set(rerun_files) if files.get(k) != rerun_files.get(k)))
expect(collector_log.count("201 stored lab-node01/") == 2, "both runs reported to the collector:\n" + collector_log)

# The second node, on the leaves' swp2: the same verdict from the same image, its own rails
# proven across the leaf to the same reference, and its own registration.
for host in ("lab-node01", "lab-node02"):
    expect(os.path.exists(os.path.join(run, "reports", host + ".json")), "--report-out wrote reports/%s.json" % host)
two = node_files("lab-node02")
r2 = two["report"] or {}
expect(r2.get("result") == "pass" and r2.get("node") == "lab-node02", "lab-node02 passes: %s %s" % (r2.get("result"),
       [c["name"] for c in r2.get("checks", []) if c.get("status") == "fail"]))
expect((two["status"] or {}).get("joined") is True, "lab-node02 joined: %s" % two["status"])
second_figures = []
for i in range(4):
    expect(check("rail.%d.lldp" % i, r2)["observed"].startswith("leaf-r%d port swp2 " % i), check("rail.%d.lldp" % i, r2))
    for what in ("peer_write", "peer_bandwidth", "peer_latency"):
        c = check("rail.%d.%s" % (i, what), r2)
        expect(c["status"] == "pass" and "198.18.%d.100:18515" % i in c["observed"],
               "lab-node02 rail.%d.%s passes against the reference: %s %s" % (i, what, c["observed"], c["detail"]))
    second_figures.append("rail %d %s, %s" % (i, check("rail.%d.peer_bandwidth" % i, r2)["observed"].split(" to ")[0],
                                               check("rail.%d.peer_latency" % i, r2)["observed"].split(" to ")[0]))
print("lab-node02 peer probes: " + "; ".join(second_figures))
expect(slurm_field("NodeName", two["slurm"]) == "lab-node02" and slurm_field("State", two["slurm"]) == "IDLE",
       "the controller has lab-node02 IDLE: %r" % two["slurm"])
expect(slurm_field("AvailableFeatures", two["slurm"]) == "railyard,rails4,rxe0,rxe1,rxe2,rxe3",
       "lab-node02's features: %r" % slurm_field("AvailableFeatures", two["slurm"]))
# The lab controller runs topology/tree from the collector's topology (--slurm-topology): the
# node placed last is placed with the other, one switch for the unit holding both.
placed = [t for t in (slurm_topology, two["slurm_topology"]) if t]
print("scontrol show topology, as each node saw it placed: %r" % placed)
expect(len(placed) == 2, "both joined nodes were placed: %r" % placed)
expect(any(re.search(r"^SwitchName=su-leaf-r0 Level=0 .*Nodes=lab-node\[01-02\]$", t, re.M) for t in placed),
       "the controller places both nodes under su-leaf-r0: %r" % placed)
PY

# The scheduler learns the fabric from the fabric: the topology from the collector's directory
# is one scalable unit of both nodes, its leaves in rail order, and GET /api/v1/topology serves
# byte for byte the topology.conf the command writes.
"$RAILYARD" report topology "$LAB_REPORTS" --format json >"$LAB_WORK/topology.json" ||
  lab_fail "railyard report topology left nodes out: $(cat "$LAB_WORK/topology.json")"
python3 - "$LAB_WORK/topology.json" "$SRC/docs/topology.schema.json" <<'PY' || lab_fail "the lab's topology"
import json, sys, jsonschema
t = json.load(open(sys.argv[1]))
jsonschema.validate(t, json.load(open(sys.argv[2])))
assert t == {"schema": 1, "units": [{"name": "su-leaf-r0", "leaves": ["leaf-r0", "leaf-r1", "leaf-r2", "leaf-r3"],
                        "nodes": ["lab-node01", "lab-node02"]}], "left_out": []}, t
PY
python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
  "http://$LAB_COLLECTOR/api/v1/topology" >"$LAB_WORK/served.conf"
"$RAILYARD" report topology "$LAB_REPORTS" --check "$LAB_WORK/served.conf" ||
  lab_fail "the collector served another topology than the reports give: $(cat "$LAB_WORK/served.conf")"
echo "e2e: topology.conf as the collector serves it:"
cat "$LAB_WORK/served.conf"
