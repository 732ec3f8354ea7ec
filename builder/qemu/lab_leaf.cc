#include "lab_leaf.h"

#include <algorithm>

#include "leaf_config.h"
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
  out += "configure system description " + lldpcli_word("railyard lab leaf (lldpd), rail " + std::to_string(rail)) + "\n";
  out += "configure system interface pattern " + ifname_pattern + "\n";
  // A real switch sends every 30 s; the lab's node listens for seconds.
  out += "configure lldp tx-interval 1\n";
  std::string description = "to " + text_or(port, "node", "?") + " rail " + std::to_string(rail);
  if (port.contains("port") && port["port"].is_string())
    out += "configure ports " + ifname_pattern + " lldp portidsubtype local " + lldpcli_word(port["port"].get<std::string>()) +
           " description " + lldpcli_word(description) + "\n";
  else
    out += "configure lldp portidsubtype ifname\n";
  // IEEE 802.1Qaz PFC configuration: willing (bit 7), MBC (bit 6), capability (bits 3-0);
  // then the enable bitmap.
  unsigned enable = 0;
  if (pfc_priority >= 0) enable = 1u << pfc_priority;
  else
    for (const auto& p : leaf["pfc"]["priorities"]) enable |= 1u << p.get<int>();
  bool willing = leaf["pfc"].value("willing", false);
  out += "configure lldp custom-tlv oui 00,80,c2 subtype 11 oui-info " + hex_bytes({(willing ? 0x80u : 0u) | 8u, enable}) + "\n";
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

Outcome<std::vector<LabLeafFile>> lab_leaf_files(const Recipe& recipe, const NodeEntry& node,
                                                 const std::vector<std::string>& port_macs, const LabFaults& faults) {
  using Result = Outcome<std::vector<LabLeafFile>>;
  LeafPlan plan = plan_leaves(recipe, {node});
  if (!plan.ok()) return Result::fail("the lab leaf: " + join(plan.problems, "; "));
  std::vector<LabLeafFile> out;
  std::string ports;
  for (std::size_t k = 0; k < port_macs.size(); ++k) {
    int rail = static_cast<int>(k);
    const LeafIntent* leaf = nullptr;
    for (const auto& l : plan.leaves)
      if (std::find(l.rails.begin(), l.rails.end(), rail) != l.rails.end()) leaf = &l;
    if (!leaf) return Result::fail("the lab leaf: leaf-config has no leaf for rail " + std::to_string(rail));
    nlohmann::json doc = nlohmann::json::parse(to_json(*leaf, recipe).dump());  // as the tool emits it
    std::string doc_path = std::string(kLabLeafDir) + "/leaf-config/" + leaf->file;
    if (std::none_of(out.begin(), out.end(), [&](const LabLeafFile& f) { return f.path == doc_path; }))
      out.push_back({doc_path, doc.dump(2) + "\n"});
    nlohmann::json port;
    for (const auto& p : doc["ports"])
      if (p["rail"] == rail) port = p;
    std::string stem = leaf->file.substr(0, leaf->file.size() - 5) + "-port" + std::to_string(rail);
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
  return out;
}

}  // namespace railyard
