// A node's rails as a picture: each GPU joined to its rail NIC (with the pair's affinity
// class), grouped by the NUMA node of the NIC, each NIC coloured by the worst of its link,
// its RDMA port and the rail's checks. Built from the report's inventory and its plan's rails, drawn as inline SVG.
#pragma once

#include <string>
#include <vector>

#include "report.h"

namespace railyard {

struct PictureGpu {
  int ordinal = 0;  // position in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID)
  std::string pci;
  std::string device;  // PCI device id
  int numa = -1;       // -1: unknown
  std::string model;   // udev's hardware database name, "" when the report has none
  // Its gpu.N checks (NVML's health, the PCIe link): those failing, and those that warn or
  // could not be verified; `checked` when it has any.
  bool checked = false;
  std::vector<std::string> failing, findings;
  // bad: a check failing; warn: one warned or unverified; ok: all passed; "" unchecked.
  std::string state() const;
};

struct PictureNic {
  std::string ifname;
  std::string pci;
  std::string model;  // udev's hardware database name, "" when the report has none
  std::string rdma_device;
  int numa = -1;
  std::string operstate;  // "up", "down", "" unknown
  int speed_mbps = -1;
  std::string port_state;  // RDMA port state ("ACTIVE"), "" when none
  bool management = false;
  int rail = -1;                        // rail index, -1 when not a rail
  std::vector<std::string> failing;     // the rail's failing checks
  std::vector<std::string> unverified;  // its checks that are unsupported or skipped, not failing
  // By the rail's worst: bad, link down or a check failing; warn, the RDMA port not ACTIVE
  // or a check unverified; ok, link up and every check verified; unknown, no link state.
  std::string state() const;
};

struct PictureRail {
  int index = 0;
  std::string ifname;
  std::vector<std::string> gpu_pcis;
  std::string affinity;  // PIX PXB PHB NODE SYS, "" without GPUs
  // The far end over LLDP (the report's lldp): "leaf-r0" and "port swp1", or "nothing heard";
  // none when nothing listened. Its state is the worst of the rail's lldp checks.
  bool listened = false;
  std::string leaf, leaf_port;
  std::string leaf_state;  // ok, warn, bad
  // What a rail should never hear, "" when it heard neither: other neighbours (a hub, a
  // loop, a spoofer) and a flood, as "also heard rogue port eth0; flooded, 4987 frames/s".
  std::string leaf_trouble;
  // Across the leaf to the rail's reference (the report's peers): "0.06 Gb/s" and the whole
  // figure for the tooltip, "" when the rail probed none; bad when a peer check fails.
  std::string peer_figure, peer_detail;
  bool peer_bad = false;
};

struct RailsPicture {
  std::vector<PictureGpu> gpus;
  std::vector<PictureNic> nics;
  std::vector<PictureRail> rails;
  std::vector<std::pair<int, std::string>> numa;  // id, cpulist
  bool has_inventory = false;
};

RailsPicture rails_picture(const Report& r);
// One <svg> element, self-contained (styles inline), sized to its content.
std::string rails_svg(const RailsPicture& p);

std::string html_escape(const std::string& s);

}  // namespace railyard
