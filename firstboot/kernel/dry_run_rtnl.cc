#include "kernel/dry_run_rtnl.h"

#include <algorithm>

namespace railyard {

Outcome<LinkInfo> DryRunRtnl::link(const std::string& name) {
  auto it = created_.find(name);
  Outcome<LinkInfo> l = it != created_.end() ? Outcome<LinkInfo>(it->second) : real_.link(name);
  if (!l.ok()) return l;
  if (auto o = overlay_.find(name); o != overlay_.end()) {
    if (o->second.mtu) l->mtu = *o->second.mtu;
    if (o->second.up) l->up = true;
  }
  return l;
}

Status DryRunRtnl::set_link_up(const std::string& name) {
  log_.push_back("would set " + name + " up");
  overlay_[name].up = true;
  return success();
}

Status DryRunRtnl::set_mtu(const std::string& name, int mtu) {
  log_.push_back("would set MTU " + std::to_string(mtu) + " on " + name);
  overlay_[name].mtu = mtu;
  return success();
}

Status DryRunRtnl::add_vlan(const std::string& parent, const std::string& name, int id) {
  log_.push_back("would add VLAN " + std::to_string(id) + " on " + parent + " as " + name);
  LinkInfo v;
  v.name = name;
  v.vlan_id = id;
  v.parent = parent;
  // A new VLAN device starts with its parent's MTU, as the kernel gives it.
  if (auto p = link(parent); p.ok()) v.mtu = p->mtu;
  created_[name] = v;
  return success();
}

Outcome<std::vector<std::string>> DryRunRtnl::addresses(const std::string& name) {
  std::vector<std::string> out;
  if (!created_.count(name)) {
    auto real = real_.addresses(name);
    if (!real.ok()) return real;
    out = std::move(*real);
  }
  if (auto it = addresses_.find(name); it != addresses_.end())
    for (const auto& a : it->second)
      if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  return Outcome<std::vector<std::string>>(std::move(out));
}

Status DryRunRtnl::add_address(const std::string& name, const std::string& cidr) {
  log_.push_back("would add address " + cidr + " to " + name);
  addresses_[name].push_back(cidr);
  return success();
}

Outcome<std::vector<RouteInfo>> DryRunRtnl::routes(int table) {
  auto out = real_.routes(table);
  if (!out.ok()) return out;
  for (const auto& r : routes_)
    if (r.table == table) out->push_back(r);
  return out;
}

Status DryRunRtnl::add_route(const RouteInfo& route) {
  log_.push_back("would add route " + route.destination + (route.via.empty() ? "" : " via " + route.via) + " dev " +
                 route.dev + (route.source.empty() ? "" : " src " + route.source) + " table " +
                 std::to_string(route.table));
  routes_.push_back(route);
  return success();
}

Outcome<std::vector<RuleInfo>> DryRunRtnl::rules() {
  auto out = real_.rules();
  if (!out.ok()) return out;
  out->insert(out->end(), rules_.begin(), rules_.end());
  return out;
}

Status DryRunRtnl::add_rule(const RuleInfo& rule) {
  log_.push_back("would add rule from " + rule.from + " lookup " + std::to_string(rule.table) + " priority " +
                 std::to_string(rule.priority));
  rules_.push_back(rule);
  return success();
}

Status DryRunRtnl::add_vxlan(const std::string& name, int vni, const std::string& local) {
  log_.push_back("would add VXLAN " + std::to_string(vni) + " from " + local + " as " + name);
  LinkInfo v;
  v.name = name;
  v.vni = vni;
  v.vxlan_local = local;
  v.mtu = 1450;  // the kernel's default for VXLAN over IPv4 without a lower device
  created_[name] = v;
  return success();
}

Outcome<std::vector<std::string>> DryRunRtnl::flood_list(const std::string& name) {
  std::vector<std::string> out;
  if (!created_.count(name)) {
    auto real = real_.flood_list(name);
    if (!real.ok()) return real;
    out = std::move(*real);
  }
  if (auto it = flood_.find(name); it != flood_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  return Outcome<std::vector<std::string>>(std::move(out));
}

Status DryRunRtnl::add_flood(const std::string& name, const std::string& vtep) {
  log_.push_back("would flood " + name + "'s broadcast to " + vtep);
  flood_[name].push_back(vtep);
  return success();
}

}  // namespace railyard
