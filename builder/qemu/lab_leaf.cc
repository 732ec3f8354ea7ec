#include "lab_leaf.h"

#include <algorithm>

#include "frr.h"
#include "leaf_config.h"
#include "net.h"
#include "plan.h"
#include "text.h"

namespace railyard {

namespace {

std::string hex_bytes(std::initializer_list<unsigned> bytes) {
  std::vector<std::string> out;
  for (unsigned b : bytes) out.push_back(hex(b & 0xff, 2).substr(2));
  return join(out, ",");
}

// lldpcli reads one command per line, words split on blanks: quote, and keep quotes out.
std::string lldpcli_word(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) out += c;
  return "\"" + out + "\"";
}

std::string text_or(const nlohmann::json& j, const char* key, const std::string& otherwise) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : otherwise;
}

}  // namespace

std::string lldpd_config(const nlohmann::json& leaf, const nlohmann::json& port, const std::string& ifname_pattern,
                         int pfc_priority) {
  std::string system = text_or(leaf, "leaf", "railyard-lab-leaf");
  int rail = port.value("rail", 0);
  std::string out = "# lldpd for the lab leaf " + system + ", rail " + std::to_string(rail) +
                    ": from railyard fabric leaf-config's " + system + ".json\n";
  out += "configure system hostname " + lldpcli_word(system) + "\n";
  out +=
      "configure system description " + lldpcli_word("railyard lab leaf (lldpd), rail " + std::to_string(rail)) + "\n";
  out += "configure system interface pattern " + ifname_pattern + "\n";
  // A real switch sends every 30 s; the lab's node listens for seconds.
  out += "configure lldp tx-interval 1\n";
  std::string description = "to " + text_or(port, "node", "?") + " rail " + std::to_string(rail);
  if (port.contains("port") && port["port"].is_string())
    out += "configure ports " + ifname_pattern + " lldp portidsubtype local " +
           lldpcli_word(port["port"].get<std::string>()) + " description " + lldpcli_word(description) + "\n";
  else out += "configure lldp portidsubtype ifname\n";
  // IEEE 802.1Qaz PFC configuration: willing (bit 7), MBC (bit 6), capability (bits 3-0);
  // then the enable bitmap.
  unsigned enable = 0;
  if (pfc_priority >= 0) enable = 1u << pfc_priority;
  else
    for (const auto& p : leaf["pfc"]["priorities"]) enable |= 1u << p.get<int>();
  bool willing = leaf["pfc"].value("willing", false);
  out += "configure lldp custom-tlv oui 00,80,c2 subtype 11 oui-info " +
         hex_bytes({(willing ? 0x80u : 0u) | 8u, enable}) + "\n";
  // IEEE 802.3 maximum frame size: the port's MTU, a frame size by Ethernet's count.
  unsigned mtu = leaf.value("mtu", 1518);
  out += "configure lldp custom-tlv add oui 00,12,0f subtype 4 oui-info " + hex_bytes({mtu >> 8, mtu}) + "\n";
  // IEEE 802.1 port VLAN ID (untagged frames: VLAN 1) and a VLAN name per tagged VLAN.
  out += "configure lldp custom-tlv add oui 00,80,c2 subtype 1 oui-info 00,01\n";
  for (const auto& v : leaf["vlans"]) {
    unsigned vid = v.get<unsigned>();
    std::string name = "rail" + std::to_string(rail);
    std::string info = hex_bytes({vid >> 8, vid, static_cast<unsigned>(name.size())});
    for (char c : name) info += "," + hex(static_cast<unsigned char>(c), 2).substr(2);
    out += "configure lldp custom-tlv add oui 00,80,c2 subtype 3 oui-info " + info + "\n";
  }
  return out;
}

Outcome<std::vector<LabLeafFile>> lab_leaf_files(const Recipe& recipe, const std::vector<NodeEntry>& nodes,
                                                 const std::vector<std::string>& port_macs, const LabFaults& faults,
                                                 const std::optional<LabRoutedLeaf>& routed) {
  using Result = Outcome<std::vector<LabLeafFile>>;
  if (nodes.empty() || port_macs.size() % nodes.size() != 0)
    return Result::fail("the lab leaf: " + std::to_string(port_macs.size()) + " ports for " +
                        std::to_string(nodes.size()) + " nodes");
  if (routed && nodes.size() > 1) return Result::fail("the lab leaf: routed rails are cabled to one node only");
  const std::size_t rails = port_macs.size() / nodes.size();
  std::vector<NodeEntry> cabled = nodes;
  if (routed) cabled.push_back(routed->target);
  LeafPlan plan = plan_leaves(recipe, cabled);
  if (!plan.ok()) return Result::fail("the lab leaf: " + join(plan.problems, "; "));
  std::vector<LabLeafFile> out;
  std::string ports, shaping;
  for (std::size_t k = 0; k < port_macs.size(); ++k) {
    const NodeEntry& node = nodes[k / rails];
    int rail = static_cast<int>(k % rails);
    const LeafIntent* leaf = nullptr;
    for (const auto& l : plan.leaves)
      if (std::find(l.rails.begin(), l.rails.end(), rail) != l.rails.end()) leaf = &l;
    if (!leaf) return Result::fail("the lab leaf: leaf-config has no leaf for rail " + std::to_string(rail));
    nlohmann::json doc = nlohmann::json::parse(to_json(*leaf, recipe).dump());  // as the tool emits it
    std::string doc_path = std::string(kLabLeafDir) + "/leaf-config/" + leaf->file;
    if (std::none_of(out.begin(), out.end(), [&](const LabLeafFile& f) { return f.path == doc_path; }))
      out.push_back({doc_path, doc.dump(2) + "\n"});
    for (const auto& s : faults.shaped)
      if (s.node == node.hostname && s.rail == rail) shaping += port_macs[k] + " " + s.netem() + "\n";
    nlohmann::json port;
    for (const auto& p : doc["ports"])
      if (p["rail"] == rail && p["node"] == node.hostname) port = p;
    // The first node's ports keep their names of a one-node lab; the others' say whose.
    std::string stem = leaf->file.substr(0, leaf->file.size() - 5) + "-port" + std::to_string(rail) +
                       (k < rails ? "" : "-" + node.hostname);
    if (faults.no_lldp) {
      ports += port_macs[k] + " " + std::to_string(rail) + " -\n";
      continue;
    }
    // Each lldpd listens on its port alone; its interface is named there by the leaf script.
    out.push_back({std::string(kLabLeafDir) + "/" + stem + ".conf",
                   lldpd_config(doc, port, "@IFNAME@", faults.leaf_pfc.value_or(-1))});
    ports += port_macs[k] + " " + std::to_string(rail) + " " + stem + "\n";
  }
  out.push_back({std::string(kLabLeafDir) + "/ports", ports});
  for (const auto& s : faults.shaped)
    if (std::none_of(nodes.begin(), nodes.end(), [&](const NodeEntry& n) { return n.hostname == s.node; }))
      return Result::fail("the lab leaf: no node " + s.node + " is cabled to it (rail-loss, rail-slow)");
  if (!shaping.empty()) out.push_back({std::string(kLabLeafDir) + "/shaping", shaping});
  if (routed) {
    auto more = lab_leaf_routed_files(recipe, nodes.front(), *routed, static_cast<int>(rails), faults);
    if (!more.ok()) return Result::fail(more.error());
    out.insert(out.end(), more->begin(), more->end());
  }
  return out;
}

Outcome<std::vector<LabLeafFile>> lab_leaf_files(const Recipe& recipe, const NodeEntry& node,
                                                 const std::vector<std::string>& port_macs, const LabFaults& faults,
                                                 const std::optional<LabRoutedLeaf>& routed) {
  return lab_leaf_files(recipe, std::vector<NodeEntry>{node}, port_macs, faults, routed);
}

namespace {

const LeafIntent* leaf_of(const LeafPlan& plan, int rail) {
  for (const auto& l : plan.leaves)
    if (std::find(l.rails.begin(), l.rails.end(), rail) != l.rails.end()) return &l;
  return nullptr;
}

const LeafPort* port_of(const LeafIntent& leaf, int rail, const std::string& node) {
  for (const auto& p : leaf.ports)
    if (p.rail == rail && p.node == node) return &p;
  return nullptr;
}

std::string with_prefix(const std::string& address, int length) {
  return address.find('/') == std::string::npos ? address + "/" + std::to_string(length) : address;
}

// A shell assignment the guest script sources: the value is quoted, and plan-checked values
// (addresses, numbers) never hold a quote; anything else is refused.
Status assign(std::string& out, const std::string& name, const std::string& value) {
  if (value.find_first_of("'\\\n") != std::string::npos)
    return Status::fail("the lab leaf: " + name + " '" + value + "' cannot go into a shell assignment");
  out += name + "='" + value + "'\n";
  return success();
}

}  // namespace

Outcome<std::vector<LabLeafFile>> lab_leaf_routed_files(const Recipe& recipe, const NodeEntry& node,
                                                        const LabRoutedLeaf& routed, int rails,
                                                        const LabFaults& faults) {
  using Result = Outcome<std::vector<LabLeafFile>>;
  const NodeEntry& target = routed.target;
  if (static_cast<int>(target.rails.size()) < rails || static_cast<int>(node.rails.size()) < rails)
    return Result::fail("the lab leaf: routed rails need a rail address per rail for " + node.hostname + " and " +
                        target.hostname + " in the inventory");
  LeafPlan plan = plan_leaves(recipe, {node, target});
  if (!plan.ok()) return Result::fail("the lab leaf: " + join(plan.problems, "; "));
  // leaf-refuse-asn=R: rail R's leaf is configured for another AS of the node, as a leaf whose
  // operator typed the node's AS wrong: it refuses the node's OPEN.
  NodeEntry misnumbered = node;
  std::int64_t asn = node_asn(node, recipe);
  misnumbered.asn = asn < 4294967295LL ? asn + 1 : asn - 1;
  LeafPlan refused = plan_leaves(recipe, {misnumbered, target});

  std::vector<LabLeafFile> out;
  std::string lines;
  for (int rail = 0; rail < rails; ++rail) {
    bool refuse =
        std::find(faults.leaf_refuse_asn.begin(), faults.leaf_refuse_asn.end(), rail) != faults.leaf_refuse_asn.end();
    const LeafIntent* leaf = leaf_of(refuse ? refused : plan, rail);
    if (!leaf) return Result::fail("the lab leaf: leaf-config has no leaf for rail " + std::to_string(rail));
    const LeafPort* to_node = port_of(*leaf, rail, node.hostname);
    const LeafPort* to_target = port_of(*leaf, rail, target.hostname);
    if (!to_node || !to_target || to_node->port.empty() || to_target->port.empty())
      return Result::fail("the lab leaf: rail " + std::to_string(rail) + "'s leaf has no named port for " +
                          (to_node && !to_node->port.empty() ? target.hostname : node.hostname) +
                          " (the inventory's lldp_port)");
    std::string conf = frr_leaf_config(*leaf, recipe);
    if (conf.empty()) return Result::fail("the lab leaf: leaf-config writes no frr.conf (routing.leaf_asn is 0)");
    std::string stem = leaf->file.substr(0, leaf->file.size() - 5) + "-rail" + std::to_string(rail);
    bool down = std::find(faults.leaf_bgp_down.begin(), faults.leaf_bgp_down.end(), rail) != faults.leaf_bgp_down.end();
    out.push_back({std::string(kLabLeafDir) + "/" + stem + ".frr.conf", conf});
    lines += std::to_string(rail) + " " + (down ? "-" : stem + ".frr.conf") + " " + to_node->port + " " +
             to_target->port + "\n";
  }
  out.push_back({std::string(kLabLeafDir) + "/routed", lines});
  out.push_back({std::string(kLabLeafDir) + "/storage-port", routed.storage_port_mac + "\n"});

  // The target as a routed host: what the agent would plan for it, rail 0 on its storage NIC
  // and the other rails on veths to their leaves. (railyard-firstboot target addresses rail
  // 0 and makes the node's VNI there, as a node's agent would.)
  Plan p;
  p.node = target.hostname;
  p.recipe = recipe.name;
  for (int rail = 0; rail < rails; ++rail) {
    RailPlan r;
    r.index = rail;
    r.netdev = rail == 0 ? routed.storage_ifname : "rail" + std::to_string(rail);
    r.address = with_prefix(target.rails[static_cast<std::size_t>(rail)], 32);
    p.rails.push_back(r);
  }
  BgpPlan bgp;
  bgp.asn = node_asn(target, recipe);
  bgp.router_id = target.rails.front().substr(0, target.rails.front().find('/'));
  bgp.fabric_prefixes = recipe.routing.fabric_prefixes;
  p.bgp = bgp;
  if (recipe.tenant.vni != 0)
    p.tenant = TenantPlan{recipe.tenant.vni, "", target.vtep, target.tenant_address, 0, {}, ""};
  for (const auto& f : frr_node_files(p))
    out.push_back(
        {std::string(kLabLeafDir) + (f.path == kFrrConfigPath ? "/target-frr.conf" : "/target-daemons"), f.content});

  std::string env = "# The storage target's routed side (railyard qemu; overlays/lab-qemu's qemu-leaf sources it).\n";
  std::string more;
  for (int rail = 1; rail < rails; ++rail)
    more += (more.empty() ? "" : " ") + std::to_string(rail) + "=" +
            with_prefix(target.rails[static_cast<std::size_t>(rail)], 32);
  Status st = assign(env, "TARGET_RAILS", more);
  if (st.ok() && recipe.tenant.vni != 0) {
    // Another tenant's VNI on the target holds the node's isolation probe address: the probe
    // must find it unreachable (tenant-leak: the target answers for it on the node's VNI).
    int other = recipe.tenant.vni < 16777215 ? recipe.tenant.vni + 1 : recipe.tenant.vni - 1;
    for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"VNI", std::to_string(recipe.tenant.vni)},
             {"VTEP", target.vtep},
             {"FLOOD", node.vtep},
             {"OTHER_VNI", std::to_string(other)},
             {"OTHER_ADDRESS", recipe.tenant.isolation_probe.empty() ? "" : recipe.tenant.isolation_probe + "/32"},
             {"TENANT_LEAK", faults.tenant_leak ? "1" : "0"}})
      if (st.ok()) st = assign(env, name, value);
  }
  if (!st.ok()) return Result::fail(st.error());
  out.push_back({std::string(kLabLeafDir) + "/target.env", env});
  return out;
}

std::vector<std::string> lab_target_modules(const Recipe& recipe, bool routed) {
  std::vector<std::string> out = target_modules(recipe);
  out.push_back(routed ? "veth" : "bridge");
  return out;
}

}  // namespace railyard
