#!/usr/bin/env bash
# The fabric between nodes, broken on one node's cables only: lab-node01 and lab-node02 boot
# side by side on the lab leaf, and the leaf's port to lab-node02's rail 1 loses 5% of the
# frames both ways (--fault rail-loss=lab-node02:1:5) while its port to lab-node02's rail 2
# carries 1 Mb/s (rail-slow=lab-node02:2:1), and the cables of its rails 0 and 3 cross at the
# leaf (swap-rails=lab-node02:0,3). lab-node02 must fail rail.1.peer_write naming the
# retransmission counter and its delta, rail.2.peer_bandwidth with the figure, and rail.0.lldp
# and rail.3.lldp calling the cables swapped, and be drained for it; its other rails' peer
# checks pass (the lab leaf bridges its ports, so crossed cables still reach the reference),
# and lab-node01, on the same leaves and reference, passes and joins. The faults are pinned to
# one node each. (The node's writes between its own rails cross the leaf too:
# rails.cross_rdma_write fails for the pairs that take a shaped cable, and passes for 0→3,
# which does not.) The topology: the collector's, which the lab controller loads as its
# topology.conf (--slurm-topology, topology/tree), places lab-node01 under su-leaf-r0 and
# leaves lab-node02 out, named as miscabled with its rail, the leaf and port it reaches, and
# su-leaf-r0 as its likely unit.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
lab_collector
LAB_NODES="lab-node01 lab-node02" lab_boot rail-faults --storage-target --target-node lab-target01 \
  --fault rail-loss=lab-node02:1:5 --fault rail-slow=lab-node02:2:1 --fault swap-rails=lab-node02:0,3 \
  --slurm-topology
# The worst node's code: lab-node02 failed its self-test.
lab_expect_rc 1
"$RAILYARD" report show "$LAB_RUN/reports/lab-node02.json" >"$LAB_WORK/show.txt" || true
cat "$LAB_WORK/show.txt"

lab_assert <<'PY'
peer = ["rail.%d.peer_%s" % (i, w) for i in range(4) for w in ("write", "bandwidth", "latency")]
# lab-node01: untouched, on the same leaves: passes, every peer check with it, and joins.
expect(report["node"] == "lab-node01" and report["result"] == "pass",
       "lab-node01 passes: %s" % [c["name"] for c in report["checks"] if c["status"] == "fail"])
expect(all(check(n)["status"] == "pass" for n in peer), "lab-node01's peer checks pass: %s" %
       [(n, check(n)["observed"]) for n in peer if check(n)["status"] != "pass"])
expect(status["joined"] is True, "lab-node01 joined: %s" % status)
expect(slurm_field("State") == "IDLE", "the controller has lab-node01 IDLE: %r" % slurm)

# lab-node02: its rail 1 loses frames, its rail 2 is slow; nothing else of it fails.
two = node_files("lab-node02")
r2 = two["report"] or {"checks": []}
failed = sorted(c["name"] for c in r2["checks"] if c["status"] == "fail")
print("lab-node02 failed: %s" % failed)
expect(r2.get("result") == "fail", "lab-node02 fails")
expect("rail.1.peer_write" in failed and "rail.2.peer_bandwidth" in failed, "both faults caught: %s" % failed)
expect(all(n.startswith("rail.1.peer_") or n.startswith("rail.2.peer_") or n == "rails.cross_rdma_write"
           or n in ("rail.0.lldp", "rail.3.lldp") for n in failed),
       "only the shaped rails' peer checks and the crossed rails' LLDP fail: %s" % failed)
for i, other in ((0, 3), (3, 0)):
    c = check("rail.%d.lldp" % i, r2)
    expect(c["status"] == "fail" and c["observed"].startswith("leaf-r%d port swp2 " % other)
           and "the cables of rails 0 and 3 are swapped" in c["detail"],
           "lab-node02's rail.%d.lldp names the crossed cables: %s | %s" % (i, c["observed"], c["detail"]))
cross = check("rails.cross_rdma_write", r2)
expect(cross["status"] == "pass" or ("0→3 " in cross["observed"] and "0→3:" not in cross["detail"]),
       "the pair of rails no fault touches still writes: %s %s" % (cross["observed"], cross["detail"]))
w = check("rail.1.peer_write", r2)
print("rail-loss: %s | %s" % (w["observed"], w["detail"]))
expect(any(k in w["observed"] + w["detail"] for k in ("retry", "seq_err", "timeout", "retransmission", "no exchange")),
       "rail.1.peer_write names what the loss did: %s %s" % (w["observed"], w["detail"]))
b = check("rail.2.peer_bandwidth", r2)
print("rail-slow: %s | %s" % (b["observed"], b["detail"]))
expect(" Mb/s to 198.18.2.100:18515" in b["observed"], "rail.2.peer_bandwidth says the figure it measured: %s" % b["observed"])
for i in (0, 3):
    for what in ("peer_write", "peer_bandwidth", "peer_latency"):
        c = check("rail.%d.%s" % (i, what), r2)
        expect(c["status"] == "pass", "lab-node02's untouched rail.%d.%s passes: %s" % (i, what, c["observed"]))
expect((two["status"] or {}).get("joined") is False, "lab-node02 did not join: %s" % two["status"])
reason = slurm_field("Reason", two["slurm"]) or ""
expect("DRAIN" in (slurm_field("State", two["slurm"]) or "") and reason.startswith("railyard: rail."),
       "the controller has lab-node02 drained for its rails: %r" % two["slurm"])

# The controller's topology places the node that passed, and not the miscabled one.
print("lab-node01: scontrol show topology: %r" % slurm_topology)
expect(slurm_topology and re.search(r"^SwitchName=su-leaf-r0 Level=0 .*Nodes=lab-node01$", slurm_topology, re.M),
       "the controller places lab-node01 alone under su-leaf-r0: %r" % slurm_topology)
expect(two["slurm_topology"] is None, "lab-node02, not joined, waits for no placement")
PY

# lab-node02 is left out of the topology and named: the rail, the leaf and port its cable
# reaches, and the unit it belongs to; `railyard report topology` exits 1 for it.
rc=0
"$RAILYARD" report topology "$LAB_REPORTS" --format json >"$LAB_WORK/topology.json" 2>"$LAB_WORK/topology.err" || rc=$?
cat "$LAB_WORK/topology.err"
[[ $rc == 1 ]] || lab_fail "railyard report topology exited $rc, expected 1 (a node left out)"
grep -q "lab-node02 left out: rail 0 reaches leaf-r3 port swp2" "$LAB_WORK/topology.err" ||
  lab_fail "the miscabled node is named on standard error"
python3 - "$LAB_WORK/topology.json" <<'PY' || lab_fail "the lab's topology with a miscabled node"
import json, sys
t = json.load(open(sys.argv[1]))
assert [(u["name"], u["nodes"]) for u in t["units"]] == [("su-leaf-r0", ["lab-node01"])], t["units"]
out = t["left_out"]
assert len(out) == 1 and out[0]["node"] == "lab-node02", out
o = out[0]
assert (o["rail"], o["leaf"], o["port"], o["likely_unit"]) == (0, "leaf-r3", "swp2", "su-leaf-r0"), o
assert "two rails' cables crossed?" in o["why"] and "no passing report" in o["why"], o
print("e2e: lab-node02 left out: %s" % o["why"])
PY
