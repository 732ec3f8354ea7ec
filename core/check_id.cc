#include "check_id.h"

#include <array>
#include <cctype>

namespace railyard {

namespace {

struct KindInfo {
  CheckKind kind;
  CheckScope scope;
  std::string_view word;  // node scope: the whole name; gpu, rail, nvmeof: after the index
};

// One row per kind, in enum order (kinds() checks it at compile time).
constexpr std::array kKinds = {
    KindInfo{CheckKind::devices_ready, CheckScope::node, "devices.ready"},
    KindInfo{CheckKind::gpu_count, CheckScope::node, "gpu.count"},
    KindInfo{CheckKind::gpu_model, CheckScope::node, "gpu.model"},
    KindInfo{CheckKind::gpu_pcie_link, CheckScope::gpu, "pcie_link"},
    KindInfo{CheckKind::gpu_nvml, CheckScope::gpu, "nvml"},
    KindInfo{CheckKind::gpu_persistence, CheckScope::gpu, "persistence"},
    KindInfo{CheckKind::gpu_ecc, CheckScope::gpu, "ecc"},
    KindInfo{CheckKind::gpu_row_remap, CheckScope::gpu, "row_remap"},
    KindInfo{CheckKind::gpu_xid, CheckScope::gpu, "xid"},
    KindInfo{CheckKind::gpu_throttle, CheckScope::gpu, "throttle"},
    KindInfo{CheckKind::gpu_temperature, CheckScope::gpu, "temperature"},
    KindInfo{CheckKind::gpu_nvml_pcie, CheckScope::gpu, "nvml_pcie"},
    KindInfo{CheckKind::gpu_nvlink, CheckScope::gpu, "nvlink"},
    KindInfo{CheckKind::rails_count, CheckScope::node, "rails.count"},
    KindInfo{CheckKind::rail_affinity, CheckScope::rail, "affinity"},
    KindInfo{CheckKind::rail_gpu_topology, CheckScope::rail, "gpu_topology"},
    KindInfo{CheckKind::rail_pcie_link, CheckScope::rail, "pcie_link"},
    KindInfo{CheckKind::rail_link, CheckScope::rail, "link"},
    KindInfo{CheckKind::rail_speed, CheckScope::rail, "speed"},
    KindInfo{CheckKind::rail_mtu, CheckScope::rail, "mtu"},
    KindInfo{CheckKind::rail_vlan, CheckScope::rail, "vlan"},
    KindInfo{CheckKind::rail_address, CheckScope::rail, "address"},
    KindInfo{CheckKind::rail_no_default_route, CheckScope::rail, "no_default_route"},
    KindInfo{CheckKind::rail_pfc, CheckScope::rail, "pfc"},
    KindInfo{CheckKind::rail_trust, CheckScope::rail, "trust"},
    KindInfo{CheckKind::rail_dscp_map, CheckScope::rail, "dscp_map"},
    KindInfo{CheckKind::rail_ecn, CheckScope::rail, "ecn"},
    KindInfo{CheckKind::rail_roce_tos, CheckScope::rail, "roce_tos"},
    KindInfo{CheckKind::rail_storm_prevention, CheckScope::rail, "storm_prevention"},
    KindInfo{CheckKind::rail_rdma_port, CheckScope::rail, "rdma_port"},
    KindInfo{CheckKind::rail_roce_v2_gid, CheckScope::rail, "roce_v2_gid"},
    KindInfo{CheckKind::rail_rdma_write, CheckScope::rail, "rdma_write"},
    KindInfo{CheckKind::rail_gpudirect_write, CheckScope::rail, "gpudirect_write"},
    KindInfo{CheckKind::rail_pause_storm, CheckScope::rail, "pause_storm"},
    KindInfo{CheckKind::rail_lldp, CheckScope::rail, "lldp"},
    KindInfo{CheckKind::rail_lldp_pfc, CheckScope::rail, "lldp_pfc"},
    KindInfo{CheckKind::rail_lldp_mtu, CheckScope::rail, "lldp_mtu"},
    KindInfo{CheckKind::rail_lldp_vlan, CheckScope::rail, "lldp_vlan"},
    KindInfo{CheckKind::rail_bgp, CheckScope::rail, "bgp"},
    KindInfo{CheckKind::rail_bgp_prefixes, CheckScope::rail, "bgp_prefixes"},
    KindInfo{CheckKind::rail_route, CheckScope::rail, "route"},
    KindInfo{CheckKind::rails_cross_rdma_write, CheckScope::node, "rails.cross_rdma_write"},
    KindInfo{CheckKind::tenant_vxlan, CheckScope::node, "tenant.vxlan"},
    KindInfo{CheckKind::tenant_vtep, CheckScope::node, "tenant.vtep"},
    KindInfo{CheckKind::tenant_isolation, CheckScope::node, "tenant.isolation"},
    KindInfo{CheckKind::nvmeof_connected, CheckScope::nvmeof, "connected"},
    KindInfo{CheckKind::nvmeof_namespace_read, CheckScope::nvmeof, "namespace_read"},
    KindInfo{CheckKind::gpudirect_peermem, CheckScope::node, "gpudirect.peermem"},
    KindInfo{CheckKind::gpudirect_acs, CheckScope::bridge, "gpudirect.acs."},
    KindInfo{CheckKind::nccl_all_reduce, CheckScope::node, "nccl.all_reduce"},
    KindInfo{CheckKind::apply_failed, CheckScope::apply, "apply."},
    KindInfo{CheckKind::other, CheckScope::other, ""},
};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kKinds.size(); ++i)
    if (static_cast<std::size_t>(kKinds[i].kind) != i) return false;
  return static_cast<std::size_t>(CheckKind::other) + 1 == kKinds.size();
}
static_assert(in_enum_order(), "kKinds must list every CheckKind once, in enum order");

const KindInfo& info(CheckKind k) { return kKinds[static_cast<std::size_t>(k)]; }

std::string_view prefix_of(CheckScope s) {
  switch (s) {
    case CheckScope::gpu: return "gpu.";
    case CheckScope::rail: return "rail.";
    case CheckScope::nvmeof: return "nvmeof.";
    case CheckScope::node:
    case CheckScope::bridge:
    case CheckScope::apply:
    case CheckScope::other: return "";
  }
  return "";
}

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A full PCI address ("0000:1b:00.0") starting at s[i]; its length, or 0.
std::size_t pci_at(std::string_view s, std::size_t i) {
  constexpr std::string_view shape = "hhhh:hh:hh.h";
  if (s.size() - i < shape.size()) return 0;
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (shape[k] == 'h' ? !is_hex(s[i + k]) : s[i + k] != shape[k]) return 0;
  return shape.size();
}

// Indices and PCI addresses of any name replaced by '*': PCI addresses first (they hold
// the '.' that separates a name's parts), then apply's "rail 3 (ens3f0np0)" objects, then
// every all-digit part.
std::string masked(std::string_view name) {
  std::string s;
  for (std::size_t i = 0; i < name.size();) {
    if (std::size_t n = pci_at(name, i)) {
      s += '*';
      i += n;
    } else s += name[i++];
  }
  std::string t;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i + 5;
    if (s.compare(i, 5, "rail ") != 0 || j >= s.size() || !is_digit(s[j])) {
      t += s[i++];
      continue;
    }
    while (j < s.size() && is_digit(s[j])) ++j;
    if (s.compare(j, 2, " (") == 0)
      if (std::size_t close = s.find(')', j); close != std::string::npos) j = close + 1;
    t += "rail *";
    i = j;
  }
  std::string out;
  std::size_t start = 0;
  for (;;) {
    std::size_t dot = t.find('.', start);
    std::string part = t.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    out += digits ? "*" : part;
    if (dot == std::string::npos) break;
    out += '.';
    start = dot + 1;
  }
  return out;
}

// "12" → 12; nothing for "", "012", or more than six digits, so that name() gives back
// exactly the text parse() read.
bool read_index(std::string_view s, int& out) {
  if (s.empty() || s.size() > 6 || (s.size() > 1 && s[0] == '0')) return false;
  int v = 0;
  for (char c : s) {
    if (!is_digit(c)) return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

}  // namespace

CheckScope scope_of(CheckKind k) { return info(k).scope; }

std::string CheckId::name() const {
  const KindInfo& i = info(kind);
  switch (i.scope) {
    case CheckScope::node: return std::string(i.word);
    case CheckScope::gpu:
    case CheckScope::rail:
    case CheckScope::nvmeof: return std::string(prefix_of(i.scope)) + std::to_string(index) + "." + std::string(i.word);
    case CheckScope::bridge:
    case CheckScope::apply: return std::string(i.word) + subject;
    case CheckScope::other: return subject;
  }
  return subject;
}

std::string CheckId::pattern() const {
  const KindInfo& i = info(kind);
  switch (i.scope) {
    case CheckScope::node: return std::string(i.word);
    case CheckScope::gpu:
    case CheckScope::rail:
    case CheckScope::nvmeof: return std::string(prefix_of(i.scope)) + "*." + std::string(i.word);
    case CheckScope::bridge: return std::string(i.word) + "*";
    case CheckScope::apply:
    case CheckScope::other: return masked(name());
  }
  return masked(name());
}

CheckId CheckId::parse(std::string_view name) {
  // "rail.3.pfc": the scope's prefix, the index and the word, each read once.
  for (CheckScope scope : {CheckScope::gpu, CheckScope::rail, CheckScope::nvmeof}) {
    std::string_view prefix = prefix_of(scope);
    if (name.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = name.substr(prefix.size());
    std::size_t dot = rest.find('.');
    int index = 0;
    if (dot == std::string_view::npos || !read_index(rest.substr(0, dot), index)) break;
    std::string_view word = rest.substr(dot + 1);
    for (const KindInfo& i : kKinds)
      if (i.scope == scope && i.word == word) return {i.kind, index, ""};
    break;
  }
  for (const KindInfo& i : kKinds) {
    switch (i.scope) {
      case CheckScope::node:
        if (name == i.word) return node(i.kind);
        break;
      case CheckScope::bridge:
      case CheckScope::apply:
        if (name.size() > i.word.size() && name.substr(0, i.word.size()) == i.word)
          return {i.kind, -1, std::string(name.substr(i.word.size()))};
        break;
      case CheckScope::gpu:
      case CheckScope::rail:
      case CheckScope::nvmeof:
      case CheckScope::other: break;
    }
  }
  return {CheckKind::other, -1, std::string(name)};
}

}  // namespace railyard
