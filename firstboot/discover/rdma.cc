// RDMA devices (/sys/class/infiniband): ports, state, link layer and the GID table, with
// the interface each serves. Soft-RoCE devices have no PCI parent: their GIDs name it.
#include "parts.h"
#include "sysfs.h"

#include <infiniband/verbs.h>
#include <net/if.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <endian.h>
#include <map>
#include <memory>
#include <optional>

namespace railyard::discovery {

namespace {

using GidTable = std::map<int, std::vector<Gid>>;  // by port number

// The GID tables of the devices libibverbs can open: one ibv_query_gid_table per device
// returns its valid entries, where sysfs needs three reads for each of the table's entries,
// used or not (a Soft-RoCE port has 1024: seconds per discovery under emulation, and the
// agent rediscovers after apply). A device is taken from libibverbs only when it is the one
// sysfs shows (same name and node GUID), so that fixtures (umockdev) never meet the host's
// own devices; for the others, and whenever libibverbs fails, sysfs is read.
class VerbsGidTables {
 public:
  VerbsGidTables() {
    // No RDMA character devices: nothing libibverbs could open (fixtures, hosts without RDMA).
    if (!sysfs::exists("/dev/infiniband")) return;
    list_ = ibv_get_device_list(&count_);
  }
  ~VerbsGidTables() {
    if (list_) ibv_free_device_list(list_);
  }
  VerbsGidTables(const VerbsGidTables&) = delete;
  VerbsGidTables& operator=(const VerbsGidTables&) = delete;

  std::optional<GidTable> read(const std::string& name, const std::string& node_guid) const {
    if (!list_ || node_guid.empty()) return std::nullopt;
    for (int i = 0; i < count_; ++i) {
      if (name != ibv_get_device_name(list_[i])) continue;
      uint64_t guid = be64toh(ibv_get_device_guid(list_[i]));
      uint8_t bytes[8];
      for (int b = 0; b < 8; ++b) bytes[b] = static_cast<uint8_t>(guid >> (56 - 8 * b));
      if (hex_groups(bytes, 8) != node_guid) return std::nullopt;
      return query(list_[i]);
    }
    return std::nullopt;
  }

 private:
  static std::optional<GidTable> query(ibv_device* device) {
    std::unique_ptr<ibv_context, decltype(&ibv_close_device)> ctx(ibv_open_device(device), ibv_close_device);
    if (!ctx) return std::nullopt;
    ibv_device_attr attr{};
    if (ibv_query_device(ctx.get(), &attr) != 0) return std::nullopt;
    size_t capacity = 0;
    for (uint8_t port = 1; port <= attr.phys_port_cnt; ++port) {
      ibv_port_attr pa{};
      if (ibv_query_port(ctx.get(), port, &pa) != 0) return std::nullopt;
      capacity += static_cast<size_t>(pa.gid_tbl_len);
    }
    std::vector<ibv_gid_entry> entries(std::max<size_t>(capacity, 1));
    ssize_t n = ibv_query_gid_table(ctx.get(), entries.data(), entries.size(), 0);
    if (n < 0) {
      spdlog::debug("{}: ibv_query_gid_table failed ({}); reading its GIDs from sysfs", ibv_get_device_name(device), n);
      return std::nullopt;
    }
    GidTable out;
    for (ssize_t i = 0; i < n; ++i) {
      const ibv_gid_entry& e = entries[static_cast<size_t>(i)];
      char ifname[IF_NAMESIZE] = {};
      std::string ndev;
      if (e.ndev_ifindex != 0 && if_indextoname(e.ndev_ifindex, ifname)) ndev = ifname;
      out[static_cast<int>(e.port_num)].push_back(
          verbs_gid(static_cast<int>(e.gid_index), e.gid.raw, e.gid_type == IBV_GID_TYPE_ROCE_V2, ndev));
    }
    return out;
  }

  ibv_device** list_ = nullptr;
  int count_ = 0;
};

// "4: ACTIVE" → "ACTIVE"
std::string state_word(const std::string& s) {
  auto colon = s.find(": ");
  return colon == std::string::npos ? s : s.substr(colon + 2);
}

bool all_zero(const std::string& gid) { return gid.find_first_not_of("0:") == std::string::npos; }

RdmaPort read_port(const std::string& dir, int number, const GidTable* verbs) {
  RdmaPort p;
  p.port = number;
  p.state = state_word(sysfs::read_or(dir + "/state", ""));
  p.phys_state = state_word(sysfs::read_or(dir + "/phys_state", ""));
  p.link_layer = sysfs::read_or(dir + "/link_layer", "");
  if (verbs) {
    if (auto it = verbs->find(number); it != verbs->end())
      for (const auto& g : it->second)
        if (!all_zero(g.gid)) p.gids.push_back(g);
    std::sort(p.gids.begin(), p.gids.end(), [](const Gid& a, const Gid& b) { return a.index < b.index; });
    return p;
  }
  // One pass over the table's entries; unused entries read as zeros (or fail) and are skipped.
  for (const auto& name : sysfs::list(dir + "/gids")) {
    int index = std::atoi(name.c_str());
    auto gid = sysfs::read(dir + "/gids/" + name);
    if (!gid || all_zero(*gid)) continue;
    auto type = sysfs::read(dir + "/gid_attrs/types/" + name);
    if (!type) continue;
    p.gids.push_back({index, *gid, *type, sysfs::read_or(dir + "/gid_attrs/ndevs/" + name, "")});
  }
  std::sort(p.gids.begin(), p.gids.end(), [](const Gid& a, const Gid& b) { return a.index < b.index; });
  return p;
}

}  // namespace

std::string hex_groups(const uint8_t* bytes, size_t n) {
  std::string out;
  char buf[5];
  for (size_t i = 0; i + 1 < n; i += 2) {
    std::snprintf(buf, sizeof buf, "%02x%02x", bytes[i], bytes[i + 1]);
    if (!out.empty()) out += ':';
    out += buf;
  }
  return out;
}

Gid verbs_gid(int index, const uint8_t (&raw)[16], bool roce_v2, const std::string& ndev) {
  // The kernel's names for the types (gid_attrs/types): RoCE v1 shares IB's.
  return {index, hex_groups(raw, sizeof raw), roce_v2 ? "RoCE v2" : "IB/RoCE v1", ndev};
}

std::vector<RdmaDevice> rdma_devices() {
  std::vector<RdmaDevice> out;
  std::vector<std::string> paths = scan("infiniband");
  std::optional<VerbsGidTables> verbs;
  if (!paths.empty()) verbs.emplace();
  for (const auto& path : paths) {
    RdmaDevice d;
    d.name = path.substr(path.find_last_of('/') + 1);
    if (auto pci = pci_syspath_of(path)) d.pci = parse_pci_syspath(*pci)->chain.back();
    std::optional<GidTable> gids = verbs->read(d.name, sysfs::read_or(path + "/node_guid", ""));
    for (const auto& port : sysfs::list(path + "/ports")) {
      int n = std::atoi(port.c_str());
      if (n > 0) d.ports.push_back(read_port(path + "/ports/" + port, n, gids ? &*gids : nullptr));
    }
    // The interface: the link-local GID's ndev (physical, never the VLAN), else rxe's parent.
    if (const RdmaPort* p = d.port(1))
      for (const auto& g : p->gids)
        if (!g.ipv4_mapped() && !g.ndev.empty() && g.ndev.find('.') == std::string::npos) {
          d.netdev = g.ndev;
          break;
        }
    if (d.netdev.empty()) d.netdev = sysfs::read_or(path + "/parent", "");
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace railyard::discovery
