#!/usr/bin/env bash
# A recipe that expects a GPU, on a node without one: the image of a recipe extending
# qemu-virt with gpu_count = 1 (a second build; every stage before the agent's comes from
# the stage cache) boots beside the storage target. Only devices.ready (the GPU never came
# during the wait) and gpu.count may fail, and the node must not join.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/tests/e2e/recipes/qemu-virt-gpu.toml"
lab_collector
lab_boot gpu-missing --storage-target --target-node lab-target01
lab_expect_rc 1

lab_assert <<'PY'
expect(report["recipe"] == "qemu-virt-gpu", "the GPU recipe ran: %s" % report["recipe"])
expect(report["result"] == "fail", "result fail")
c = check("gpu.count")
expect(c["status"] == "fail" and c["expected"] == "1" and c["observed"] == "0", "gpu.count failed 1 vs 0: %s" % c)
d = check("devices.ready")
expect(d["status"] == "fail" and "1 GPU wanted, 0 present" in d["detail"], "devices.ready names the GPU: %s" % d)
failed = sorted(c["name"] for c in report["checks"] if c["status"] == "fail")
expect(failed == ["devices.ready", "gpu.count"], "nothing else failed: %s" % failed)
# railyard-ready.service is enabled in the lab image, as Debian's slurmd enables itself: only
# the join gate the build adds kept it from starting at boot.
expect(status["joined"] is False and status["ready_unit"] != "active", "not joined, the join unit gated: %s" % status)
expect(report["join"]["units"] == [] and report["join"]["joined"] is False, "no unit started: %s" % report["join"])
expect(status["agent_exit"] == 1, "the agent exits 1 (quarantined): %s" % status["agent_exit"])
PY
