#include "frr.h"

#include <map>
#include <set>
#include <sstream>

#include "net.h"

namespace railyard {

namespace {

// Router advertisements carry the link-local address each end of an unnumbered session
// learns its peer by: every 3 s, so that a session comes up within seconds of the link.
// A lifetime of 0 says "not a default router": neither end installs an IPv6 default route
// via the other (the node ignores RAs on rails anyway: accept_ra = 0).
void rail_interface(std::ostringstream& out, const std::string& ifname) {
  out << "interface " << ifname << "\n"
      << " ipv6 nd ra-interval 3\n"
      << " ipv6 nd ra-lifetime 0\n"
      << " no ipv6 nd suppress-ra\n"
      << "exit\n";
}

void fabric_list(std::ostringstream& out, const std::vector<std::string>& prefixes) {
  out << "ip prefix-list " << kFrrFabricList << " seq 5 deny 0.0.0.0/0\n";
  int seq = 10;
  for (const auto& p : prefixes) {
    out << "ip prefix-list " << kFrrFabricList << " seq " << seq << " permit " << p << " le 32\n";
    seq += 10;
  }
}

std::string address_only(const std::string& cidr) { return cidr.substr(0, cidr.find('/')); }

std::string node_config(const Plan& plan) {
  const BgpPlan& bgp = *plan.bgp;
  std::ostringstream out;
  out << "! railyard-firstboot: this node's routed rails (recipe " << plan.recipe
      << "), written at every boot from the plan.\n"
      << "frr defaults datacenter\n";
  if (!plan.node.empty()) out << "hostname " << plan.node << "\n";
  out << "log syslog informational\n"
      << "service integrated-vtysh-config\n"
      << "!\n";
  int seq = 10;
  for (const auto& r : plan.rails)
    if (r.address) {
      out << "ip prefix-list RAILYARD-OWN seq " << seq << " permit " << address_only(*r.address) << "/32\n";
      seq += 10;
    }
  // The tenant network's VTEP: reached over every rail.
  if (plan.tenant) out << "ip prefix-list RAILYARD-OWN seq " << seq << " permit " << plan.tenant->vtep << "/32\n";
  fabric_list(out, bgp.fabric_prefixes);
  out << "!\n"
      << "route-map RAILYARD-IN permit 10\n"
      << " match ip address prefix-list " << kFrrFabricList << "\n"
      << "exit\n"
      << "route-map RAILYARD-OUT permit 10\n"
      << " match ip address prefix-list RAILYARD-OWN\n"
      << "exit\n"
      << "!\n";
  for (const auto& r : plan.rails) rail_interface(out, r.netdev);
  out << "!\n"
      << "router bgp " << bgp.asn << "\n"
      << " bgp router-id " << bgp.router_id
      << "\n"
      // The same fabric route learned from several leaves is one ECMP route, whatever their ASes.
      << " bgp bestpath as-path multipath-relax\n";
  for (const auto& r : plan.rails) out << " neighbor " << r.netdev << " interface remote-as external\n";
  out << " !\n"
      << " address-family ipv4 unicast\n";
  for (const auto& r : plan.rails)
    if (r.address) out << "  network " << address_only(*r.address) << "/32\n";
  if (plan.tenant) out << "  network " << plan.tenant->vtep << "/32\n";
  for (const auto& r : plan.rails) {
    out << "  neighbor " << r.netdev << " route-map RAILYARD-IN in\n"
        << "  neighbor " << r.netdev << " route-map RAILYARD-OUT out\n";
    // Nodes sharing an AS (the recipe's, or an inventory giving one twice): another node's
    // rail address carries this AS as its origin. Without a shared AS it changes nothing.
    out << "  neighbor " << r.netdev << " allowas-in origin\n";
  }
  out << " exit-address-family\n"
      << "exit\n";
  return out.str();
}

// bgpd alone beside zebra (which always runs); the options are Debian's defaults but
// watchfrr's restart timeout. watchfrr starts each daemon, then pushes its part of frr.conf
// to it (vtysh -b), in one background job it kills after the timeout, 20 s by default: on a
// node whose first boot is slow (many rails, a loaded CPU, the lab under emulation) the kill
// came after bgpd was up and before its configuration reached it, and bgpd ran with no
// neighbour. 90 s is watchfrr's own limit for a daemon that does not answer.
std::string daemons() {
  return "# railyard-firstboot: FRR's daemons for this node's routed rails, written at every boot.\n"
         "bgpd=yes\n"
         "ospfd=no\n"
         "ospf6d=no\n"
         "ripd=no\n"
         "ripngd=no\n"
         "isisd=no\n"
         "pimd=no\n"
         "ldpd=no\n"
         "nhrpd=no\n"
         "eigrpd=no\n"
         "babeld=no\n"
         "sharpd=no\n"
         "pbrd=no\n"
         "bfdd=no\n"
         "fabricd=no\n"
         "vrrpd=no\n"
         "pathd=no\n"
         "vtysh_enable=yes\n"
         "zebra_options=\"  -A 127.0.0.1 -s 90000000\"\n"
         "bgpd_options=\"   -A 127.0.0.1\"\n"
         "watchfrr_options=\"--restart-timeout 90\"\n";
}

}  // namespace

std::vector<PlannedFile> frr_node_files(const Plan& plan) {
  if (!plan.bgp) return {};
  // Readable by the frr user the daemons run as (the agent writes them as root); they hold
  // no secret.
  return {{kFrrConfigPath, 0644, node_config(plan)}, {kFrrDaemonsPath, 0644, daemons()}};
}

std::int64_t node_asn(const NodeEntry& node, const Recipe& recipe) {
  return node.asn != 0 ? node.asn : recipe.routing.node_asn;
}

std::int64_t leaf_asn(const LeafIntent& leaf, const Recipe& recipe) {
  if (recipe.routing.leaf_asn == 0) return 0;
  return recipe.routing.leaf_asn + (leaf.rails.empty() ? 0 : leaf.rails.front());
}

std::string router_id_of(std::int64_t asn) { return Ipv4{static_cast<std::uint32_t>(asn)}.str(); }

std::string frr_leaf_config(const LeafIntent& leaf, const Recipe& recipe) {
  std::int64_t asn = leaf_asn(leaf, recipe);
  if (recipe.routing.mode != RoutingMode::bgp_unnumbered || asn == 0) return "";
  std::string name = leaf.name.empty() ? leaf.file.substr(0, leaf.file.rfind('.')) : leaf.name;
  std::ostringstream out;
  out << "! railyard fabric leaf-config: leaf " << name << " (rails";
  for (int r : leaf.rails) out << " " << r;
  out << ") of recipe " << recipe.name << ".\n"
      << "frr defaults datacenter\n"
      << "hostname " << name << "\n"
      << "log syslog informational\n"
      << "service integrated-vtysh-config\n"
      << "!\n";
  fabric_list(out, recipe.routing.fabric_prefixes);
  // Each port accepts only its node's own rail address: a node cannot announce another's.
  int n = 0;
  std::vector<std::pair<const LeafPort*, int>> ports;
  for (const auto& p : leaf.ports) {
    if (p.port.empty()) continue;  // plan_leaves refuses routed leaves with unnamed ports
    ports.push_back({&p, n});
    if (!p.node_address.empty())
      out << "ip prefix-list RAILYARD-NODE" << n << " seq 10 permit " << address_only(p.node_address) << "/32\n";
    if (!p.vtep.empty()) out << "ip prefix-list RAILYARD-NODE" << n << " seq 20 permit " << p.vtep << "/32\n";
    if (p.node_address.empty() && p.vtep.empty()) out << "ip prefix-list RAILYARD-NODE" << n << " seq 10 deny any\n";
    ++n;
  }
  out << "!\n";
  for (const auto& [p, i] : ports)
    out << "route-map RAILYARD-FROM-NODE" << i << " permit 10\n"
        << " match ip address prefix-list RAILYARD-NODE" << i << "\n"
        << "exit\n";
  out << "route-map RAILYARD-TO-NODES permit 10\n"
      << " match ip address prefix-list " << kFrrFabricList << "\n"
      << "exit\n"
      << "!\n";
  for (const auto& [p, i] : ports) rail_interface(out, p->port);
  out << "!\n"
      << "router bgp " << asn << "\n"
      << " bgp router-id " << router_id_of(asn) << "\n"
      << " bgp bestpath as-path multipath-relax\n";
  for (const auto& [p, i] : ports) {
    out << " neighbor " << p->port << " interface remote-as " << p->remote_as << "\n"
        << " neighbor " << p->port << " description " << p->node << " rail " << p->rail << "\n";
  }
  out << " !\n"
      << " address-family ipv4 unicast\n";
  for (const auto& [p, i] : ports)
    out << "  neighbor " << p->port << " route-map RAILYARD-FROM-NODE" << i << " in\n"
        << "  neighbor " << p->port << " route-map RAILYARD-TO-NODES out\n";
  out << " exit-address-family\n"
      << "exit\n";
  return out.str();
}

}  // namespace railyard
