// Contradictions between recipe keys: caught before anything is built or booted.
#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>

#include "net.h"
#include "slurm.h"
#include "recipe_loader.h"
#include "text.h"
#include "topology.h"

namespace railyard {

namespace {

const std::set<std::string> kDebianSuites{"buster", "bullseye", "bookworm", "trixie", "forky", "sid"};
const std::set<std::string> kUbuntuSuites{"focal", "jammy", "noble", "oracular", "plucky", "questing"};

// Module directories the agent needs: dropping them (or a parent) breaks the fabric.
const std::vector<std::string> kNeededModuleDirs{
    "drivers/net", "drivers/infiniband", "drivers/nvme", "net/8021q", "crypto", "lib", "fs/configfs"};

// Files of packages the booted node cannot do without, as packages ship them (Debian 12 still
// under /lib, later releases under /usr/lib): a path_exclude that drops one is refused.
struct NeededFile {
  const char* path;
  const char* why;
};
const NeededFile kNeededFiles[] = {
    {"/usr/bin/railyard-firstboot", "the first-boot agent"},
    {"/lib/systemd/systemd", "the init system"},
    {"/usr/lib/systemd/systemd", "the init system"},
    {"/lib/udev/hwdb.d/20-pci-vendor-model.hwdb", "the PCI names the agent reports (udev's hwdb)"},
    {"/usr/lib/udev/hwdb.d/20-pci-vendor-model.hwdb", "the PCI names the agent reports (udev's hwdb)"},
    {"/lib/udev/rules.d/80-net-setup-link.rules", "udev's interface names, which rails are planned under"},
    {"/usr/lib/udev/rules.d/80-net-setup-link.rules", "udev's interface names, which rails are planned under"},
    {"/lib/modules/6.1.0-1-amd64/kernel/drivers/infiniband/core/ib_core.ko",
     "kernel modules (image.drop_modules removes module directories)"},
    {"/usr/lib/x86_64-linux-gnu/libc.so.6", "the C library"},
    {"/lib/x86_64-linux-gnu/libc.so.6", "the C library"},
    {"/etc/ld.so.conf", "the dynamic linker's configuration"},
};

// dpkg's rule: of the filters matching a path, the last one decides; includes come after
// the excludes in the configuration the build writes.
bool dpkg_excludes(const ImageSpec& image, const std::string& path, std::size_t* by) {
  bool excluded = false;
  for (std::size_t i = 0; i < image.path_exclude.size(); ++i)
    if (::fnmatch(image.path_exclude[i].c_str(), path.c_str(), 0) == 0 && !excluded) {
      excluded = true;
      *by = i;
    }
  for (const auto& include : image.path_include)
    if (::fnmatch(include.c_str(), path.c_str(), 0) == 0) excluded = false;
  return excluded;
}

class Checker {
 public:
  Checker(const Recipe& r, const schema::Positions& pos, const std::set<std::string>& failed, const std::string& file,
          Diagnostics& d)
      : r_(r), pos_(pos), failed_(failed), file_(file), d_(d) {}

  void run() {
    if (ok({"image"})) image();  // each rule in it guards its own keys
    if (ok({"hardware", "hardware.rails", "hardware.rail_count", "hardware.gpu_count"})) hardware();
    if (ok({"fabric"})) fabric();
    const bool routed = r_.routing.mode == RoutingMode::bgp_unnumbered;
    if (r_.tenant.vni != 0 && !routed && ok({"routing.mode", "tenant.vni"}))
      error("tenant.vni",
            "tenant.vni needs routing.mode = \"bgp-unnumbered\": the VTEPs reach each other over the "
            "routed fabric");
    if (r_.tenant.vni == 0 && (!r_.tenant.flood.empty() || !r_.tenant.isolation_probe.empty()) && ok({"tenant.vni"}))
      error("tenant", "[tenant] without tenant.vni: flood and isolation_probe describe no network");
    if (!ok({"routing.mode"})) {
      // Whether rails are subnets or routed links is unknown: neither set of rules applies.
    } else if (routed) {
      if (ok({"routing.fabric_prefixes", "management.subnet"})) routing();
    } else if (ok({"addressing", "addressing.mode", "addressing.subnets", "addressing.subnet", "hardware.rail_count",
                   "hardware.rails", "management.subnet"})) {
      addressing();
    }
    if (ok({"nvmeof", "hardware.rail_count", "hardware.rails", "addressing.subnets"})) nvmeof();
    if (ok({"fabric.probe.peers", "hardware.rail_count", "hardware.rails", "addressing.subnets"})) probe();
    if (ok({"fabric.topology", "fabric.topology.units", "fabric.lldp.expect_system", "fabric.lldp.expect_port"}))
      topology();
    if (ok({"join", "join.report_url", "join.ca_file", "join.token_file"})) join();
    if (ok({"join.units", "join.slurm", "join.slurm.controller"})) slurm();
  }

 private:
  // [fabric.topology]: each unit's range reads as Slurm reads it, a node is in one unit at
  // most, and {unit} in fabric.lldp has units to stand for.
  void topology() {
    std::map<std::string, std::string> unit_of_node;
    for (const auto& [unit, range] : r_.topology.units) {
      const std::string key = "fabric.topology.units." + unit;
      std::string why;
      auto nodes = expand_hostlist(range, why, 1 << 16);
      if (!nodes) {
        error(key, key + ": " + why + "; allowed: a Slurm host range (\"gpu[001-032]\"), at most 65536 nodes");
        continue;
      }
      for (const auto& n : *nodes) {
        auto [it, fresh] = unit_of_node.emplace(n, unit);
        if (!fresh) {
          error(key, key + ": " + n + " is also in unit " + it->second + "; a node is in one unit at most");
          break;
        }
      }
    }
    if (lldp_names_unit(r_) && r_.topology.units.empty())
      error(r_.lldp.expect_system.find("{unit}") != std::string::npos ? "fabric.lldp.expect_system"
                                                                      : "fabric.lldp.expect_port",
            "fabric.lldp names {unit}, but [fabric.topology] names no units");
  }

  SourcePos at(const std::string& key) const {
    auto it = pos_.find(key);
    if (it != pos_.end()) return it->second;
    auto dot = key.find_last_of('.');  // fall back to the enclosing key, then the file
    if (dot != std::string::npos) return at(key.substr(0, dot));
    auto br = key.find('[');
    if (br != std::string::npos) return at(key.substr(0, br));
    return {file_, 1, 1};
  }
  void error(const std::string& key, const std::string& msg) { d_.error(at(key), msg); }

  // True when none of `keys` (nor a table holding one) was rejected on its own.
  bool ok(std::initializer_list<const char*> keys) const {
    for (const char* k : keys) {
      std::string key(k);
      for (const auto& f : failed_)
        if (key == f || key.rfind(f + ".", 0) == 0 || key.rfind(f + "[", 0) == 0 || f.rfind(key + "[", 0) == 0)
          return false;
    }
    return true;
  }

  void image() {
    const auto& suite = r_.image.suite;
    const bool url = !r_.image.rootfs_url.empty(), sha = !r_.image.rootfs_sha256.empty();
    if (url && !sha && ok({"image.rootfs_sha256"}))
      error("image.rootfs_url", "image.rootfs_url needs image.rootfs_sha256 (the archive's sha256, 64 hex digits)");
    if (sha && !url && ok({"image.rootfs_url"}))
      error("image.rootfs_sha256", "image.rootfs_sha256 is only used with image.rootfs_url");
    if (url && pos_.count("image.mirror") && ok({"image.rootfs_url"}))
      error("image.mirror",
            "image.mirror is not used with image.rootfs_url: the root filesystem's own apt sources "
            "install what it lacks; remove one of them");
    if (r_.image.distro == Distro::debian && kUbuntuSuites.count(suite) && ok({"image.distro", "image.suite"}))
      error("image.suite", "image.suite '" + suite + "' is an Ubuntu release, but image.distro is \"debian\"");
    if (r_.image.distro == Distro::ubuntu && kDebianSuites.count(suite) && ok({"image.distro", "image.suite"}))
      error("image.suite", "image.suite '" + suite + "' is a Debian release, but image.distro is \"ubuntu\"");
    if (r_.image.distro == Distro::ubuntu && r_.image.kernel.rfind("linux-image-amd64", 0) == 0 &&
        ok({"image.distro", "image.kernel"}))
      error("image.kernel",
            "image.kernel 'linux-image-amd64' is Debian's kernel package; Ubuntu's is linux-image-generic");
    for (std::size_t i = 0; i < r_.image.drop_modules.size(); ++i) {
      const std::string dir = normalize_path(r_.image.drop_modules[i]);
      for (const auto& needed : kNeededModuleDirs)
        if (needed == dir || needed.rfind(dir + "/", 0) == 0)
          error("image.drop_modules[" + std::to_string(i) + "]",
                "image.drop_modules: dropping '" + r_.image.drop_modules[i] + "' removes " +
                    (needed == dir ? "modules" : needed + ", modules") +
                    " the first-boot agent needs (NICs, RDMA, NVMe-oF, VLANs, checksums)");
    }
    if (!r_.image.path_include.empty() && r_.image.path_exclude.empty() && ok({"image.path_include"}))
      error("image.path_include",
            "image.path_include only keeps what image.path_exclude drops; image.path_exclude is "
            "empty");
    if (ok({"image.path_exclude", "image.path_include"})) {
      std::set<std::size_t> reported;
      for (const auto& needed : kNeededFiles) {
        std::size_t by = 0;
        if (dpkg_excludes(r_.image, needed.path, &by) && reported.insert(by).second)
          error("image.path_exclude[" + std::to_string(by) + "]",
                "image.path_exclude: '" + r_.image.path_exclude[by] + "' excludes " + needed.path + " (" + needed.why +
                    "); exclude less, or keep it with image.path_include");
      }
    }
    for (const char* list : {"packages", "overlays"}) {
      const auto& v = std::string(list) == "packages" ? r_.image.packages : r_.image.overlays;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (std::find(v.begin(), v.begin() + static_cast<long>(i), v[i]) != v.begin() + static_cast<long>(i))
          error("image." + std::string(list) + "[" + std::to_string(i) + "]",
                "image." + std::string(list) + ": '" + v[i] + "' is listed twice");
    }
  }

  void hardware() {
    const auto& h = r_.hardware;
    if (h.rail_count > 0 && !h.rails.empty() && static_cast<int>(h.rails.size()) != h.rail_count)
      error("hardware.rails", "hardware.rails lists " + std::to_string(h.rails.size()) +
                                  " NICs but hardware.rail_count is " + std::to_string(h.rail_count));
    std::set<std::string> seen;
    for (std::size_t i = 0; i < h.rails.size(); ++i) {
      std::string key = normalize_pci(h.rails[i]).value_or(h.rails[i]);
      if (!seen.insert(key).second)
        error("hardware.rails[" + std::to_string(i) + "]", "hardware.rails: '" + h.rails[i] + "' is listed twice");
    }
    if (h.gpu_count == 0 && !h.gpu_device_ids.empty())
      error("hardware.gpu_device_ids", "hardware.gpu_device_ids is set but hardware.gpu_count is 0");
  }

  void fabric() {
    const auto& f = r_.fabric;
    // Whether Soft-RoCE rails can have PFC and ECN depends on the driver bundles: checked
    // with them (recipe_loader.cc).
    if (f.roce_dscp == f.cnp_dscp && ok({"fabric.roce_dscp", "fabric.cnp_dscp"}))
      error("fabric.cnp_dscp", "fabric.cnp_dscp equals fabric.roce_dscp (" + std::to_string(f.roce_dscp) +
                                   "): congestion notifications would queue behind the traffic they throttle");
    const LeafSpec& l = r_.leaf;
    if (l.ecn_min_kb > l.ecn_max_kb && ok({"fabric.leaf.ecn_min_kb", "fabric.leaf.ecn_max_kb"}))
      error("fabric.leaf.ecn_min_kb", "fabric.leaf.ecn_min_kb " + std::to_string(l.ecn_min_kb) +
                                          " is above ecn_max_kb " + std::to_string(l.ecn_max_kb) +
                                          ": marking would start after it is total");
    int frame = rail_frame_size(f);
    if (l.port_mtu > 0 && l.port_mtu < frame && ok({"fabric.leaf.port_mtu", "fabric.mtu"}))
      error("fabric.leaf.port_mtu", "fabric.leaf.port_mtu " + std::to_string(l.port_mtu) +
                                        " is below the rails' frames (" + std::to_string(f.mtu) + " + 18" +
                                        (f.vlan ? " + 4 for the VLAN tag" : "") + " = " + std::to_string(frame) +
                                        "): the leaf would drop full-size RoCE packets");
    if (f.trust == Trust::pcp && !f.vlan && ok({"fabric.trust", "fabric.vlan"}))
      error("fabric.trust", "fabric.trust = \"pcp\" needs fabric.vlan: untagged frames carry no PCP bits");
  }

  void addressing() {
    const auto& a = r_.addressing;
    int rails = fixed_rail_count(r_);
    std::vector<std::pair<Cidr, std::string>> nets;  // subnet, key
    if (a.mode == AddressingMode::per_rail_subnet) {
      if (!a.subnet.empty())
        error("addressing.subnet",
              "addressing.subnet is for mode = \"shared-subnet\"; per-rail-subnet uses addressing.subnets");
      if (a.subnets.empty())
        error("addressing",
              "addressing.subnets is empty: RoCE v2 needs an IPv4 address on every rail; give one "
              "subnet per rail");
      else if (rails > 0 && static_cast<int>(a.subnets.size()) != rails)
        error("addressing.subnets", "addressing.subnets has " + std::to_string(a.subnets.size()) + " subnets for " +
                                        std::to_string(rails) + " rails; give exactly one per rail");
      for (std::size_t i = 0; i < a.subnets.size(); ++i)
        if (auto c = parse_cidr(a.subnets[i])) nets.push_back({*c, "addressing.subnets[" + std::to_string(i) + "]"});
    } else {
      if (!a.subnets.empty())
        error("addressing.subnets",
              "addressing.subnets is for mode = \"per-rail-subnet\"; shared-subnet uses addressing.subnet");
      if (a.subnet.empty()) error("addressing", "mode = \"shared-subnet\" needs addressing.subnet");
      else if (auto c = parse_cidr(a.subnet)) nets.push_back({*c, "addressing.subnet"});
      // Rail N uses table table_base + N; 253–255 are the kernel's default, main and local tables.
      if (a.table_base + std::max(rails, 1) - 1 > 252)
        error("addressing.table_base", "addressing.table_base " + std::to_string(a.table_base) + " with " +
                                           std::to_string(std::max(rails, 1)) +
                                           " rail(s) reaches the kernel's reserved tables (253–255)");
    }
    for (std::size_t i = 0; i < nets.size(); ++i) {
      if (nets[i].first.prefix > 31)
        error(nets[i].second,
              nets[i].second + ": " + nets[i].first.str() + " has room for no host; use /31 or shorter");
      for (std::size_t j = 0; j < i; ++j)
        if (nets[i].first.overlaps(nets[j].first))
          error(nets[i].second, nets[i].second + ": " + nets[i].first.str() + " overlaps " + nets[j].second + " (" +
                                    nets[j].first.str() + "); every rail needs its own subnet");
    }
    if (auto m = parse_cidr(r_.management.subnet))
      for (const auto& [net, key] : nets)
        if (net.overlaps(*m))
          error(key, key + ": " + net.str() + " overlaps the management subnet " + m->str() +
                         "; rails must never be on the management network");
  }

  // Routed rails: no subnet is shared with a leaf's other nodes, so [addressing]'s subnets
  // have nothing to describe; what the rails carry is routing.fabric_prefixes.
  void routing() {
    const auto& a = r_.addressing;
    const auto& g = r_.routing;
    const std::string why =
        " is not used with routing.mode = \"bgp-unnumbered\": a routed rail's address is a /32 "
        "inside routing.fabric_prefixes; remove it";
    if (!a.subnets.empty() && ok({"addressing.subnets"})) error("addressing.subnets", "addressing.subnets" + why);
    if (!a.subnet.empty() && ok({"addressing.subnet"})) error("addressing.subnet", "addressing.subnet" + why);
    const auto& pk = r_.image.packages;
    if (r_.image.rootfs_url.empty() && std::find(pk.begin(), pk.end(), "frr") == pk.end() && ok({"image.packages"}))
      error("routing.mode",
            "routing.mode = \"bgp-unnumbered\" needs FRR's bgpd on the node: add \"frr\" to image.packages");
    if (g.fabric_prefixes.empty())
      error("routing",
            "routing.mode = \"bgp-unnumbered\" needs routing.fabric_prefixes: the prefixes the rails "
            "carry, the only ones accepted from a leaf");
    std::vector<Cidr> nets;
    for (std::size_t i = 0; i < g.fabric_prefixes.size(); ++i) {
      std::string key = "routing.fabric_prefixes[" + std::to_string(i) + "]";
      auto c = parse_cidr(g.fabric_prefixes[i]);
      if (!c) continue;
      if (c->prefix < 8)
        error(key, key + ": " + c->str() +
                       " is wider than a /8: a fabric prefix that wide takes in the management "
                       "network and the default route's destinations");
      for (std::size_t j = 0; j < nets.size(); ++j)
        if (c->overlaps(nets[j]))
          error(key, key + ": " + c->str() + " overlaps routing.fabric_prefixes[" + std::to_string(j) + "] (" +
                         nets[j].str() + ")");
      if (auto m = parse_cidr(r_.management.subnet); m && c->overlaps(*m))
        error(key, key + ": " + c->str() + " overlaps the management subnet " + m->str() +
                       "; rails must never be on the management network");
      nets.push_back(*c);
    }
    int rails = std::max(fixed_rail_count(r_), 1);
    // Rail r's leaf is AS leaf_asn + r: every one of them a usable AS.
    if (g.leaf_asn != 0 && ok({"routing.leaf_asn", "hardware.rail_count", "hardware.rails"}))
      for (int r = 0; r < rails; ++r)
        if (auto e = check_asn(g.leaf_asn + r)) {
          error("routing.leaf_asn", "routing.leaf_asn: rail " + std::to_string(r) + "'s leaf would be AS " +
                                        std::to_string(g.leaf_asn + r) + ": " + *e);
          break;
        }
    if (g.leaf_asn != 0 && g.node_asn >= g.leaf_asn && g.node_asn < g.leaf_asn + rails &&
        ok({"routing.leaf_asn", "routing.node_asn"}))
      error("routing.node_asn", "routing.node_asn " + std::to_string(g.node_asn) +
                                    " is a leaf's AS (leaf_asn + rail): the sessions would be internal BGP, which "
                                    "the nodes' remote-as external refuses");
    if (a.table_base + rails - 1 > 252 && ok({"addressing.table_base", "hardware.rail_count", "hardware.rails"}))
      error("addressing.table_base", "addressing.table_base " + std::to_string(a.table_base) + " with " +
                                         std::to_string(rails) +
                                         " rail(s) reaches the kernel's reserved tables (253–255)");
    const TenantSpec& t = r_.tenant;
    for (std::size_t i = 0; i < t.flood.size(); ++i) {
      auto ip = parse_ipv4(t.flood[i]);
      bool inside = false;
      for (const auto& n : nets) inside = inside || (ip && n.contains(*ip));
      if (ip && !nets.empty() && !inside && ok({"tenant.flood"}))
        error("tenant.flood[" + std::to_string(i) + "]", "tenant.flood[" + std::to_string(i) + "]: " + t.flood[i] +
                                                             " is outside routing.fabric_prefixes: no leaf routes it");
    }
    if (t.vni != 0 && t.mtu > r_.fabric.mtu - 50 && ok({"tenant.mtu", "fabric.mtu"}))
      error("tenant.mtu", "tenant.mtu " + std::to_string(t.mtu) + " does not fit in the rails' MTU " +
                              std::to_string(r_.fabric.mtu) + " with the 50 bytes of VXLAN over IPv4 (at most " +
                              std::to_string(r_.fabric.mtu - 50) + ")");
    if (ok({"nvmeof"}))
      for (std::size_t i = 0; i < r_.nvmeof.size(); ++i) {
        auto ip = parse_ipv4(r_.nvmeof[i].address);
        bool inside = false;
        for (const auto& n : nets) inside = inside || (ip && n.contains(*ip));
        if (ip && !nets.empty() && !inside)
          error("nvmeof[" + std::to_string(i) + "].address",
                "nvmeof[" + std::to_string(i) + "].address: " + r_.nvmeof[i].address +
                    " is outside routing.fabric_prefixes: the rail's table would not route it to the leaf");
      }
  }

  void nvmeof() {
    int rails = fixed_rail_count(r_);
    if (rails == 0 && r_.addressing.mode == AddressingMode::per_rail_subnet)
      rails = static_cast<int>(r_.addressing.subnets.size());
    for (std::size_t i = 0; i < r_.nvmeof.size(); ++i) {
      const auto& t = r_.nvmeof[i];
      std::string key = "nvmeof[" + std::to_string(i) + "]";
      if (rails > 0 && t.rail >= rails)
        error(key + ".rail", key + ".rail: rail " + std::to_string(t.rail) + " does not exist; the recipe has " +
                                 std::to_string(rails) + " rails (0–" + std::to_string(rails - 1) + ")");
      for (std::size_t j = 0; j < i; ++j) {
        const auto& o = r_.nvmeof[j];
        if (o.address == t.address && o.port == t.port && o.nqn == t.nqn)
          error(key, key + " repeats nvmeof[" + std::to_string(j) + "] (same address, port and NQN)");
      }
    }
  }

  // A reference per rail, in rail order: as many as the rails, each inside its rail's subnet
  // on layer-2 rails (a probe never leaves its rail).
  void probe() {
    const auto& peers = r_.probe.peers;
    if (peers.empty()) return;
    int rails = fixed_rail_count(r_);
    if (rails == 0 && r_.addressing.mode == AddressingMode::per_rail_subnet)
      rails = static_cast<int>(r_.addressing.subnets.size());
    if (rails > 0 && static_cast<int>(peers.size()) != rails)
      error("fabric.probe.peers", "fabric.probe.peers has " + std::to_string(peers.size()) + " addresses for " +
                                      std::to_string(rails) +
                                      " rails: give one per rail, in rail order (\"\" for a "
                                      "rail without a reference)");
    if (r_.routing.mode != RoutingMode::l2 || r_.addressing.mode != AddressingMode::per_rail_subnet) return;
    for (std::size_t i = 0; i < peers.size() && i < r_.addressing.subnets.size(); ++i) {
      auto net = parse_cidr(r_.addressing.subnets[i]);
      auto a = parse_ipv4(peers[i]);
      if (net && a && !net->contains(*a))
        error("fabric.probe.peers[" + std::to_string(i) + "]",
              "fabric.probe.peers[" + std::to_string(i) + "]: " + peers[i] + " is outside rail " + std::to_string(i) +
                  "'s subnet " + r_.addressing.subnets[i] + ": a probe never leaves its rail");
    }
  }

  void join() {
    const auto& j = r_.join;
    bool https = j.report_url.rfind("https://", 0) == 0;
    if (!j.ca_file.empty() && !https) error("join.ca_file", "join.ca_file is set but join.report_url is not https://");
    if (!j.token_file.empty() && !https && !j.report_url.empty() && !is_loopback(j.report_url))
      error("join.token_file", "join.token_file would send a bearer token in clear text over http://; use https://");
    if (!j.token_file.empty() && j.report_url.empty())
      error("join.token_file", "join.token_file is set but there is no join.report_url");
  }

  void slurm() {
    const auto& u = r_.join.units;
    if (!r_.slurm.controller.empty() && std::find(u.begin(), u.end(), kSlurmdUnit) == u.end())
      error("join.slurm.controller", "join.slurm.controller is set but join.units does not start " +
                                         std::string(kSlurmdUnit) +
                                         ": add it, so that slurmd starts only after a pass");
  }

  // The URL's host is this machine: a token sent there never crosses a wire.
  static bool is_loopback(const std::string& url) {
    auto scheme = url.find("://");
    if (scheme == std::string::npos) return false;
    std::string rest = url.substr(scheme + 3);
    auto at = rest.find_first_of("/?#");
    std::string authority = rest.substr(0, at);
    if (authority.rfind("[::1]", 0) == 0) return authority.size() == 5 || authority[5] == ':';
    std::string host = authority.substr(0, authority.find(':'));
    if (host == "localhost") return true;
    auto ip = parse_ipv4(host);
    return ip && (ip->value >> 24) == 127;
  }

  const Recipe& r_;
  const schema::Positions& pos_;
  const std::set<std::string>& failed_;
  const std::string& file_;
  Diagnostics& d_;
};

}  // namespace

void validate_recipe(const Recipe& r, const schema::Positions& pos, const std::set<std::string>& failed,
                     const std::string& file, Diagnostics& diags) {
  Checker(r, pos, failed, file, diags).run();
}

}  // namespace railyard
