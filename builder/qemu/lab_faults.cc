#include "lab_faults.h"

#include <algorithm>

#include "text.h"

namespace railyard {

namespace {

std::optional<int> small_number(const std::string& s) {
  if (s.empty() || s.size() > 2 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(s);
}

}  // namespace

std::string lab_fault_help() {
  return "link-down=R (rail R's NIC has no link), pause-storm=R (rail R's NIC receives pause frames at storm rate), "
         "swap-rails=[NODE:]A,B (the cables of rails A and B of NODE, the first node unless named, cross at the leaf), "
         "leaf-pfc=P (the leaf advertises PFC on "
         "priority P instead), no-lldp (the leaf sends no LLDP); with routed rails: leaf-bgp-down=R (rail R's leaf "
         "runs no BGP), leaf-refuse-asn=R (rail R's leaf expects another AS of the node), tenant-leak (the target "
         "answers for another tenant's address); rail-loss=NODE:R:PCT (the leaf's port to NODE's rail R loses "
         "PCT% of the frames, both ways), rail-slow=NODE:R:MBIT (that port carries at most MBIT Mb/s); with Slurm: "
         "controller-outage=S (the controller is out of the node's "
         "reach for S s from its first connection; the node must still join)";
}

Status add_lab_fault(const std::string& spec, int rails, LabFaults& f) {
  auto eq = spec.find('=');
  std::string name = spec.substr(0, eq), arg = eq == std::string::npos ? "" : spec.substr(eq + 1);
  auto bad = [&](const std::string& why) { return Status::fail("--fault " + spec + ": " + why); };
  auto rail = [&](const std::string& s) -> std::optional<int> {
    auto r = small_number(s);
    if (!r || *r >= rails) return std::nullopt;
    return r;
  };
  std::string rails_allowed = "a rail 0–" + std::to_string(rails - 1);
  if (name == "link-down" || name == "pause-storm" || name == "leaf-bgp-down" || name == "leaf-refuse-asn") {
    auto r = rail(arg);
    if (!r) return bad("expected " + name + "=R, R " + rails_allowed);
    auto& list = name == "link-down"       ? f.links_down
                 : name == "pause-storm"   ? f.pause_storms
                 : name == "leaf-bgp-down" ? f.leaf_bgp_down
                                           : f.leaf_refuse_asn;
    if (std::find(list.begin(), list.end(), *r) == list.end()) list.push_back(*r);
    return success();
  }
  if (name == "swap-rails") {
    std::string node, pair = arg;
    if (auto colon = arg.find(':'); colon != std::string::npos) {
      node = arg.substr(0, colon);
      pair = arg.substr(colon + 1);
      if (node.empty()) return bad("expected swap-rails=[NODE:]A,B, NODE a node of the run");
    }
    auto parts = split(pair, ',');
    std::optional<int> a = parts.size() == 2 ? rail(parts[0]) : std::nullopt,
                       b = parts.size() == 2 ? rail(parts[1]) : std::nullopt;
    if (!a || !b || *a == *b)
      return bad("expected swap-rails=[NODE:]A,B, two different rails 0–" + std::to_string(rails - 1));
    if (f.swapped) return bad("only one pair of rails can be swapped");
    f.swapped = std::pair{std::min(*a, *b), std::max(*a, *b)};
    f.swapped_node = node;
    return success();
  }
  if (name == "leaf-pfc") {
    auto p = small_number(arg);
    if (!p || *p > 7) return bad("expected leaf-pfc=P, P a priority 0–7");
    f.leaf_pfc = *p;
    return success();
  }
  if (name == "controller-outage") {
    auto s = small_number(arg);
    if (!s || *s < 1 || *s > kLabControllerOutageMaxS)
      return bad("expected controller-outage=S, S seconds 1–" + std::to_string(kLabControllerOutageMaxS));
    f.controller_outage_s = *s;
    return success();
  }
  if (name == "rail-loss" || name == "rail-slow") {
    bool loss = name == "rail-loss";
    std::string form = loss ? "rail-loss=NODE:R:PCT, PCT 1–100" : "rail-slow=NODE:R:MBIT, MBIT 1–10000";
    auto parts = split(arg, ':');
    if (parts.size() != 3 || parts[0].empty()) return bad("expected " + form + ", R " + rails_allowed);
    auto r = rail(parts[1]);
    const std::string& v = parts[2];
    bool digits =
        !v.empty() && v.size() <= 5 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    int n = digits ? std::stoi(v) : 0;
    if (!r || n < 1 || n > (loss ? 100 : 10000)) return bad("expected " + form + ", R " + rails_allowed);
    for (const auto& s : f.shaped)
      if (s.node == parts[0] && s.rail == *r)
        return bad("node " + s.node + "'s rail " + parts[1] + " is shaped already");
    RailShaping s{parts[0], *r, loss ? n : 0, loss ? 0 : n};
    f.shaped.push_back(s);
    return success();
  }
  if (name == "no-lldp" || name == "tenant-leak") {
    if (!arg.empty()) return bad(name + " takes no argument");
    (name == "no-lldp" ? f.no_lldp : f.tenant_leak) = true;
    return success();
  }
  return Status::fail("--fault " + spec + ": unknown fault '" + name + "'; allowed: " + lab_fault_help());
}

std::string RailShaping::netem() const {
  return loss_pct > 0 ? "loss random " + std::to_string(loss_pct) + "%" : "rate " + std::to_string(rate_mbit) + "mbit";
}

int cabled_rail(const LabFaults& f, const std::string& node, bool first, int port) {
  if (f.swapped_node.empty() ? !first : f.swapped_node != node) return port;
  if (f.swapped && port == f.swapped->first) return f.swapped->second;
  if (f.swapped && port == f.swapped->second) return f.swapped->first;
  return port;
}

Status check_lab_faults(const LabFaults& faults, const Recipe& recipe) {
  if (faults.any_routed() && recipe.routing.mode != RoutingMode::bgp_unnumbered)
    return Status::fail(
        "--fault leaf-bgp-down, leaf-refuse-asn and tenant-leak need routed rails: the image's recipe has "
        "routing.mode = \"l2\"");
  if (faults.tenant_leak && recipe.tenant.vni == 0)
    return Status::fail(
        "--fault tenant-leak: the image's recipe has no [tenant] network (tenant.vni), so there is no "
        "VNI to leak into and tenant.isolation is not planned");
  return success();
}

}  // namespace railyard
