#!/usr/bin/env bash
# Fewer rail NICs than the recipe expects (3 of 4): the hardware cannot satisfy the recipe,
# so the wait for devices fails at its bound, the plan has a problem, nothing is applied,
# and the node does not join. With no rail configured it still drains itself: Slurm goes over
# the management network.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
lab_collector
lab_boot rails3 --rails 3 --storage-target --target-node lab-target01 --slurm-out "$LAB_WORK/rails3/slurm.txt"
lab_expect_rc 1

lab_assert <<'PY'
expect(report["result"] == "fail", "result fail")
expect(any("wants 4 rails; 3" in p for p in report["problems"]), "the problem names the rail count: %s" % report["problems"])
# The wait for devices gave up on the fourth NIC (its check, the only one); nothing else ran.
names = [c["name"] for c in report["checks"]]
expect(names == ["devices.ready"], "nothing verified beyond the wait: %s" % names)
d = report["checks"][0]
expect(d["status"] == "fail" and "4 rail NICs wanted, 3 present" in d["detail"], "devices.ready names them: %s" % d)
expect(report.get("changes", []) == [], "nothing applied")
expect(status["joined"] is False and status["ready_unit"] != "active", "not joined: %s" % status)
# The reason names the planning problem and the device wait, as the failing checks do.
expect("DRAIN" in (slurm_field("State") or "") and slurm_field("Reason") == "railyard: plan, devices.ready",
       "the controller has lab-node01 drained for the plan and devices.ready: %r" % slurm)
PY
