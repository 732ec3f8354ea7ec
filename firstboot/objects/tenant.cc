#include "objects/tenant.h"

#include <algorithm>

#include "text.h"
#include "objects/result.h"

namespace railyard {

namespace {

constexpr int kProbeTimeoutMs = 2000;

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void address_on(const std::string& dev, const std::string& cidr, const std::string& object, Kernel& kernel,
                std::vector<Change>& out) {
  auto current = kernel.rtnl.addresses(dev);
  if (!current.ok()) out.push_back({object, ChangeOutcome::failed, "", cidr, current.error()});
  else if (has(*current, cidr)) out.push_back({object, ChangeOutcome::unchanged, cidr, cidr, ""});
  else out.push_back(change_from(object, kernel.rtnl.add_address(dev, cidr), join(*current, ", "), cidr));
}

std::string vxlan_text(const LinkInfo& l) {
  return "VNI " + (l.vni ? std::to_string(*l.vni) : std::string("none")) + " from " +
         (l.vxlan_local.empty() ? std::string("any") : l.vxlan_local);
}

}  // namespace

void apply_tenant(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  if (!plan.tenant) return;
  const TenantPlan& t = *plan.tenant;
  const std::string tenant = "tenant " + std::to_string(t.vni);
  address_on("lo", t.vtep + "/32", tenant + ": VTEP " + t.vtep + " on lo", kernel, out);

  const std::string want = "VNI " + std::to_string(t.vni) + " from " + t.vtep;
  auto link = kernel.rtnl.link(t.vxlan);
  if (!link.ok() && link.code() == ENODEV) {
    Change c = change_from(tenant + ": " + t.vxlan, kernel.rtnl.add_vxlan(t.vxlan, t.vni, t.vtep), "none", want);
    out.push_back(c);
    if (c.outcome == ChangeOutcome::failed) return;
    link = kernel.rtnl.link(t.vxlan);
  } else if (link.ok() && (link->vni != t.vni || link->vxlan_local != t.vtep)) {
    out.push_back({tenant + ": " + t.vxlan, ChangeOutcome::failed, vxlan_text(*link), want,
                   t.vxlan + " exists otherwise; not modified"});
    return;
  } else if (link.ok()) {
    out.push_back({tenant + ": " + t.vxlan, ChangeOutcome::unchanged, want, want, ""});
  }
  if (!link.ok()) {
    out.push_back({tenant + ": " + t.vxlan, ChangeOutcome::failed, "", want, link.error()});
    return;
  }
  const std::string mtu = std::to_string(t.mtu);
  if (link->mtu == t.mtu) out.push_back({tenant + ": MTU", ChangeOutcome::unchanged, mtu, mtu, ""});
  else
    out.push_back(change_from(tenant + ": MTU", kernel.rtnl.set_mtu(t.vxlan, t.mtu), std::to_string(link->mtu), mtu));
  if (link->up) out.push_back({tenant + ": link", ChangeOutcome::unchanged, "up", "up", ""});
  else out.push_back(change_from(tenant + ": link", kernel.rtnl.set_link_up(t.vxlan), "down", "up"));
  address_on(t.vxlan, t.address, tenant + ": address on " + t.vxlan, kernel, out);
  // The tenant segment must learn nothing of the fabric: ARP answered only for the device's
  // own address, never for a rail address or the VTEP.
  for (const auto& [key, value] : {std::pair{"arp_ignore", "1"}, std::pair{"arp_announce", "2"}}) {
    std::string path = "/proc/sys/net/ipv4/conf/" + t.vxlan + "/" + key;
    std::string object = tenant + ": sysctl " + key + " on " + t.vxlan;
    auto current = kernel.host.files.read_file(path);
    if (current.ok() && *current == value) out.push_back({object, ChangeOutcome::unchanged, value, value, ""});
    else
      out.push_back(
          change_from(object, kernel.host.files.write_file(path, value), current.ok() ? *current : "", value));
  }

  auto flood = kernel.rtnl.flood_list(t.vxlan);
  for (const auto& vtep : t.flood) {
    std::string object = tenant + ": flood to " + vtep;
    if (!flood.ok()) out.push_back({object, ChangeOutcome::failed, "", vtep, flood.error()});
    else if (has(*flood, vtep)) out.push_back({object, ChangeOutcome::unchanged, vtep, vtep, ""});
    else out.push_back(change_from(object, kernel.rtnl.add_flood(t.vxlan, vtep), "none", vtep));
  }
}

void verify_tenant_vxlan(const VerifyContext& ctx, CheckResult& r) {
  const TenantPlan& t = *ctx.plan.tenant;
  auto link = ctx.kernel.rtnl.link(t.vxlan);
  if (!link.ok()) {
    checks::fail(r, "no " + t.vxlan, link.error());
    return;
  }
  auto addrs = ctx.kernel.rtnl.addresses(t.vxlan);
  std::string observed = t.vxlan + (link->up ? " up" : " down") + ", " + vxlan_text(*link) + ", " +
                         (addrs.ok() && !addrs->empty() ? join(*addrs, ", ") : std::string("no address"));
  std::vector<std::string> wrong;
  if (!link->up) wrong.push_back("the device is down");
  if (link->vni != t.vni) wrong.push_back("another VNI: this node would join another tenant's segment");
  if (link->vxlan_local != t.vtep) wrong.push_back("another VTEP address");
  if (!addrs.ok() || !has(*addrs, t.address)) wrong.push_back("the tenant address " + t.address + " is missing");
  if (wrong.empty()) checks::pass(r, observed);
  else checks::fail(r, observed, join(wrong, "; "));
}

void verify_tenant_vtep(const VerifyContext& ctx, CheckResult& r) {
  const TenantPlan& t = *ctx.plan.tenant;
  auto flood = ctx.kernel.rtnl.flood_list(t.vxlan);
  if (!flood.ok()) {
    checks::from_status(r, flood.status());
    return;
  }
  std::vector<std::string> seen, wrong;
  for (const auto& vtep : t.flood) {
    if (!has(*flood, vtep)) {
      wrong.push_back(vtep + " is not in " + t.vxlan + "'s flood list");
      continue;
    }
    // The remote VTEP must be routed over the rails, which BGP learned it on.
    auto route = ctx.kernel.rtnl.route_get(vtep, t.vtep);
    if (!route.ok()) {
      seen.push_back(vtep + " unreachable");
      wrong.push_back(vtep + ": " + route.error() + " (its /32 not learned over BGP?)");
      continue;
    }
    bool on_rail = std::any_of(ctx.plan.rails.begin(), ctx.plan.rails.end(),
                               [&](const RailPlan& rail) { return rail.netdev == route->dev; });
    seen.push_back(vtep + " via " + route->dev);
    if (!on_rail) wrong.push_back(vtep + " leaves by " + route->dev + ", not a rail");
  }
  if (wrong.empty()) checks::pass(r, join(seen, ", "));
  else checks::fail(r, seen.empty() ? "none" : join(seen, ", "), join(wrong, "; "));
}

void verify_tenant_isolation(const VerifyContext& ctx, CheckResult& r) {
  const TenantPlan& t = *ctx.plan.tenant;
  std::string from = t.address.substr(0, t.address.find('/'));
  auto answered = ctx.kernel.host.icmp.echo(from, t.isolation_probe, kProbeTimeoutMs);
  if (!answered.ok()) {
    checks::fail(r, "not probed", answered.error());
    return;
  }
  if (*answered) {
    checks::fail(r, t.isolation_probe + " answered from " + from,
                 "an address of another VNI is reachable from this tenant: the VNIs are bridged or routed together "
                 "somewhere (a VTEP with both, a leaf leaking between them)");
    return;
  }
  checks::pass(r, "no answer from " + t.isolation_probe + " within " + std::to_string(kProbeTimeoutMs / 1000) + " s");
}

}  // namespace railyard
