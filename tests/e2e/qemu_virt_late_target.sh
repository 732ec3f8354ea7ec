#!/usr/bin/env bash
# The storage target serves its NVMe-oF targets 60 s after the node powers on, as a storage
# server rebooting when a rack comes up (the leaf switch, which the target's VM carries, is up
# from the start, so LLDP and the rails' checks see it): the node's first NVMe-oF connect fails, the agent retries it within the lab
# recipe's selftest.storage_wait_s, connects, reads the namespace, passes and joins; the
# report says the connection came after retries. The Slurm controller, restarting too, closes
# the node's connections for 12 s from the first (--fault controller-outage): slurmd, which
# the agent saw active, exits when it cannot fetch its configuration, systemd starts it again,
# and it registers within join.slurm.register_wait_s. The node is booted without an inventory
# (railyard qemu's short form): the addresses the lab recipe implies are enough to join.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
LAB_IDENTITY=implied lab_boot late-target --storage-target --target-delay 60 --fault controller-outage=12
lab_expect_rc 0

lab_assert <<'PY'
expect(report["result"] == "pass", "result pass: %s" % [c["name"] for c in report["checks"] if c["status"] == "fail"])
nvme = [c for c in report["changes"] if c["object"].startswith("NVMe-oF ")]
expect(len(nvme) == 1, "one NVMe-oF connection: %s" % nvme)
if nvme:
    expect(nvme[0]["outcome"] == "changed", "connected: %s" % nvme[0])
    expect("connected after " in nvme[0]["detail"] and " of retries (first: " in nvme[0]["detail"],
           "the connection came after retries, and the first failure is kept: %s" % nvme[0]["detail"])
expect(check("nvmeof.0.connected")["status"] == "pass", "nvmeof.0.connected: %s" % check("nvmeof.0.connected"))
expect(check("nvmeof.0.namespace_read")["status"] == "pass", "namespace read: %s" % check("nvmeof.0.namespace_read"))
expect(status["joined"] is True, "joined: %s" % status)
expect(report["node"] == "railyard-lab", "railyard qemu's own lab identity: %s" % report["node"])
# The controller's outage: it began (the relay's mark), slurmd failed within it and systemd
# started it again, and the node registered all the same.
expect(os.path.exists(os.path.join(run, "controller-outage")), "the node reached for the controller during the outage")
expect(join_journal and "slurmd.service: Scheduled restart job" in join_journal,
       "systemd started slurmd again:\n%s" % join_journal)
slurm_record = (report.get("join") or {}).get("slurm") or {}
expect(isinstance(slurm_record.get("registered_ms"), int), "registered after the outage: %s" % slurm_record)
PY
