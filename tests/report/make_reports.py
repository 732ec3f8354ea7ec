#!/usr/bin/env python3
"""Realistic first-boot reports, in the exact form the agent writes (core/report.cc:
to_json(Report).dump(2)), built from the hardware fixtures' golden plans and inventories
(tests/fixtures/golden/<fixture>/{plan,discover}.json).

  make_reports.py SOURCE_DIR OUT_DIR --count N [--seed S] [--fail-rate F]
      N nodes of a mixed fleet, as the receiver stores them: OUT_DIR/<node>/<boot>.json
      and its <boot>.received;
      some nodes also have an earlier boot; about F of the nodes fail, each with one of the
      usual faults (PFC/DCBX, link down, downtrained PCIe, no RoCE v2 GID, NVMe-oF not
      live, pause storm, default route on a rail, MTU, nvidia-peermem, planning problem).
  make_reports.py SOURCE_DIR OUT_DIR --golden
      the named reports the tests compare against (OUT_DIR/<name>.json).

Deterministic for a given seed. Standard library only.
"""
import argparse
import hashlib
import json
import os
import random
import sys
import uuid

FIXTURES = {
    # fixture: (recipe drivers, name prefix, fleet weight)
    "hgx-8x8": (["doca-ofed-2.10.0", "cuda-13.0"], "hgx", 50),
    "gpu4-cx6dx": (["doca-ofed-2.10.0", "cuda-13.0"], "g4", 25),
    "gpu8-nic4": (["doca-ofed-2.10.0", "cuda-13.0"], "g8", 10),
    "gpu-nic-sys": (["doca-ofed-2.10.0", "cuda-13.0"], "gsys", 3),
    "storage-node": (["doca-ofed-2.10.0"], "stor", 7),
    "qemu-virt": (["debian12-inbox"], "lab", 5),
}
# A fleet in the middle of a rollout: an older driver release and kernel on some nodes.
OLDER_DRIVERS = {"doca-ofed-2.10.0": "doca-ofed-2.9.0", "cuda-13.0": "cuda-12.8"}
NOBLE_KERNELS = ["6.8.0-49-generic"] * 7 + ["6.8.0-45-generic"] * 3
BOOKWORM_KERNELS = ["6.1.0-28-amd64"] * 4 + ["6.1.0-26-amd64"]

# Each bundle's modules as the report's "modules" lists them: (name, the version DKMS built,
# the loaded module's MODULE_VERSION); None for in-tree modules.
OFED = lambda dkms, mod: [("mlx5_core", dkms, mod), ("mlx5_ib", dkms, mod), ("ib_uverbs", dkms, mod),
                          ("rdma_ucm", dkms, mod), ("rdma_cm", dkms, mod), ("nvme_rdma", dkms, mod),
                          ("8021q", None, None)]
CUDA = lambda v: [("nvidia", v, v), ("nvidia_uvm", v, v), ("nvidia_peermem", v, v)]
BUNDLE_MODULES = {
    "doca-ofed-2.10.0": ("2.10.0", OFED("25.01.OFED.25.01.0.6.0.1", "25.01-0.6.0")),
    "doca-ofed-2.9.0": ("2.9.0", OFED("24.10.OFED.24.10.2.1.8.1", "24.10-2.1.8")),
    "cuda-13.0": ("13.0", CUDA("580.65.06")),
    "cuda-12.8": ("12.8", CUDA("570.133.20")),
    "debian12-inbox": ("44.0-2", [(m, None, None) for m in
                                  ("mlx5_core", "mlx5_ib", "ib_uverbs", "rdma_ucm", "rdma_cm", "8021q", "nvme_rdma")]),
}

FAULTS = [("pfc_dcbx", 25), ("link_down", 18), ("downtrained", 10), ("no_gid", 10), ("nvmeof", 10),
          ("pause_storm", 6), ("default_route", 5), ("mtu", 5), ("peermem", 4), ("speed", 4), ("problem", 3)]


def load(src, fixture, name):
    with open(os.path.join(src, "tests", "fixtures", "golden", fixture, name), encoding="utf-8") as f:
        return json.load(f)


# The gpu.N checks NVML answers (firstboot/checks/gpu_health.cc).
GPU_HEALTH = ("nvml", "persistence", "ecc", "row_remap", "xid", "throttle", "temperature", "nvml_pcie", "nvlink")


def pcie_observed(expected):
    # ">= Gen5 x16" -> what a healthy link reads back.
    speed = {"Gen3": "8.0 GT/s PCIe", "Gen4": "16.0 GT/s PCIe", "Gen5": "32.0 GT/s PCIe"}
    parts = expected.replace(">=", "").split()
    return "%s %s" % (speed.get(parts[0], "16.0 GT/s PCIe"), parts[1] if len(parts) > 1 else "x16")


class Node:
    def __init__(self, rng, src, fixture, name, cache):
        self.fabric = None  # (unit, place, miscabled) for a fleet's node
        self.rng = rng
        self.fixture = fixture
        self.name = name
        if fixture not in cache:
            cache[fixture] = (load(src, fixture, "plan.json"), load(src, fixture, "discover.json"))
        plan, discover = cache[fixture]
        self.plan = json.loads(json.dumps(plan))
        self.plan["node"] = name
        self.inventory = {k: json.loads(json.dumps(discover[k])) for k in ("gpus", "nics", "rdma_devices", "nvme", "numa_nodes")}
        self.rails = {r["index"]: r for r in self.plan["rails"]}
        # Soft-RoCE rails: planned (soft_roce) or already there (rxe devices).
        self.unloaded = set()  # modules a fault leaves unloaded
        self.soft_roce = any(r["soft_roce"] or r["rdma_device"].startswith("rxe") for r in self.plan["rails"])
        self.checks = []
        self.problems = []

    def rail_of(self, name):
        parts = name.split(".")
        return self.rails[int(parts[1])] if parts[0] == "rail" else None

    def observe(self, c):
        """A passing check as verify reports it."""
        name, exp = c["name"], c["expected"]
        kind = name.split(".")[-1]
        rail = self.rail_of(name)
        r = {"name": name, "status": "pass", "expected": exp, "observed": exp, "detail": "", "required": c["required"]}
        dcb = kind in ("pfc", "trust", "dscp_map", "ecn", "storm_prevention", "pause_storm")
        emulated = rail and self.nic(rail["ifname"]).get("dcb_emulated_by")
        if emulated and dcb:  # the lab's DCB stand-in answers as hardware would, and says so
            r["detail"] = "DCB emulated in software by %s (lab stand-in, not hardware)" % emulated
        elif self.soft_roce and rail and dcb:
            r["status"] = "unsupported"
            r["observed"] = "unsupported"
            r["detail"] = {
                "pfc": "%s: RTM_GETDCB IEEE PFC: Operation not supported" % rail["ifname"],
                "dscp_map": "%s: RTM_GETDCB IEEE app table: Operation not supported" % rail["ifname"],
                "trust": "%s: no qos/trust and no DCB: Operation not supported" % rail["ifname"],
                "ecn": "/sys/class/net/%s/ecn/roce_np/enable/3: No such file or directory" % rail["ifname"],
                "storm_prevention": "%s: ETHTOOL_GTUNABLE pfc-prevention-tout: Operation not supported" % rail["ifname"],
                "pause_storm": "the driver does not count pauses per priority",
            }[kind]
            if kind == "pause_storm":
                r["observed"] = "no rx_prio3_pause/tx_prio3_pause counters"
            return r
        if kind == "pcie_link":
            r["observed"] = pcie_observed(exp)
        elif kind == "affinity":
            r["observed"] = rail["affinity"] or "-"
        elif kind == "speed":
            r["observed"] = exp.replace(">= ", "")
        elif kind == "no_default_route":
            r["observed"] = "none via " + rail["netdev"]
        elif kind == "pfc":
            r["observed"] = "pfc_en " + rail["pfc_enable"]
        elif kind == "ecn":
            r["observed"] = "np 1, rp 1"
        elif kind == "rdma_port":
            r["observed"] = "%s port %d ACTIVE" % (rail["rdma_device"], rail["rdma_port"])
        elif kind == "roce_v2_gid":
            r["observed"] = "index 3 on " + rail["netdev"]
        elif kind == "rdma_write":
            rate = 98000 if not self.soft_roce else 150
            r["observed"] = "%s bytes verified at %d Mb/s" % (exp.split()[0], int(rate * self.rng.uniform(0.85, 1.0)))
        elif kind == "pause_storm":
            r["observed"] = "rx %d/s, tx %d/s" % (self.rng.randint(0, 40), self.rng.randint(0, 15))
        elif name == "rails.cross_rdma_write":
            n = len(self.rails)
            rate = 98000 if not self.soft_roce else 150
            r["observed"] = ", ".join("%d→%d %d Mb/s" % (a, b, int(rate * self.rng.uniform(0.8, 1.0)))
                                      for a in range(n) for b in range(a + 1, n))
        elif kind == "connected":
            r["observed"] = "nvme%d live over rdma" % (int(name.split(".")[1]) + 1)
        elif kind == "namespace_read":
            r["observed"] = "/dev/nvme%dn1: 4096 bytes read" % (int(name.split(".")[1]) + 1)
        elif kind == "lldp":
            n = self.neighbor(rail)
            r["observed"] = "%s port %s (chassis %s)" % (n["system_name"], n["port_id"], n["chassis_id"])
        elif kind == "lldp_pfc":
            r["observed"] = "PFC enable %s (priority 3), capability 8, not willing" % rail["pfc_enable"]
        elif kind == "lldp_mtu":
            r["observed"] = "maximum frame size 9216"
        elif kind == "lldp_vlan":
            r["observed"] = "port VLAN 1, VLAN %d 'rail%d'" % (rail["vlan"], rail["index"])
        elif name.startswith("gpu.") and kind in GPU_HEALTH:
            self.observe_gpu(r, int(name.split(".")[1]), kind)
        elif kind == "gpudirect_write":  # no random draw: the fleet's faults stay where they were
            r["observed"] = "; ".join("%s: %s bytes verified at %d Mb/s (dma-buf)" % (pci, exp.split()[0], 91000)
                                      for pci in rail["gpu_pcis"])
        elif kind == "gpu_topology":
            pairs = len(self.inventory["gpus"]) - 1
            r["observed"] = "%s; %s agrees with NVML on %d GPU pair%s" % (
                rail["affinity"] or "-", ", ".join(rail["gpu_pcis"]), pairs, "" if pairs == 1 else "s")
        elif name == "gpudirect.peermem":
            r["observed"] = "loaded"
        elif name.startswith("gpudirect.acs."):
            r["observed"] = "0x0000"
        return r

    def observe_gpu(self, r, g, kind):
        """NVML's answers for a healthy GPU g, without a random draw (the fleet's faults stay where
        they were)."""
        gpu = self.inventory["gpus"][g]
        gen = {"8.0": 3, "16.0": 4, "32.0": 5}.get(gpu["link"]["max_speed"].split()[0], 4)
        width = gpu["link"]["max_width"]
        links = {"0x2330": 18, "0x20b0": 12, "0x20b2": 12}.get(gpu["device"], 0)
        if kind == "nvml":
            name = {"0x2330": "NVIDIA H100 80GB HBM3", "0x20b2": "NVIDIA A100-SXM4-80GB"}.get(gpu["device"], "NVIDIA L40S")
            uid = hashlib.sha256((self.name + gpu["pci"]).encode()).hexdigest()
            r["observed"] = "%s, GPU-%s-%s-%s-%s-%s" % (name, uid[:8], uid[8:12], uid[12:16], uid[16:20], uid[20:32])
            r["detail"] = "driver 580.65.06"
        elif kind == "nvlink" and not links:
            r["status"], r["observed"], r["detail"] = "skip", "no NVLink", "this GPU has no NVLink"
        else:
            r["observed"] = {
                "persistence": "on",
                "ecc": "on, 0 volatile uncorrectable errors",
                "row_remap": "none pending; 0 correctable, 0 uncorrectable rows remapped",
                "xid": "none since boot",
                "throttle": "idle",
                "temperature": "%d °C" % (33 + (g * 7) % 9),
                "nvml_pcie": "Gen%d x%d (max Gen%d x%d)" % (gen, width, gen, width),
                "nvlink": "%d of %d active" % (links, links),
            }[kind]

    def neighbor(self, rail):
        """The leaf port at the far end of `rail`, as the agent reports it: the expected one, or
        leaf-rN and a port number taken from the node's name (no random draw: the fleet's
        faults stay where they were)."""
        want = rail.get("lldp") or {}
        port = want.get("port") or "swp%d" % (sum(map(ord, self.name)) % 32 + 1)
        i = rail["index"]
        system = want.get("system") or "leaf-r%d" % i
        if self.fabric is not None:
            # A fleet's node: its rack is its scalable unit, rail i on that unit's leaf i, the
            # port its place in the rack; a few have rail 1 in the next unit's leaf.
            unit, place, miscabled = self.fabric
            if miscabled and i == 1:
                unit += 1
            system, port = "su%03d-leaf-r%d" % (unit, i), "swp%d" % (place + 1)
        return {"system_name": system, "port_id": port,
                "port_description": "", "chassis_id": "0c:42:a1:10:00:%02x" % i,
                "source_mac": "0c:42:a1:10:00:%02x" % i, "ttl_s": 120, "system_description": "",
                "pfc": {"willing": False, "mbc": False, "capability": 8, "enabled": rail["pfc_enable"]},
                "max_frame_size": 9216, "port_vlan_id": 1,
                "vlans": [{"vid": rail["vlan"], "name": "rail%d" % i}] if rail.get("vlan") else [],
                "other_tlvs": []}

    def lldp(self):
        if not any(c["name"].endswith(".lldp") for c in self.checks):
            return None
        out = []
        for i in sorted(self.rails):
            rail = self.rails[i]
            want = rail.get("lldp") or {}
            heard = next(c for c in self.checks if c["name"] == "rail.%d.lldp" % i)["status"] == "pass"
            out.append({"rail": i, "ifname": rail["ifname"],
                        "expected": {"system": want.get("system"), "port": want.get("port")},
                        "neighbor": self.neighbor(rail) if heard else None, "frames": 3 if heard else 0,
                        "invalid": ""})
        return out

    def verify_all(self):
        self.checks = [self.observe(c) for c in self.plan["checks"]]

    def fail(self, name, observed, detail=""):
        for c in self.checks:
            if c["name"] == name:
                c["status"], c["observed"], c["detail"] = "fail", observed, detail
                return True
        return False

    def nic(self, ifname):
        return next(n for n in self.inventory["nics"] if n["ifname"] == ifname)

    def inject(self, fault):
        rng = self.rng
        rails = sorted(self.rails)
        r = self.rails[rng.choice(rails)] if rails else None
        i = r["index"] if r else 0
        if fault == "pfc_dcbx" and not self.soft_roce:
            self.fail("rail.%d.pfc" % i, "pfc_en 0x00",
                      "PFC is not as applied: the NIC may be in DCBX firmware (willing) mode, or lldpad overrides it")
            return True
        if fault == "link_down":
            nic = self.nic(r["ifname"])
            nic["operstate"], nic["speed_mbps"] = "down", -1
            for d in self.inventory["rdma_devices"]:
                if d["name"] == r["rdma_device"]:
                    d["ports"][0]["state"], d["ports"][0]["phys_state"] = "DOWN", "Polling"
            self.fail("rail.%d.link" % i, "down", "no carrier: check the cable, the transceiver and the switch port")
            self.fail("rail.%d.speed" % i, "unknown",
                      "link negotiated below the rail speed: check the cable and the switch port speed")
            self.fail("rail.%d.rdma_port" % i, "%s port %d DOWN" % (r["rdma_device"], r["rdma_port"]))
            self.fail("rail.%d.rdma_write" % i, "failed", "%s: modify QP to RTR: Network is unreachable" % r["rdma_device"])
            self.fail("rail.%d.gpudirect_write" % i, "failed", "; ".join(
                "%s: %s: modify QP to RTR: Network is unreachable" % (pci, r["rdma_device"]) for pci in r["gpu_pcis"]))
            self.fail("rails.cross_rdma_write", "failed", "%d→%d: %s: modify QP to RTR: Network is unreachable"
                      % (min(i, (i + 1) % len(rails)), max(i, (i + 1) % len(rails)), r["rdma_device"]))
            # No link, no LLDP: the far end's checks have nothing to read (a warning unless
            # the recipe requires LLDP).
            for c in self.checks:
                if c["name"] == "rail.%d.lldp" % i:
                    c["status"], c["observed"] = "warn", "nothing heard on %s in 35 s" % r["ifname"]
                    c["detail"] = ("no LLDP from the far end: LLDP is off on the switch port, the NIC's firmware runs its "
                                   "own LLDP agent and keeps the frames from the host (ConnectX: mlxconfig "
                                   "LLDP_NB_RX_MODE_P1), or the cable is not connected to a switch "
                                   "(fabric.lldp.required = false: a warning)")
                elif c["name"] in ("rail.%d.lldp_pfc" % i, "rail.%d.lldp_mtu" % i, "rail.%d.lldp_vlan" % i):
                    c["status"], c["observed"], c["detail"] = "skip", "no LLDP neighbour", "see rail.%d.lldp" % i
            return True
        if fault == "downtrained" and self.inventory["gpus"]:
            g = rng.randrange(len(self.inventory["gpus"]))
            gpu = self.inventory["gpus"][g]
            gpu["link"]["current_speed"], gpu["link"]["current_width"] = "16.0 GT/s PCIe", 8
            return self.fail("gpu.%d.pcie_link" % g, "16.0 GT/s PCIe x8",
                             "downtrained: the device can do %s x%d (reseat the card or riser, check the slot)"
                             % (gpu["link"]["max_speed"], gpu["link"]["max_width"]))
        if fault == "gpu_health" and len(self.inventory["gpus"]) > 5:  # golden reports only
            self.fail("gpu.2.ecc", "on, 2 volatile uncorrectable errors",
                      "uncorrectable memory errors since the driver loaded: keep the node out, run the DCGM "
                      "diagnostics; a GPU that keeps having them needs service")
            self.fail("gpu.5.nvlink", "17 of 18 active; link 3 inactive",
                      "GPU-to-GPU traffic over NVLink is degraded or falls back to PCIe: check the NVSwitch fabric "
                      "(nvidia-fabricmanager) and nvidia-smi nvlink -s; a link that stays down needs service")
            pci = self.rails[4]["gpu_pcis"][0]
            self.fail("rail.4.gpudirect_write", "failed",
                      "%s: %s: register GPU memory (dma-buf: the GPU or driver does not offer dma-buf "
                      "(DMA_BUF_SUPPORTED is 0); ibv_reg_mr on GPU memory needs nvidia_peermem loaded): Bad address"
                      % (pci, self.rails[4]["rdma_device"]))
            return True
        if fault == "no_gid" and r and r["address"]:
            self.fail("rail.%d.address" % i, "no address")
            self.fail("rail.%d.roce_v2_gid" % i, "none",
                      "no RoCE v2 IPv4 GID on %s: the address is missing or on another device" % r["netdev"])
            self.fail("rail.%d.rdma_write" % i, "no RoCE v2 GID",
                      "no RoCE v2 IPv4 GID on %s to address the test to" % r["netdev"])
            return True
        if fault == "nvmeof" and self.plan["nvmeof"]:
            t = self.plan["nvmeof"][0]
            why = ("not connected to %s:%d: target down, no route over rail %d, or host NQN not allowed"
                   % (t["address"], t["port"], t["rail"]))
            self.fail("nvmeof.0.connected", "no controller", why)
            self.fail("nvmeof.0.namespace_read", "no controller", why)
            return True
        if fault == "pause_storm" and not self.soft_roce:
            return self.fail("rail.%d.pause_storm" % i, "rx 3/s, tx %d/s" % rng.randint(20000, 90000),
                             "this NIC is sending a pause storm: a stuck receive queue; it will freeze the switch port")
        if fault == "default_route" and r:
            return self.fail("rail.%d.no_default_route" % i, "default route via " + r["netdev"],
                             "rails must never carry a default route (DHCP on a rail?)")
        if fault == "mtu" and r:
            return self.fail("rail.%d.mtu" % i, "1500", "RoCE path MTU follows the interface MTU; the switch port must match")
        if fault == "peermem" and self.inventory["gpus"]:
            self.unloaded.add("nvidia_peermem")
            return self.fail("gpudirect.peermem", "not loaded",
                             "GPUDirect RDMA falls back to host memory: rebuild nvidia-peermem against the OFED in the image")
        if fault == "speed" and r and not self.soft_roce:
            nic = self.nic(r["ifname"])
            nic["speed_mbps"] = nic["speed_mbps"] // 2 if nic["speed_mbps"] > 0 else 100000
            return self.fail("rail.%d.speed" % i, "%d Mb/s" % nic["speed_mbps"],
                             "link negotiated below the rail speed: check the cable and the switch port speed")
        if fault == "problem" and len(rails) > 1:
            # A rail NIC did not come up: discovery does not see it, so the plan falls short.
            want = len(rails)
            gone = self.rails[rails[-1]]
            self.inventory["nics"] = [n for n in self.inventory["nics"] if n["ifname"] != gone["ifname"]]
            self.inventory["rdma_devices"] = [d for d in self.inventory["rdma_devices"] if d["name"] != gone["rdma_device"]]
            self.plan["rails"] = [r for r in self.plan["rails"] if r["index"] != gone["index"]]
            self.problems = ["the recipe wants %d rails; %d RDMA NIC(s) found" % (want, want - 1)]
            self.plan["ok"] = False
            self.plan["problems"] = list(self.problems)
            self.checks = []
            return True
        return False

    def changes(self):
        out = []
        if self.problems:
            return out
        for r in self.plan["rails"]:
            label = "rail %d (%s)" % (r["index"], r["ifname"])
            out.append({"object": label + ": MTU", "outcome": "changed", "before": "1500", "after": str(r["mtu"]), "detail": ""})
            if r["vlan"] is not None:
                out.append({"object": label + ": VLAN " + r["netdev"], "outcome": "changed", "before": "absent",
                            "after": "id %d" % r["vlan"], "detail": ""})
            if r["address"]:
                out.append({"object": label + ": address on " + r["netdev"], "outcome": "changed", "before": "",
                            "after": r["address"], "detail": ""})
            for what, after in (("PFC", "pfc_en " + r["pfc_enable"]), ("DSCP to priority", "DSCP 26 → 3"),
                                ("trust", r["trust"]), ("RoCE ToS", str(r["roce_tos"]))):
                if self.soft_roce and what != "RoCE ToS" and not self.nic(r["ifname"]).get("dcb_emulated_by"):
                    out.append({"object": label + ": " + what, "outcome": "unsupported", "before": "", "after": after,
                                "detail": "Operation not supported"})
                else:
                    out.append({"object": label + ": " + what, "outcome": "changed", "before": "", "after": after,
                                "detail": ""})
            for key, value in sorted(r["sysctls"].items()):
                out.append({"object": "sysctl " + key, "outcome": "unchanged" if self.rng.random() < 0.3 else "changed",
                            "before": "0", "after": value, "detail": ""})
        return out

    def phases(self, slow):
        rng = self.rng
        p = [{"phase": "discover", "ms": round(rng.uniform(180, 900), 1)},
             {"phase": "plan", "ms": round(rng.uniform(1, 9), 1)}]
        if self.problems:
            return p
        verify = 3000 + 900 * len(self.rails) + rng.uniform(0, 4000)
        if any(c["name"].endswith(".link") and c["status"] == "fail" for c in self.checks):
            verify += 60000  # waited selftest.link_wait_s for the link
        if slow:
            verify += rng.uniform(60000, 240000)
        p.append({"phase": "apply", "ms": round(rng.uniform(700, 4200), 1)})
        p.append({"phase": "verify", "ms": round(verify, 1)})
        return p

    def modules(self, drivers):
        out, seen = [], set()
        for bundle in drivers:
            bundle_version, modules = BUNDLE_MODULES[bundle]
            for name, built, mod_version in modules:
                if name in seen:
                    continue
                seen.add(name)
                # The lab's VMs have no ConnectX (and the lab image drops its driver).
                loaded = name not in self.unloaded and not (self.soft_roce and name.startswith("mlx5"))
                src = hashlib.sha256(("%s %s" % (name, built)).encode()).hexdigest()[:23].upper()
                out.append({"name": name, "bundle": bundle, "bundle_version": bundle_version, "built": built,
                            "loaded": loaded, "version": mod_version if loaded else None,
                            "srcversion": src if loaded else None})
        return out

    def report(self, started_at, boot_id, kernel, drivers, version, slow):
        failing = [c for c in self.checks if c["status"] == "fail" or (c["status"] == "unsupported" and c["required"])]
        return {
            "schema": 1,
            "node": self.name,
            "recipe": self.plan["recipe"],
            "result": "fail" if failing or self.problems else "pass",
            "railyard_version": version,
            "started_at": started_at,
            "host": {"hostname": self.name, "kernel": kernel, "boot_id": boot_id, "drivers": drivers},
            "problems": self.problems,
            "checks": self.checks,
            "phases": self.phases(slow),
            "changes": self.changes(),
            "plan": self.plan,
            "inventory": self.inventory,
            "modules": self.modules(drivers),
            "lldp": self.lldp(),
            "peers": None,  # no golden node probes a reference
            "join": None,  # what the join did: the agent fills it in after the report is first written
        }


def dump(report):
    # nlohmann's dump(2): two-space indent, ": " after keys, UTF-8 kept, "\n" at the end.
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def kernel_for(rng, fixture, older):
    if fixture == "qemu-virt":
        return rng.choice(BOOKWORM_KERNELS)
    return "6.8.0-45-generic" if older else rng.choice(NOBLE_KERNELS)


def fleet(src, out, count, seed, fail_rate):
    rng = random.Random(seed)
    cache = {}
    names = [f for f in FIXTURES]
    weights = [FIXTURES[f][2] for f in names]
    fault_names = [f for f, _ in FAULTS]
    fault_weights = [w for _, w in FAULTS]
    for n in range(count):
        fixture = rng.choices(names, weights)[0]
        drivers, prefix, _ = FIXTURES[fixture]
        name = "%s-r%03d-n%02d" % (prefix, n // 40, n % 40)
        older = fixture != "qemu-virt" and rng.random() < 0.2
        node_drivers = [OLDER_DRIVERS.get(d, d) for d in drivers] if older else list(drivers)
        kernel = kernel_for(rng, fixture, older)
        day_ms = rng.randrange(0, 86400)
        boots = [(day_ms, False)]
        if rng.random() < 0.03:  # rebooted after a failed first boot: the earlier report stays
            boots.insert(0, (max(0, day_ms - rng.randrange(600, 7200)), True))
        for seconds, earlier in boots:
            node = Node(rng, src, fixture, name, cache)
            node.fabric = (n // 40, n % 40, n % 997 == 500)
            node.verify_all()
            if earlier or rng.random() < fail_rate:
                for _ in range(8):
                    if node.inject(rng.choices(fault_names, fault_weights)[0]):
                        break
            started = "2026-03-%02dT%02d:%02d:%02dZ" % (10 + seconds // 86400, seconds // 3600 % 24, seconds // 60 % 60, seconds % 60)
            boot_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            rep = node.report(started, boot_id, kernel, node_drivers, "0.1.0", rng.random() < 0.01)
            write(os.path.join(out, name, boot_id + ".json"), dump(rep))
            # When the receiver took it (collect/report_store.h): a couple of minutes after the start.
            at = seconds + 120
            write(os.path.join(out, name, boot_id + ".received"),
                  "2026-03-%02dT%02d:%02d:%02dZ\n" % (10 + at // 86400, at // 3600 % 24, at // 60 % 60, at % 60))


def golden(src, out):
    """The named reports the tests read; each exercises one view."""
    cases = [
        # name, fixture, node, fault, seed
        ("hgx-pass", "hgx-8x8", "hgx-r001-n01", None, 1),
        ("hgx-pfc-link", "hgx-8x8", "hgx-r001-n02", ["pfc_dcbx", "link_down"], 2),
        ("gpu4-downtrained-nvmeof", "gpu4-cx6dx", "g4-r002-n07", ["downtrained", "nvmeof"], 3),
        ("gpu8-nic4-no-gid", "gpu8-nic4", "g8-r003-n11", ["no_gid", "pause_storm"], 4),
        ("gpu-nic-sys-default-route", "gpu-nic-sys", "gsys-r004-n02", ["default_route"], 5),
        ("storage-problem", "storage-node", "stor-r005-n03", ["problem"], 6),
        ("lab-soft-roce", "qemu-virt", "lab-node01", None, 7),
        ("hgx-gpu-health", "hgx-8x8", "hgx-r001-n03", ["gpu_health"], 8),
    ]
    cache = {}
    for name, fixture, node_name, faults, seed in cases:
        rng = random.Random(seed)
        node = Node(rng, src, fixture, node_name, cache)
        node.verify_all()
        for f in faults or []:
            if not node.inject(f):
                sys.exit("make_reports: fault %s does not apply to %s" % (f, fixture))
        drivers = FIXTURES[fixture][0]
        kernel = "6.1.0-28-amd64" if fixture == "qemu-virt" else "6.8.0-49-generic"
        boot_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        rep = node.report("2026-03-10T08:%02d:00Z" % seed, boot_id, kernel, drivers, "0.1.0", False)
        write(os.path.join(out, name + ".json"), dump(rep))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fail-rate", type=float, default=0.06)
    ap.add_argument("--golden", action="store_true")
    a = ap.parse_args()
    if a.golden:
        golden(a.source_dir, a.out_dir)
    elif a.count > 0:
        fleet(a.source_dir, a.out_dir, a.count, a.seed, a.fail_rate)
    else:
        ap.error("give --count N or --golden")


if __name__ == "__main__":
    main()
