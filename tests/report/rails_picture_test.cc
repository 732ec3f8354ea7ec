// A node's rails as a picture (rails_picture.cc): the model built from the report's
// inventory and plan, and the SVG's structure (one group per rail and NUMA node, each GPU
// joined to its NIC, link states as colours), on the golden reports.
#include <doctest/doctest.h>

#include <string>

#include "builder/temp_dir.h"
#include "report/report_reader.h"
#include "report/rails_picture.h"

using namespace railyard;

namespace {

Report load(const std::string& name) {
  auto r = parse_report(test::read_all(std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/" + name + ".json"));
  REQUIRE(r.ok());
  return r->report;
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("report rails_picture: 8 GPUs pinned one to one to 8 rail NICs over two NUMA nodes") {
  RailsPicture p = rails_picture(load("hgx-pass"));
  CHECK(p.has_inventory);
  CHECK(p.gpus.size() == 8);
  CHECK(p.rails.size() == 8);
  CHECK(p.numa.size() == 2);
  for (const auto& r : p.rails) {
    CAPTURE(r.index);
    CHECK(r.gpu_pcis.size() == 1);
    CHECK(r.affinity == "PIX");
  }
  int rail_nics = 0;
  for (const auto& n : p.nics) {
    if (n.rail < 0) continue;
    ++rail_nics;
    CHECK(n.state() == "ok");
    CHECK(n.port_state == "ACTIVE");
    CHECK(n.speed_mbps == 400000);
  }
  CHECK(rail_nics == 8);

  std::string svg = rails_svg(p);
  CHECK(svg.rfind("<svg class=\"rails\" xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.substr(svg.size() - 6) == "</svg>");
  CHECK(count(svg, "<g class=\"rail\"") == 8);
  CHECK(count(svg, "<g class=\"numa\"") == 2);
  CHECK(count(svg, "<rect class=\"gpu state-ok\"") == 8);  // each GPU's pcie_link passed
  CHECK(count(svg, "<line class=\"pin\" data-affinity=\"PIX\"") == 8);
  CHECK(count(svg, "class=\"nic rail-nic state-ok\"") == 8);
  CHECK(svg.find("management") != std::string::npos);  // eno1 is drawn, not as a rail
}

TEST_CASE("report rails_picture: a GPU is coloured by its own checks, the failing ones in its title") {
  Report r = load("hgx-pass");
  for (auto& c : r.checks)
    if (c.name() == "gpu.3.pcie_link") {
      c.status = CheckStatus::fail;
      c.observed = "16.0 GT/s PCIe x8";
    }
  CheckResult ecc;
  ecc.id = CheckId::gpu(CheckKind::gpu_ecc, 5);
  ecc.status = CheckStatus::warn;
  ecc.observed = "on, 2 volatile uncorrectable errors";
  r.checks.push_back(ecc);
  RailsPicture p = rails_picture(r);
  const std::string gpu3 = r.plan["gpus"][3].get<std::string>(), gpu5 = r.plan["gpus"][5].get<std::string>();
  for (const auto& g : p.gpus) {
    CAPTURE(g.pci);
    if (g.pci == gpu3) {
      CHECK(g.state() == "bad");
      CHECK(g.failing == std::vector<std::string>{"gpu.3.pcie_link: 16.0 GT/s PCIe x8"});
    } else if (g.pci == gpu5) {
      CHECK(g.state() == "warn");
      CHECK(g.findings == std::vector<std::string>{"warn gpu.5.ecc: on, 2 volatile uncorrectable errors"});
    } else {
      CHECK(g.state() == "ok");
    }
  }
  std::string svg = rails_svg(p);
  CHECK(count(svg, "<rect class=\"gpu state-bad\"") == 1);
  CHECK(count(svg, "<rect class=\"gpu state-warn\"") == 1);
  CHECK(svg.find("failing: gpu.3.pcie_link: 16.0 GT/s PCIe x8") != std::string::npos);
}

TEST_CASE("report rails_picture: a rail is coloured by its worst: link down or any failing check is red") {
  Report r = load("hgx-pfc-link");
  RailsPicture p = rails_picture(r);
  int bad = 0;
  for (const auto& n : p.nics)
    if (n.rail >= 0 && n.state() == "bad") {
      ++bad;
      CAPTURE(n.ifname);
      if (n.operstate == "down") {
        CHECK(n.port_state == "DOWN");
        CHECK(n.failing.size() == 5);  // link, speed, rdma_port, rdma_write, gpudirect_write
      } else {
        // Link up and the port ACTIVE, but PFC is not what was applied: red too, not green.
        CHECK(n.port_state == "ACTIVE");
        REQUIRE(n.failing.size() == 1);
        CHECK(n.failing[0].rfind("rail.5.pfc: ", 0) == 0);
      }
    }
  CHECK(bad == 2);
  std::string svg = rails_svg(p);
  CHECK(count(svg, "state-bad") == 3);  // the two rails, and the GPU whose GPUDirect write the link took down
  CHECK(svg.find("failing: rail.") != std::string::npos);
  CHECK(svg.find("5 failing") != std::string::npos);
  CHECK(svg.find("1 failing") != std::string::npos);
}

TEST_CASE("report rails_picture: a rail whose checks are unsupported or skipped is amber, not green") {
  Report r = load("hgx-pass");
  for (auto& c : r.checks)
    if (c.name() == "rail.2.pfc" || c.name() == "rail.2.ecn") {
      c.status = CheckStatus::unsupported;
      c.required = false;
      c.observed = "no dcbnl";
    }
  RailsPicture p = rails_picture(r);
  for (const auto& n : p.nics) {
    if (n.rail < 0) continue;
    CAPTURE(n.rail);
    CHECK(n.state() == (n.rail == 2 ? "warn" : "ok"));
    if (n.rail == 2) CHECK(n.unverified.size() == 2);
  }
  std::string svg = rails_svg(p);
  CHECK(count(svg, "state-warn") == 1);
  CHECK(svg.find("unverified: rail.2.pfc unsupported: no dcbnl") != std::string::npos);
  CHECK(svg.find("2 unverified") != std::string::npos);
}

TEST_CASE("report rails_picture: two GPUs per NIC, SYS pairs across NUMA nodes, no GPUs") {
  RailsPicture g8 = rails_picture(load("gpu8-nic4-no-gid"));
  CHECK(g8.rails.size() == 4);
  CHECK(g8.gpus.size() == 8);
  for (const auto& r : g8.rails) CHECK(r.gpu_pcis.size() == 2);
  CHECK(count(rails_svg(g8), "<line class=\"pin\"") == 8);

  std::string sys = rails_svg(rails_picture(load("gpu-nic-sys-default-route")));
  CHECK(count(sys, "data-affinity=\"SYS\"") == 2);
  CHECK(sys.find("stroke=\"#c62828\" stroke-width=\"2.5\"") != std::string::npos);  // SYS is drawn red
  CHECK(sys.find("NUMA 0") != std::string::npos);  // the GPU's own NUMA node, shown on its box

  RailsPicture lab = rails_picture(load("lab-soft-roce"));
  CHECK(lab.gpus.empty());
  CHECK(lab.rails.size() == 4);
  std::string svg = rails_svg(lab);
  CHECK(count(svg, "no GPU on this rail") == 4);
  CHECK(svg.find("NUMA node unknown") != std::string::npos);  // the virtio management NIC has none
}

TEST_CASE("report rails_picture: without an inventory the plan's rails are still drawn; with neither, a note") {
  Report r = load("hgx-pass");
  r.inventory = nullptr;
  RailsPicture p = rails_picture(r);
  CHECK_FALSE(p.has_inventory);
  CHECK(p.rails.size() == 8);
  std::string svg = rails_svg(p);
  CHECK(count(svg, "<g class=\"rail\"") == 8);
  CHECK(count(svg, "state-unknown") == 8);

  r.plan = nullptr;
  CHECK(rails_svg(rails_picture(r)).find("this report has no inventory and no rails") != std::string::npos);
}

TEST_CASE("report html_escape: markup characters") {
  CHECK(html_escape("<a href=\"x\">&'</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

TEST_CASE("report rails_picture: udev's names for GPUs and NICs, where the report has them") {
  Report r = load("hgx-pass");
  for (auto& g : r.inventory["gpus"]) g["model"] = nullptr;  // a report without names
  for (auto& n : r.inventory["nics"]) n["model"] = nullptr;
  CHECK(rails_svg(rails_picture(r)).find("GH100") == std::string::npos);
  r.inventory["gpus"][0]["model"] = "GH100 [H100 SXM5 80GB]";
  for (auto& n : r.inventory["nics"]) n["model"] = "MT2910 Family [ConnectX-7]";
  RailsPicture p = rails_picture(r);
  CHECK(p.gpus[0].model == "GH100 [H100 SXM5 80GB]");
  CHECK(p.gpus[1].model.empty());
  std::string svg = rails_svg(p);
  CHECK(svg.find(p.gpus[0].pci + "  GH100 [H100 SXM5 80GB]</text>") != std::string::npos);
  CHECK(svg.find(p.gpus[1].pci + "  " + p.gpus[1].device + "</text>") != std::string::npos);
  CHECK(count(svg, "<title>MT2910 Family [ConnectX-7]") == 8);
}

TEST_CASE("report rails_picture: a rail that heard a second neighbour or a flood says so at its leaf") {
  Report r = load("lab-soft-roce");
  REQUIRE(r.lldp.is_array());
  r.lldp[0]["other_neighbors"] = nlohmann::ordered_json::parse(R"([{"system_name": "rogue", "port_id": "eth0"}])");
  r.lldp[0]["flood_per_s"] = 4987;
  RailsPicture p = rails_picture(r);
  REQUIRE_FALSE(p.rails.empty());
  CHECK(p.rails[0].leaf_trouble == "also heard rogue port eth0; flooded, 4987 frames/s");
  if (p.rails.size() > 1) CHECK(p.rails[1].leaf_trouble.empty());
  std::string svg = rails_svg(p);
  CHECK(svg.find("swp4; also heard rogue port eth0; flooded, 4987 frames/s") != std::string::npos);
}

TEST_CASE("report rails_picture: each rail's peer probe at its leaf, red when a peer check fails") {
  Report r = load("lab-soft-roce");
  REQUIRE(r.lldp.is_array());
  r.peers = nlohmann::ordered_json::parse(R"([
    {"rail": 0, "reference": "198.18.0.100:18515", "completed": true, "gbps": 0.0612, "latency_us": 4058.4},
    {"rail": 1, "reference": "198.18.1.100:18515", "completed": false}])");
  CheckResult failing;
  failing.id = CheckId::parse("rail.1.peer_write");
  failing.status = CheckStatus::fail;
  r.checks.push_back(failing);
  RailsPicture p = rails_picture(r);
  REQUIRE(p.rails.size() >= 2);
  CHECK(p.rails[0].peer_figure == "61.2 Mb/s");
  CHECK(p.rails[0].peer_detail == "to 198.18.0.100:18515: 61.2 Mb/s, 4058.4 µs");
  CHECK_FALSE(p.rails[0].peer_bad);
  CHECK(p.rails[1].peer_figure == "no peer");
  CHECK(p.rails[1].peer_bad);
  std::string svg = rails_svg(p);
  CHECK(svg.find("peer probe to 198.18.0.100:18515: 61.2 Mb/s, 4058.4 µs") != std::string::npos);
  CHECK(svg.find(">no peer</text>") != std::string::npos);
}
