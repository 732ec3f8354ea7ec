#include "report/rails_picture.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "report/json_fields.h"
#include "text.h"

namespace railyard {

namespace {

using nlohmann::ordered_json;

using json_fields::array_at;
using json_fields::num;
using json_fields::str;

// Geometry (px).
constexpr int kWidth = 960;
constexpr int kGpuX = 24, kGpuW = 230;
constexpr int kNicX = 470, kNicW = 290;
constexpr int kLeafX = 800, kLeafW = 144;
constexpr int kRow = 40, kBox = 32;
constexpr int kBandHead = 24, kBandPad = 8;

struct Colours {
  const char* fill;
  const char* stroke;
};

Colours state_colours(const std::string& state) {
  if (state == "ok") return {"#dff0d8", "#2e7d32"};
  if (state == "warn") return {"#fff3cd", "#a06d00"};
  if (state == "bad") return {"#f8d7da", "#c62828"};
  return {"#eeeeee", "#888888"};
}

const char* affinity_colour(const std::string& a) {
  if (a == "PIX" || a == "PXB") return "#2e7d32";
  if (a == "PHB" || a == "NODE") return "#a06d00";
  if (a == "SYS") return "#c62828";
  return "#888888";
}

std::string speed_text(int mbps) {
  if (mbps <= 0) return "speed ?";
  return mbps % 1000 == 0 ? std::to_string(mbps / 1000) + " Gb/s" : std::to_string(mbps) + " Mb/s";
}

class Svg {
 public:
  void rect(int x, int y, int w, int h, const Colours& c, const std::string& cls, const std::string& title = "") {
    out_ << "<rect class=\"" << cls << "\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h
         << "\" rx=\"5\" fill=\"" << c.fill << "\" stroke=\"" << c.stroke << "\" stroke-width=\"1.5\">";
    if (!title.empty()) out_ << "<title>" << html_escape(title) << "</title>";
    out_ << "</rect>";
  }
  void text(int x, int y, const std::string& s, int size = 12, const char* anchor = "start",
            const char* colour = "#222", const char* weight = "normal") {
    out_ << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << size << "\" text-anchor=\"" << anchor
         << "\" fill=\"" << colour << "\" font-weight=\"" << weight << "\">" << html_escape(s) << "</text>";
  }
  void raw(const std::string& s) { out_ << s; }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

std::string PictureGpu::state() const {
  if (!checked) return "";
  if (!failing.empty()) return "bad";
  return findings.empty() ? "ok" : "warn";
}

std::string PictureNic::state() const {
  if (!failing.empty() || (!operstate.empty() && operstate != "up")) return "bad";
  if (operstate.empty()) return "unknown";
  if ((!rdma_device.empty() && port_state != "ACTIVE") || !unverified.empty()) return "warn";
  return "ok";
}

RailsPicture rails_picture(const Report& r) {
  RailsPicture p;
  const ordered_json& inv = r.inventory;
  p.has_inventory = inv.is_object();
  for (const auto& g : array_at(inv, "gpus"))
    p.gpus.push_back({static_cast<int>(p.gpus.size()),
                      str(g, "pci"),
                      str(g, "device"),
                      num(g, "numa_node"),
                      str(g, "model"),
                      false,
                      {},
                      {}});
  std::map<std::string, std::string> port_state;  // rdma device → state of its first port
  for (const auto& d : array_at(inv, "rdma_devices")) {
    const auto& ports = array_at(d, "ports");
    if (!ports.empty()) port_state[str(d, "name")] = str(ports[0], "state");
  }
  for (const auto& n : array_at(inv, "nics")) {
    PictureNic nic;
    nic.ifname = str(n, "ifname");
    nic.pci = str(n, "pci");
    nic.model = str(n, "model");
    nic.rdma_device = str(n, "rdma_device");
    nic.numa = num(n, "numa_node");
    nic.operstate = str(n, "operstate");
    nic.speed_mbps = num(n, "speed_mbps");
    nic.port_state = port_state.count(nic.rdma_device) ? port_state[nic.rdma_device] : "";
    nic.management = n.value("management", false);
    p.nics.push_back(std::move(nic));
  }
  for (const auto& n : array_at(inv, "numa_nodes")) p.numa.push_back({num(n, "id"), str(n, "cpulist")});

  for (const auto& rail : array_at(r.plan, "rails")) {
    PictureRail pr;
    pr.index = num(rail, "index", static_cast<int>(p.rails.size()));
    pr.ifname = str(rail, "ifname");
    for (const auto& g : array_at(rail, "gpu_pcis"))
      if (g.is_string()) pr.gpu_pcis.push_back(g.get<std::string>());
    pr.affinity = str(rail, "affinity");
    auto nic = std::find_if(p.nics.begin(), p.nics.end(), [&](const PictureNic& n) { return n.ifname == pr.ifname; });
    if (nic == p.nics.end()) {  // no inventory: what the plan says
      PictureNic n;
      n.ifname = pr.ifname;
      n.pci = str(rail, "nic_pci");
      n.rdma_device = str(rail, "rdma_device");
      p.nics.push_back(std::move(n));
      nic = p.nics.end() - 1;
    }
    nic->rail = pr.index;
    for (const auto& c : r.checks) {
      if (c.id.scope() != CheckScope::rail || c.id.index != pr.index) continue;
      if (c.failing()) nic->failing.push_back(c.name() + ": " + c.observed);
      else if (c.status == CheckStatus::unsupported || c.status == CheckStatus::skip)
        nic->unverified.push_back(c.name() + " " + to_string(c.status) + (c.observed.empty() ? "" : ": " + c.observed));
    }
    for (const auto& heard : r.lldp.is_array() ? r.lldp : ordered_json::array()) {
      if (!heard.is_object() || num(heard, "rail", -1) != pr.index) continue;
      pr.listened = true;
      const auto& n = heard.contains("neighbor") ? heard["neighbor"] : ordered_json();
      pr.leaf = n.is_object() ? str(n, "system_name") : "nothing heard";
      pr.leaf_port = n.is_object() ? "port " + str(n, "port_id") : "";
      std::vector<std::string> trouble;
      for (const auto& o : array_at(heard, "other_neighbors"))
        if (o.is_object()) trouble.push_back("also heard " + str(o, "system_name") + " port " + str(o, "port_id"));
      if (num(heard, "flood_per_s", 0) > 0)
        trouble.push_back("flooded, " + std::to_string(num(heard, "flood_per_s", 0)) + " frames/s");
      pr.leaf_trouble = join(trouble, "; ");
      CheckStatus worst = CheckStatus::pass;
      for (const auto& c : r.checks)
        if (c.id.scope() == CheckScope::rail && c.id.index == pr.index &&
            (c.id.kind == CheckKind::rail_lldp || c.id.kind == CheckKind::rail_lldp_pfc ||
             c.id.kind == CheckKind::rail_lldp_mtu || c.id.kind == CheckKind::rail_lldp_vlan) &&
            worst_rank(c.status) > worst_rank(worst))
          worst = c.status;
      pr.leaf_state = worst == CheckStatus::pass ? "ok" : worst == CheckStatus::fail ? "bad" : "warn";
    }
    for (const auto& peer : r.peers.is_array() ? r.peers : ordered_json::array()) {
      if (!peer.is_object() || num(peer, "rail", -1) != pr.index) continue;
      const std::string ref = str(peer, "reference");
      if (peer.contains("gbps") && peer["gbps"].is_number()) {
        char buf[64];
        pr.peer_figure = rate_text(peer["gbps"].get<double>());
        std::snprintf(buf, sizeof buf, ", %.1f µs", peer.value("latency_us", 0.0));
        pr.peer_detail = "to " + ref + ": " + pr.peer_figure + buf;
      } else {
        pr.peer_figure = "no peer";
        pr.peer_detail = "no exchange with " + ref;
      }
      for (const auto& c : r.checks)
        if (c.id.scope() == CheckScope::rail && c.id.index == pr.index && c.failing() &&
            (c.id.kind == CheckKind::rail_peer_write || c.id.kind == CheckKind::rail_peer_bandwidth ||
             c.id.kind == CheckKind::rail_peer_latency))
          pr.peer_bad = true;
    }
    for (const auto& pci : pr.gpu_pcis)
      if (std::none_of(p.gpus.begin(), p.gpus.end(), [&](const PictureGpu& g) { return g.pci == pci; }))
        p.gpus.push_back({static_cast<int>(p.gpus.size()), pci, "", -1, "", false, {}, {}});
    p.rails.push_back(std::move(pr));
  }
  // Each GPU's own checks, by the plan's GPU order (gpu.N is the plan's N-th GPU).
  const auto& planned = array_at(r.plan, "gpus");
  for (const auto& c : r.checks) {
    if (c.id.scope() != CheckScope::gpu || c.id.index < 0 || static_cast<std::size_t>(c.id.index) >= planned.size())
      continue;
    const auto& pci = planned[static_cast<std::size_t>(c.id.index)];
    auto g = std::find_if(p.gpus.begin(), p.gpus.end(),
                          [&](const PictureGpu& x) { return pci.is_string() && x.pci == pci; });
    if (g == p.gpus.end()) continue;
    g->checked = true;
    std::string what = c.name() + (c.observed.empty() ? "" : ": " + c.observed);
    if (c.failing()) g->failing.push_back(what);
    else if (c.status != CheckStatus::pass && c.status != CheckStatus::skip)
      g->findings.push_back(to_string(c.status) + " " + what);
  }
  // GPUDirect is a rail's check about its GPUs' memory: it colours the rail's GPUs too.
  for (const auto& c : r.checks) {
    if (c.id.kind != CheckKind::rail_gpudirect_write) continue;
    for (const auto& rail : p.rails) {
      if (rail.index != c.id.index) continue;
      for (const auto& pci : rail.gpu_pcis) {
        auto g = std::find_if(p.gpus.begin(), p.gpus.end(), [&](const PictureGpu& x) { return x.pci == pci; });
        if (g == p.gpus.end()) continue;
        g->checked = true;
        std::string what = c.name() + (c.observed.empty() ? "" : ": " + c.observed);
        if (c.failing()) g->failing.push_back(what);
        else if (c.status != CheckStatus::pass && c.status != CheckStatus::skip)
          g->findings.push_back(to_string(c.status) + " " + what);
      }
    }
  }
  return p;
}

std::string rails_svg(const RailsPicture& p) {
  // Bands: the NUMA nodes the inventory lists, then any other node a device names, then unknown.
  std::vector<int> bands;
  for (const auto& [id, cpus] : p.numa) bands.push_back(id);
  for (const auto& n : p.nics)
    if (std::find(bands.begin(), bands.end(), n.numa) == bands.end()) bands.push_back(n.numa);
  for (const auto& g : p.gpus)
    if (std::find(bands.begin(), bands.end(), g.numa) == bands.end()) bands.push_back(g.numa);
  std::stable_partition(bands.begin(), bands.end(), [](int b) { return b >= 0; });

  auto gpu_of = [&](const std::string& pci) {
    return std::find_if(p.gpus.begin(), p.gpus.end(), [&](const PictureGpu& g) { return g.pci == pci; });
  };
  auto nic_of = [&](const std::string& ifname) {
    return std::find_if(p.nics.begin(), p.nics.end(), [&](const PictureNic& n) { return n.ifname == ifname; });
  };
  std::set<std::string> pinned;
  for (const auto& r : p.rails) pinned.insert(r.gpu_pcis.begin(), r.gpu_pcis.end());

  Svg body;
  int y = 8;
  for (int band : bands) {
    std::vector<const PictureRail*> rails;
    for (const auto& r : p.rails) {
      auto nic = nic_of(r.ifname);
      if (nic != p.nics.end() && nic->numa == band) rails.push_back(&r);
    }
    std::vector<const PictureNic*> others;
    for (const auto& n : p.nics)
      if (n.rail < 0 && n.numa == band) others.push_back(&n);
    std::vector<const PictureGpu*> loose;
    for (const auto& g : p.gpus)
      if (!pinned.count(g.pci) && g.numa == band) loose.push_back(&g);
    if (rails.empty() && others.empty() && loose.empty()) continue;

    int rows = 0;
    for (const auto* r : rails) rows += std::max<int>(1, static_cast<int>(r->gpu_pcis.size()));
    rows += static_cast<int>(std::max(others.size(), loose.size()));
    int height = kBandHead + rows * kRow + kBandPad;
    std::string cpus;
    for (const auto& [id, list] : p.numa)
      if (id == band) cpus = list;
    std::string label = band >= 0 ? "NUMA node " + std::to_string(band) + (cpus.empty() ? "" : " (CPUs " + cpus + ")")
                                  : "NUMA node unknown";
    body.raw("<g class=\"numa\" data-numa=\"" + std::to_string(band) + "\">");
    body.rect(8, y, kWidth - 16, height, {"#f7f9fc", "#b8c4d6"}, "numa-band");
    body.text(16, y + 16, label, 12, "start", "#3b4a60", "bold");
    body.raw("</g>");
    int row_y = y + kBandHead;

    for (const auto* r : rails) {
      const PictureNic& nic = *nic_of(r->ifname);
      int n = std::max<int>(1, static_cast<int>(r->gpu_pcis.size()));
      int nic_y = row_y + (n - 1) * kRow / 2;
      body.raw("<g class=\"rail\" data-rail=\"" + std::to_string(r->index) + "\" data-state=\"" + nic.state() + "\">");
      for (int i = 0; i < static_cast<int>(r->gpu_pcis.size()); ++i) {
        auto g = gpu_of(r->gpu_pcis[static_cast<std::size_t>(i)]);
        int gy = row_y + i * kRow;
        std::string numa_note = g->numa != nic.numa ? "  NUMA " + (g->numa >= 0 ? std::to_string(g->numa) : "?") : "";
        std::string gpu_title =
            "GPU " + std::to_string(g->ordinal) + " " + g->pci + (g->model.empty() ? "" : " " + g->model);
        if (!g->failing.empty()) gpu_title += "; failing: " + join(g->failing, "; ");
        if (!g->findings.empty()) gpu_title += "; " + join(g->findings, "; ");
        const std::string gs = g->state();
        body.rect(kGpuX, gy, kGpuW, kBox, gs.empty() || gs == "ok" ? Colours{"#e8eefc", "#3f5fa8"} : state_colours(gs),
                  "gpu" + (gs.empty() ? std::string() : " state-" + gs), gpu_title);
        if (!g->failing.empty())
          body.text(kGpuX + kGpuW - 10, gy + 14, std::to_string(g->failing.size()) + " failing", 11, "end", "#c62828",
                    "bold");
        body.text(kGpuX + 10, gy + 14, "GPU " + std::to_string(g->ordinal) + numa_note, 12, "start", "#1b2a4a", "bold");
        const std::string& what = g->model.empty() ? g->device : g->model;
        body.text(kGpuX + 10, gy + 27, g->pci + (what.empty() ? "" : "  " + what), 11, "start", "#444");
        int x1 = kGpuX + kGpuW, y1 = gy + kBox / 2, x2 = kNicX, y2 = nic_y + kBox / 2;
        const char* colour = affinity_colour(r->affinity);
        body.raw("<line class=\"pin\" data-affinity=\"" + html_escape(r->affinity) + "\" x1=\"" + std::to_string(x1) +
                 "\" y1=\"" + std::to_string(y1) + "\" x2=\"" + std::to_string(x2) + "\" y2=\"" + std::to_string(y2) +
                 "\" stroke=\"" + colour + "\" stroke-width=\"2.5\"/>");
        int mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
        body.raw("<rect x=\"" + std::to_string(mx - 22) + "\" y=\"" + std::to_string(my - 9) +
                 "\" width=\"44\" height=\"18\" rx=\"9\" fill=\"#ffffff\" stroke=\"" + colour + "\"/>");
        body.text(mx, my + 4, r->affinity.empty() ? "?" : r->affinity, 11, "middle", colour, "bold");
      }
      if (r->gpu_pcis.empty()) body.text(kGpuX + 10, row_y + 20, "no GPU on this rail", 11, "start", "#888");
      Colours c = state_colours(nic.state());
      std::string title = nic.model;
      if (!nic.failing.empty())
        title += (title.empty() ? "" : "; ") + std::string("failing: ") + join(nic.failing, "; ");
      if (!nic.unverified.empty())
        title += (title.empty() ? "" : "; ") + std::string("unverified: ") + join(nic.unverified, "; ");
      body.rect(kNicX, nic_y, kNicW, kBox, c, "nic rail-nic state-" + nic.state(), title);
      body.text(kNicX + 10, nic_y + 14,
                "rail " + std::to_string(r->index) + "  " + nic.ifname +
                    (nic.rdma_device.empty() ? "" : "  " + nic.rdma_device),
                12, "start", "#222", "bold");
      std::string link = (nic.operstate.empty() ? "link ?" : nic.operstate) + "  " + speed_text(nic.speed_mbps) +
                         (nic.rdma_device.empty() ? "" : "  port " + (nic.port_state.empty() ? "?" : nic.port_state));
      body.text(kNicX + 10, nic_y + 27, link, 11, "start", "#444");
      if (!nic.failing.empty())
        body.text(kNicX + kNicW - 12, nic_y + 21, std::to_string(nic.failing.size()) + " failing", 11, "end", "#c62828",
                  "bold");
      else if (!nic.unverified.empty())
        body.text(kNicX + kNicW - 12, nic_y + 21, std::to_string(nic.unverified.size()) + " unverified", 11, "end",
                  "#a06d00", "bold");
      if (r->listened) {  // the rail's far end, as LLDP told it
        Colours lc = state_colours(r->leaf_state);
        body.raw("<line class=\"cable\" x1=\"" + std::to_string(kNicX + kNicW) + "\" y1=\"" +
                 std::to_string(nic_y + kBox / 2) + "\" x2=\"" + std::to_string(kLeafX) + "\" y2=\"" +
                 std::to_string(nic_y + kBox / 2) + "\" stroke=\"" + lc.stroke + "\" stroke-width=\"2\"/>");
        body.rect(kLeafX, nic_y, kLeafW, kBox, lc, "leaf state-" + r->leaf_state,
                  "LLDP neighbour of rail " + std::to_string(r->index) + ": " + r->leaf +
                      (r->leaf_port.empty() ? "" : " " + r->leaf_port) +
                      (r->leaf_trouble.empty() ? "" : "; " + r->leaf_trouble) +
                      (r->peer_detail.empty() ? "" : "; peer probe " + r->peer_detail));
        body.text(kLeafX + 8, nic_y + 14, r->leaf, 12, "start", "#222", "bold");
        if (!r->peer_figure.empty())  // across the leaf to the reference
          body.text(kLeafX + kLeafW - 6, nic_y + 27, r->peer_figure, 10, "end", r->peer_bad ? "#c62828" : "#2e7d32",
                    "bold");
        if (r->leaf_trouble.empty()) body.text(kLeafX + 8, nic_y + 27, r->leaf_port, 11, "start", "#444");
        else body.text(kLeafX + 8, nic_y + 27, r->leaf_port + " +", 11, "start", "#c62828", "bold");
      }
      body.raw("</g>");
      row_y += n * kRow;
    }
    for (std::size_t i = 0; i < std::max(others.size(), loose.size()); ++i) {
      if (i < loose.size()) {
        const PictureGpu& g = *loose[i];
        body.rect(kGpuX, row_y, kGpuW, kBox, {"#f1f1f1", "#999999"}, "gpu unpinned",
                  "GPU " + std::to_string(g.ordinal) + " has no rail");
        body.text(kGpuX + 10, row_y + 14, "GPU " + std::to_string(g.ordinal) + "  no rail", 12, "start", "#555",
                  "bold");
        body.text(kGpuX + 10, row_y + 27, g.pci, 11, "start", "#666");
      }
      if (i < others.size()) {
        const PictureNic& n = *others[i];
        body.rect(kNicX, row_y, kNicW, kBox, {"#f1f1f1", "#999999"}, "nic other-nic");
        body.text(kNicX + 10, row_y + 14, n.ifname + (n.management ? "  management" : "  not a rail"), 12, "start",
                  "#555", "bold");
        body.text(kNicX + 10, row_y + 27,
                  (n.operstate.empty() ? "link ?" : n.operstate) + "  " + speed_text(n.speed_mbps), 11, "start",
                  "#666");
      }
      row_y += kRow;
    }
    y += height + 8;
  }
  if (y == 8) {
    body.text(16, 28,
              p.has_inventory ? "no GPUs, NICs or rails in this report" : "this report has no inventory and no rails",
              12, "start", "#888");
    y = 44;
  }
  return "<svg class=\"rails\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kWidth) +
         "\" height=\"" + std::to_string(y) + "\" viewBox=\"0 0 " + std::to_string(kWidth) + " " + std::to_string(y) +
         "\" font-family=\"sans-serif\" role=\"img\">" + body.str() + "</svg>";
}

}  // namespace railyard
