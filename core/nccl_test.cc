// The NCCL profile: nccl.conf, the topology XML and per-GPU env files (nccl.cc).
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "nccl.h"
#include "text.h"
#include "support/hardware_builder.h"

using namespace railyard;
using namespace railyard::test;

namespace {

// Renames the RDMA device of `ifname`; with `gid_index`, its GID index (nullopt: no IPv4 GID).
void rdma(Inventory& inv, const std::string& ifname, const std::string& name, std::optional<int> gid_index = 3) {
  for (auto& n : inv.nics)
    if (n.ifname == ifname) {
      for (auto& d : inv.rdma)
        if (d.name == *n.rdma_device) {
          d.name = name;
          d.ports[0].gids.clear();
          if (gid_index) d.ports[0].gids.push_back(gid(*gid_index, ifname));
        }
      n.rdma_device = name;
    }
  normalize(inv);
}

// Two GPUs, each beside a rail NIC: rail 0 is ens0f0 (mlx5_3), rail 1 ens1f0 (mlx5_1).
Inventory two_rails(std::optional<int> gid0 = 3, std::optional<int> gid1 = 3) {
  Inventory inv = managed_server({{1, 1}, {1, 1}});
  rdma(inv, "ens0f0", "mlx5_3", gid0);
  rdma(inv, "ens1f0", "mlx5_1", gid1);
  return inv;
}

std::string conf(const Inventory& inv, const Recipe& r) { return nccl_conf(r, make_plan(inv, r, node())); }

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// "" when every element is closed in order and nothing follows the root; else what is wrong.
std::string xml_nesting(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t roots = 0;
  for (auto at = xml.find('<'); at != std::string::npos; at = xml.find('<', at + 1)) {
    auto end = xml.find('>', at);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(at);
    std::string tag = xml.substr(at + 1, end - at - 1);
    if (open.empty()) ++roots;
    if (tag.front() == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "</" + tag.substr(1) + "> closes nothing open";
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find(' ')));
    }
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// nccl.conf

TEST_CASE("nccl.conf of a two-rail node") {
  Recipe r = recipe("hgx");
  r.nccl.extra = {{"NCCL_IB_SPLIT_DATA_ON_QPS", "0"}, {"NCCL_IB_QPS_PER_CONNECTION", "4"}};
  CHECK(conf(two_rails(), r) ==
        "# Written by railyard-firstboot for gpu-a01 (recipe hgx); do not edit.\n"
        "# The rail RDMA devices; a leading equals sign makes NCCL match their names exactly.\n"
        "NCCL_IB_DISABLE=0\n"
        "NCCL_IB_HCA==mlx5_3:1,mlx5_1:1\n"
        "NCCL_IB_GID_INDEX=3\n"
        "NCCL_IB_TC=106\n"
        "NCCL_SOCKET_IFNAME==eno1\n"
        "NCCL_CROSS_NIC=0\n"
        "NCCL_NET_GDR_LEVEL=PXB\n"
        "NCCL_TOPO_FILE=/etc/nccl/topo.xml\n"
        "NCCL_IB_QPS_PER_CONNECTION=4\n"
        "NCCL_IB_SPLIT_DATA_ON_QPS=0\n");
}

TEST_CASE("nccl.conf: no comment holds '=', which NCCL before 2.26 reads as a variable") {
  for (const auto& line : split(conf(two_rails(), recipe("hgx")), '\n')) {
    CAPTURE(line);
    if (!line.empty() && line[0] == '#') CHECK(line.find('=') == std::string::npos);
  }
}

TEST_CASE("nccl.conf: NCCL_IB_GID_INDEX only when every rail has the same known index") {
  std::string same = conf(two_rails(3, 3), recipe("hgx"));
  CHECK(has_line(same, "NCCL_IB_GID_INDEX=3"));
  CHECK(!has_line(same, "NCCL_IB_ADDR_FAMILY=AF_INET"));
  CHECK(!has_line(same, "NCCL_IB_ROCE_VERSION_NUM=2"));

  for (std::string text : {conf(two_rails(3, 5), recipe("hgx")), conf(two_rails(3, std::nullopt), recipe("hgx")),
                           conf(two_rails(std::nullopt, std::nullopt), recipe("hgx"))}) {
    CAPTURE(text);
    CHECK(text.find("NCCL_IB_GID_INDEX") == std::string::npos);
    CHECK(has_line(text, "NCCL_IB_ADDR_FAMILY=AF_INET"));
    CHECK(has_line(text, "NCCL_IB_ROCE_VERSION_NUM=2"));
  }
}

TEST_CASE("nccl.conf: NCCL_IB_TC is the RoCE ToS byte") {
  Recipe r = recipe("hgx");
  CHECK(has_line(conf(two_rails(), r), "NCCL_IB_TC=106"));
  r.fabric.ecn = Requirement::off;
  CHECK(has_line(conf(two_rails(), r), "NCCL_IB_TC=104"));
}

TEST_CASE("nccl.conf: NCCL_SOCKET_IFNAME only with a management interface") {
  Inventory inv = two_rails();
  CHECK(has_line(conf(inv, recipe("hgx")), "NCCL_SOCKET_IFNAME==eno1"));
  inv.nics[0].management = false;
  CHECK(conf(inv, recipe("hgx")).find("NCCL_SOCKET_IFNAME") == std::string::npos);
}

TEST_CASE("nccl.conf: NCCL_CROSS_NIC, NCCL_NET_GDR_LEVEL and NCCL_TOPO_FILE from the recipe") {
  Recipe r = recipe("hgx");
  r.nccl.cross_nic = 1;
  r.nccl.gdr_level = GdrLevel::SYS;
  r.nccl.topo_file = "/run/nccl/topo.xml";
  std::string text = conf(two_rails(), r);
  CHECK(has_line(text, "NCCL_CROSS_NIC=1"));
  CHECK(has_line(text, "NCCL_NET_GDR_LEVEL=SYS"));
  CHECK(has_line(text, "NCCL_TOPO_FILE=/run/nccl/topo.xml"));
}

TEST_CASE("nccl.conf: NCCL_IB_SL only when set") {
  Recipe r = recipe("hgx");
  CHECK(conf(two_rails(), r).find("NCCL_IB_SL") == std::string::npos);
  r.nccl.ib_sl = 3;
  CHECK(has_line(conf(two_rails(), r), "NCCL_IB_SL=3"));
  r.nccl.ib_sl = 0;
  CHECK(has_line(conf(two_rails(), r), "NCCL_IB_SL=0"));
}

TEST_CASE("nccl.conf: the extra settings sorted by name, after the derived ones") {
  Recipe r = recipe("hgx");
  r.nccl.extra["NCCL_MIN_NCHANNELS"] = "16";
  r.nccl.extra["NCCL_ALGO"] = "Ring";
  std::string text = conf(two_rails(), r);
  auto algo = text.find("NCCL_ALGO=Ring\n"), min = text.find("NCCL_MIN_NCHANNELS=16\n"),
       topo = text.find("NCCL_TOPO_FILE=");
  CHECK(topo < algo);
  CHECK(algo < min);
}

TEST_CASE("nccl.conf: rails without GPUs, Soft-RoCE devices in rail order") {
  Recipe r = recipe("hgx");
  r.fabric.soft_roce = true;
  Inventory inv = managed_server({{0, 1}, {0, 1}});
  for (auto& n : inv.nics) n.rdma_device.reset();
  inv.rdma.clear();
  std::string text = conf(inv, r);
  CHECK(has_line(text, "NCCL_IB_HCA==rxe0:1,rxe1:1"));
  CHECK(has_line(text, "NCCL_IB_ADDR_FAMILY=AF_INET"));
}

// ---------------------------------------------------------------------------------------------
// topology XML

TEST_CASE("topology XML of one switch with a GPU and its NIC") {
  Inventory inv = managed_server({{1, 1}});
  Plan p = make_plan(inv, recipe("hgx"), node());
  CHECK(nccl_topology_xml(inv, p) ==
        "<system version=\"1\">\n"
        "  <cpu numaid=\"0\" affinity=\"00000000,0000ffff\">\n"
        "    <pci busid=\"0000:00:01.0\" class=\"0x060400\" vendor=\"0x8086\" device=\"0x347a\">\n"
        "      <pci busid=\"0000:10:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\">\n"
        "        <pci busid=\"0000:11:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\">\n"
        "          <pci busid=\"0000:12:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" "
        "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>\n"
        "        </pci>\n"
        "        <pci busid=\"0000:11:01.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\">\n"
        "          <pci busid=\"0000:13:00.0\" class=\"0x020000\" vendor=\"0x15b3\" device=\"0x1021\"/>\n"
        "        </pci>\n"
        "      </pci>\n"
        "    </pci>\n"
        "  </cpu>\n"
        "</system>\n");
}

TEST_CASE("topology XML: well-formed, one cpu per NUMA node, GPUs and rail NICs only") {
  // NUMA 0: two switches with two GPUs and a NIC, the second with a spare (non-rail) NIC;
  // NUMA 1: two switches likewise. The management port is no rail either.
  Inventory inv = managed_server({{2, 1}, {2, 2}, {2, 1, 1}, {2, 1, 1}});
  Plan p = make_plan(inv, recipe("hgx"), node());
  REQUIRE(p.rails.size() == 4);
  REQUIRE(p.non_rail_nics == std::vector<std::string>{"ens1f1"});
  std::string xml = nccl_topology_xml(inv, p);
  CAPTURE(xml);

  CHECK(xml_nesting(xml) == "");
  CHECK(count(xml, "<pci ") == count(xml, "</pci>") + count(xml, "/>"));
  CHECK(count(xml, "<cpu ") == 2);
  CHECK(count(xml, "<cpu numaid=\"0\" affinity=\"00000000,0000ffff\">") == 1);
  CHECK(count(xml, "<cpu numaid=\"1\" affinity=\"00000000,ffff0000\">") == 1);

  for (const auto& g : inv.gpus) {
    CAPTURE(g.pci.bdf);
    CHECK(count(xml, "<pci busid=\"" + g.pci.bdf + "\" class=\"0x030200\"") == 1);
  }
  for (const auto& r : p.rails) {
    CAPTURE(r.nic_pci);
    CHECK(count(xml, "<pci busid=\"" + r.nic_pci + "\" class=\"0x020000\" vendor=\"0x15b3\" device=\"0x1021\"/>") == 1);
  }
  CHECK(xml.find(inv.nic("ens1f1")->pci.bdf) == std::string::npos);
  CHECK(xml.find(inv.nic("eno1")->pci.bdf) == std::string::npos);
  // NUMA 1's devices sit in NUMA 1's cpu element.
  CHECK(xml.find("0000:80:03.0") > xml.find("<cpu numaid=\"1\""));
  CHECK(xml.find("0000:00:02.0") < xml.find("<cpu numaid=\"1\""));
}

TEST_CASE("topology XML: devices without a NUMA node (-1) go under numaid 0") {
  Inventory inv = managed_server({{1, 1}});
  for (auto& g : inv.gpus) g.pci.numa_node = -1;
  for (auto& n : inv.nics) n.pci.numa_node = -1;
  inv.numa.clear();  // a VM: no NUMA information at all
  std::string xml = nccl_topology_xml(inv, make_plan(inv, recipe("hgx"), node()));
  CHECK(count(xml, "<cpu ") == 1);
  CHECK(count(xml, "<cpu numaid=\"0\">") == 1);
  CHECK(xml_nesting(xml) == "");
}

TEST_CASE("topology XML: NUMA node 0 and unknown (-1) share one cpu element") {
  // Devices without NUMA information (-1) belong with node 0: one <cpu numaid="0">.
  Inventory inv = managed_server({{1, 1}, {1, 1}});
  inv.gpus[1].pci.numa_node = -1;
  inv.nics[2].pci.numa_node = -1;  // ens1f0, beside it
  std::string xml = nccl_topology_xml(inv, make_plan(inv, recipe("hgx"), node()));
  CHECK(count(xml, "<cpu numaid=\"0\"") == 1);
}

TEST_CASE("topology XML: attribute values are escaped") {
  Inventory inv = managed_server({{1, 1}});
  inv.gpus[0].pci.max_link_speed = "<odd> & \"quoted\"";
  std::string xml = nccl_topology_xml(inv, make_plan(inv, recipe("hgx"), node()));
  CHECK(xml.find("link_speed=\"&lt;odd&gt; &amp; &quot;quoted&quot;\"") != std::string::npos);
  CHECK(xml_nesting(xml) == "");
}

TEST_CASE("topology XML: the link as it can run (max_link_*), not as it idles at boot") {
  // A GPU whose link idles at 8.0 GT/s x8 at boot: NCCL takes the file's value over its
  // own, so the file must say what the link can do, as NCCL itself reads it.
  Inventory inv = managed_server({{1, 1}});
  inv.gpus[0].pci.current_link_speed = "8.0 GT/s PCIe";
  inv.gpus[0].pci.current_link_width = 8;
  inv.gpus[0].pci.max_link_speed = "16.0 GT/s PCIe";
  inv.gpus[0].pci.max_link_width = 16;
  std::string xml = nccl_topology_xml(inv, make_plan(inv, recipe("hgx"), node()));
  CHECK(xml.find("device=\"0x2330\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\"/>") != std::string::npos);
  CHECK(xml.find("8.0 GT/s") == std::string::npos);
  // Without a maximum (an older kernel), the current value.
  inv.gpus[0].pci.max_link_speed.clear();
  inv.gpus[0].pci.max_link_width = 0;
  xml = nccl_topology_xml(inv, make_plan(inv, recipe("hgx"), node()));
  CHECK(xml.find("link_speed=\"8.0 GT/s PCIe\" link_width=\"8\"") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// per-GPU env and files

TEST_CASE("per-GPU env: that GPU's rail only") {
  Inventory inv = two_rails();
  Plan p = make_plan(inv, recipe("hgx"), node());
  CHECK(nccl_gpu_env(inv, p, 0) ==
        "# Written by railyard-firstboot for gpu-a01 (recipe hgx); do not edit.\n"
        "# GPU 0 (0000:12:00.0) → rail 0 (ens0f0)\n"
        "NCCL_IB_HCA==mlx5_3:1\n"
        "NCCL_IB_GID_INDEX=3\n"
        "UCX_NET_DEVICES=mlx5_3:1\n");
  std::string env1 = nccl_gpu_env(inv, p, 1);
  CHECK(has_line(env1, "NCCL_IB_HCA==mlx5_1:1"));
  CHECK(has_line(env1, "UCX_NET_DEVICES=mlx5_1:1"));
}

TEST_CASE("per-GPU env: each pins its own rail's GID index, also where nccl.conf cannot pin one for all") {
  Inventory inv = two_rails(3, 5);
  Plan p = make_plan(inv, recipe("hgx"), node());
  CHECK_FALSE(pinned_gid_index(p));
  CHECK(conf(inv, recipe("hgx")).find("NCCL_IB_GID_INDEX") == std::string::npos);
  CHECK(has_line(nccl_gpu_env(inv, p, 0), "NCCL_IB_GID_INDEX=3"));
  CHECK(has_line(nccl_gpu_env(inv, p, 1), "NCCL_IB_GID_INDEX=5"));
  // Unknown (no address yet): nothing pinned.
  Inventory none = two_rails(std::nullopt, std::nullopt);
  Plan q = make_plan(none, recipe("hgx"), node());
  CHECK(nccl_gpu_env(none, q, 0).find("NCCL_IB_GID_INDEX") == std::string::npos);
}

TEST_CASE("per-GPU env: GPUs sharing a rail get the same device") {
  Inventory inv = managed_server({{2, 1}});
  Plan p = make_plan(inv, recipe("hgx"), node());
  CHECK(has_line(nccl_gpu_env(inv, p, 0), "NCCL_IB_HCA==mlx5_0:1"));
  CHECK(has_line(nccl_gpu_env(inv, p, 1), "NCCL_IB_HCA==mlx5_0:1"));
  CHECK(has_line(nccl_gpu_env(inv, p, 1), "# GPU 1 (0000:13:00.0) → rail 0 (ens0f0)"));
}

TEST_CASE("nccl_files: at the recipe's paths, one env file per GPU") {
  Inventory inv = two_rails();
  Recipe r = recipe("hgx");
  Plan p = make_plan(inv, r, node());
  REQUIRE(p.files.size() == 4);
  CHECK(p.files[0].path == "/etc/nccl.conf");
  CHECK(p.files[0].content == nccl_conf(r, p));
  CHECK(p.files[1].path == "/etc/nccl/topo.xml");
  CHECK(p.files[1].content == nccl_topology_xml(inv, p));
  CHECK(p.files[2].path == "/etc/railyard/nccl/gpu0.env");
  CHECK(p.files[2].content == nccl_gpu_env(inv, p, 0));
  CHECK(p.files[3].path == "/etc/railyard/nccl/gpu1.env");
  for (const auto& f : p.files) CHECK(f.mode == 0644);

  r.nccl.conf_path = "/opt/nccl/nccl.conf";
  r.nccl.topo_file = "/opt/nccl/topo.xml";
  r.nccl.env_dir = "/opt/nccl/env";
  auto files = nccl_files(inv, r, p);
  REQUIRE(files.size() == 4);
  CHECK(files[0].path == "/opt/nccl/nccl.conf");
  CHECK(files[1].path == "/opt/nccl/topo.xml");
  CHECK(files[2].path == "/opt/nccl/env/gpu0.env");
  CHECK(files[3].path == "/opt/nccl/env/gpu1.env");
  CHECK(has_line(files[0].content, "NCCL_TOPO_FILE=/opt/nccl/topo.xml"));
}

TEST_CASE("nccl_files: no gpuN.env without GPUs") {
  Inventory inv = managed_server({{0, 1}, {0, 1}});
  Plan p = make_plan(inv, recipe("hgx"), node());
  REQUIRE(p.files.size() == 2);
  CHECK(p.files[0].path == "/etc/nccl.conf");
  CHECK(p.files[1].path == "/etc/nccl/topo.xml");
  CHECK(has_line(p.files[0].content, "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1"));
}
