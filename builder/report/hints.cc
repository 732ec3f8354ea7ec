#include "report/hints.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace railyard {

namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// A full PCI address ("0000:1b:00.0") starting at s[i]; its length, or 0.
std::size_t pci_at(std::string_view s, std::size_t i) {
  static const char* shape = "hhhh:hh:hh.h";
  std::size_t n = 12;
  if (s.size() - i < n) return 0;
  for (std::size_t k = 0; k < n; ++k)
    if (shape[k] == 'h' ? !is_hex(s[i + k]) : s[i + k] != shape[k]) return 0;
  return n;
}

bool contains(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

struct Hint {
  std::string_view kind;
  // The usual cause; `refine` may give a more precise one from what was observed.
  std::string_view text;
  std::string (*refine)(const CheckResult& c) = nullptr;
};

const std::vector<Hint>& hints() {
  static const std::vector<Hint> table = {
      {"gpu.count", "GPUs missing from the bus: fallen off (Xid 79 in dmesg), not seated, or the driver did not bind; "
                    "check nvidia-smi, dmesg and the BMC's event log"},
      {"gpu.model", "a GPU of another model than the recipe's: the wrong SKU's recipe for this node, or a swapped board"},
      {"gpu.*.pcie_link", "the GPU's PCIe link is slower or narrower than the recipe wants: reseat the GPU or its riser, "
                          "check the slot and the BIOS PCIe generation setting"},
      {"rails.count", "rail NICs disappeared after planning: a NIC reset or firmware fault (dmesg: mlx5_core), or the "
                      "driver was unloaded"},
      {"rails.cross_rdma_write",
       "RDMA between rails fails while each rail works alone: routing between the rail subnets (policy routing, "
       "arp_ignore/arp_announce on shared subnets) or the spine does not carry the RoCE priority losslessly"},
      {"rail.*.affinity", "the GPU and its rail NIC are far apart in the PCIe tree: a card in the wrong slot or riser; "
                          "compare the slot population with the vendor's layout"},
      {"rail.*.pcie_link", "the NIC's PCIe link downtrained: reseat the NIC or its riser, check the slot and the BIOS "
                           "PCIe generation setting"},
      {"rail.*.link", "no carrier: reseat or swap the cable and transceiver, and check that the switch port is enabled "
                     "(not admin-down or err-disabled)"},
      {"rail.*.speed", "the link negotiated below the rail speed: a lower-grade cable or transceiver, a switch port "
                       "configured slower, or an autonegotiation/FEC mismatch",
       [](const CheckResult& c) -> std::string {
         return c.observed == "unknown" ? "no speed without a link: see rail.N.link" : "";
       }},
      {"rail.*.mtu", "the interface MTU is not the planned jumbo MTU: something reset it (NetworkManager, netplan, "
                     "cloud-init); the switch port must carry the same MTU"},
      {"rail.*.vlan", "the rail's VLAN device is missing or has another id: 8021q not loaded, or another network "
                      "manager owns the interface; the switch port must trunk the VLAN"},
      {"rail.*.address", "the rail address is missing: DHCP, netplan or NetworkManager manages the rail and removed "
                         "it, or the address is a duplicate on the rail"},
      {"rail.*.no_default_route", "a default route over a rail: DHCP is running on the rail interface; rails must "
                                  "never carry the default route (disable DHCP/netplan on rails)"},
      {"rail.*.pfc", "the NIC's DCBX is in firmware (willing) mode, or lldpad rewrote PFC: set the NIC to host-controlled "
                     "DCBX (mlxconfig LLDP_NB_DCBX_P1=0) or stop lldpad, or make the switch port advertise PFC on the "
                     "RoCE priority"},
      {"rail.*.dscp_map", "the DSCP application entry is missing: firmware DCBX or lldpad replaced the NIC's app "
                          "table; use host-controlled DCBX"},
      {"rail.*.trust", "the NIC does not trust DSCP: the driver lacks qos/trust (upstream mlx5: the DSCP app entry "
                       "implies it) or a tool (mlnx_qos) reset it"},
      {"rail.*.ecn", "ECN is not enabled on the RoCE priority: the driver has no ECN controls (upstream mlx5) or they "
                     "were reset; DOCA-OFED has them"},
      {"rail.*.roce_tos", "the RDMA-CM ToS is not set: configfs is not mounted at /sys/kernel/config or rdma_cm is "
                          "not loaded"},
      {"rail.*.storm_prevention", "PFC storm prevention is not set: the NIC firmware is too old for the "
                                  "pfc-prevention-tout tunable; update the firmware"},
      {"rail.*.rdma_port", "the RDMA port is not ACTIVE: the link under it is down, mlx5_ib did not bind, or (Soft-RoCE) "
                           "no rxe device was created on the interface",
       [](const CheckResult& c) -> std::string {
         if (contains(c.observed, "no RDMA device"))
           return "no RDMA device serves this rail: the RDMA driver (mlx5_ib, rxe) is not loaded, or the NIC's "
                  "firmware has RoCE disabled";
         return "";
       }},
      {"rail.*.roce_v2_gid", "no RoCE v2 GID for the rail address: the address is not on the rail's VLAN device "
                             "(the GID table mirrors the addresses of the interface), or the VLAN is missing; check "
                             "rail.N.address and rail.N.vlan"},
      {"rail.*.rdma_write", "the RDMA WRITE self-test failed or was slow: PFC/ECN differ between the NIC and the switch, "
                            "an MTU mismatch, or the port pauses; see this rail's pfc, mtu and pause_storm checks",
       [](const CheckResult& c) -> std::string {
         if (contains(c.observed, "no RoCE v2 GID")) return "follows from rail.N.roce_v2_gid: no GID to address the test to";
         if (contains(c.observed, "no RDMA device")) return "follows from rail.N.rdma_port: no RDMA device on this rail";
         return "";
       }},
      {"rail.*.pause_storm", "a pause storm on the RoCE priority",
       [](const CheckResult& c) -> std::string {
         if (contains(c.detail, "sending"))
           return "this NIC sends pause frames continuously: a stuck receive queue (hung host, driver fault); storm "
                  "prevention should cut it, or the port freezes the switch";
         if (contains(c.detail, "pauses this NIC"))
           return "the switch pauses this NIC continuously: congestion or a storm elsewhere in the fabric; look for the "
                  "port that is sending pauses";
         return "";
       }},
      {"nvmeof.*.connected", "NVMe-oF is not live: the target is unreachable on the rail, its ACL lacks this host's NQN "
                             "(allowed_hosts), the subsystem NQN is wrong, or nvme-rdma is not loaded"},
      {"nvmeof.*.namespace_read", "the controller is live but no namespace is readable: the namespace is not enabled on "
                                  "the target or not mapped to this host's NQN",
       [](const CheckResult& c) -> std::string {
         return contains(c.observed, "no controller") ? "follows from nvmeof.N.connected: no controller to read from" : "";
       }},
      {"gpudirect.peermem", "nvidia-peermem is not loaded: GPUDirect RDMA falls back to host memory; the module must be "
                            "built against the RDMA stack in the image (OFED vs inbox)"},
      {"gpudirect.acs.*", "ACS still redirects peer-to-peer traffic at this PCIe port: the BIOS re-enables ACS at boot, "
                          "or the write did not stick; disable ACS in the BIOS"},
  };
  return table;
}

}  // namespace

std::string check_kind(std::string_view name) {
  // PCI addresses first: they contain the '.' that separates the parts of a name.
  std::string s;
  for (std::size_t i = 0; i < name.size();) {
    if (std::size_t n = pci_at(name, i)) {
      s += '*';
      i += n;
    } else s += name[i++];
  }
  // Apply's objects: "rail 3 (ens3f0np0): MTU".
  std::string t;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i + 5;
    if (s.compare(i, 5, "rail ") != 0 || j >= s.size() || !std::isdigit(static_cast<unsigned char>(s[j]))) {
      t += s[i++];
      continue;
    }
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (s.compare(j, 2, " (") == 0)
      if (std::size_t close = s.find(')', j); close != std::string::npos) j = close + 1;
    t += "rail *";
    i = j;
  }
  s = std::move(t);
  std::string out;
  std::size_t start = 0;
  for (;;) {
    std::size_t dot = s.find('.', start);
    std::string part = s.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    out += digits ? "*" : part;
    if (dot == std::string::npos) break;
    out += '.';
    start = dot + 1;
  }
  return out;
}

std::string hint_for(const CheckResult& c) {
  std::string kind = check_kind(c.name);
  if (kind.rfind("apply.", 0) == 0)
    return "the kernel refused the change (see the detail): the driver lacks the knob, or another network manager "
           "holds the interface";
  if ((kind == "gpu.*.pcie_link" || kind == "rail.*.pcie_link") && contains(c.detail, "downtrained"))
    return "the link trained below what the device can do: reseat the card and its riser, then check the slot "
           "(a damaged or dusty connector downtrains)";
  for (const auto& h : hints())
    if (h.kind == kind) {
      if (h.refine)
        if (std::string r = h.refine(c); !r.empty()) return r;
      return std::string(h.text);
    }
  return "";
}

std::string hint_for(const CheckResult& c, const std::vector<CheckResult>& all) {
  // "rail.3.rdma_port" → "rail.3."; the rail's link check is "rail.3.link".
  auto rail_of = [](const std::string& name) -> std::string {
    if (name.rfind("rail.", 0) != 0) return "";
    std::size_t dot = name.find('.', 5);
    return dot == std::string::npos ? "" : name.substr(0, dot + 1);
  };
  std::vector<std::string> down;
  for (const auto& other : all)
    if (other.status == CheckStatus::fail && !rail_of(other.name).empty() && other.name == rail_of(other.name) + "link")
      down.push_back(other.name);
  std::string rail = rail_of(c.name);
  bool own_link = c.name == rail + "link" || c.name == rail + "pcie_link" || c.name == rail + "affinity";
  if (!rail.empty() && !own_link && std::find(down.begin(), down.end(), rail + "link") != down.end())
    return "follows from " + rail + "link: the link is down";
  if (c.name == "rails.cross_rdma_write" && !down.empty()) return "follows from " + down.front() + ": a rail's link is down";
  return hint_for(c);
}

std::string hint_for_problem(const std::string& problem) {
  if (contains(problem, "hardware.rails names"))
    return "the recipe names rail interfaces this node does not have as named: a different slot population or "
           "interface naming on this node, or the wrong SKU's image";
  if (contains(problem, " rails; ") || contains(problem, "no RDMA NIC"))
    return "RDMA NICs are missing: a NIC not seated, its driver or firmware did not come up (dmesg: mlx5_core), RoCE "
           "disabled in the NIC firmware, or the wrong SKU's image";
  if (contains(problem, "could not be pinned"))
    return "a GPU has no rail NIC near enough: compare the slot population with the vendor's layout";
  return "the plan could not be made for this node, so nothing was applied: see the problem";
}

}  // namespace railyard
