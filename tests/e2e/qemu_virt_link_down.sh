#!/usr/bin/env bash
# Rail 1's NIC has no link from power-on (railyard qemu --link-down 1, QEMU's set_link
# before the guest runs): the node fails on rail.1.link, only rail 1 and the writes that
# need it fail, it does not join, and the lab's Slurm controller has it drained naming rail 1.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
lab_collector
lab_boot link-down --storage-target --target-node lab-target01 --link-down 1 --slurm-out "$LAB_WORK/link-down/slurm.txt"
lab_expect_rc 1

lab_assert <<'PY'
expect(report["result"] == "fail", "result fail")
c = check("rail.1.link")
expect(c["status"] == "fail" and c["observed"] != "up", "rail.1.link failed: %s" % c)
failed = sorted(c["name"] for c in report["checks"] if c["status"] == "fail")
others = [n for n in failed if not n.startswith("rail.1.") and n != "rails.cross_rdma_write"]
expect(others == [], "only rail 1 and the writes through it fail: %s" % failed)
for i in (0, 2, 3):
    expect(check("rail.%d.link" % i)["status"] == "pass", "rail %d keeps its link" % i)
expect(check("nvmeof.0.connected")["status"] == "pass", "storage on rail 0 is unaffected")
expect(status["joined"] is False and status["ready_unit"] != "active", "not joined: %s" % status)
expect("DRAIN" in (slurm_field("State") or "") and (slurm_field("Reason") or "").startswith("railyard: rail.1.link"),
       "the controller has lab-node01 drained for rail 1: %r" % slurm)
expect([(a["action"], a["exit"]) for a in report["join"]["slurm"]["actions"]] == [("drain", 0)], "drained by the node")
# The journal's errors are exactly the failures: one line per failing check, and the refusal.
# Besides the agent's lines there is systemd's own: the unit failed (the agent exited 1).
lines = [l for l in (journal_err or "").splitlines() if l.strip()]
agent = [l for l in lines if l.startswith("railyard-firstboot: ")]
named = sorted(l.split(":")[1].strip() for l in agent if ": fail: " in l)
expect(named == failed, "journalctl -p err names the failing checks %s: %s" % (failed, lines))
expect(any("self-test failed: not joining" in l for l in agent), "the refusal is an error: %s" % lines)
expect(len(agent) == len(failed) + 1, "nothing else of the agent's at priority err: %s" % lines)
others = [l for l in lines if l not in agent]
expect(all(l.startswith("Failed to start railyard-firstboot.service") for l in others),
       "the only other error line is systemd's for the failed unit: %s" % others)
PY
