// Rail routing. Shared-subnet rails get source policy routing (the subnet route in the rail's
// own table, a rule sending the rail's address there), or replies leave by the wrong NIC.
// Per-rail subnets need nothing: the connected route comes with the address. No rail may
// carry a default route; one found is reported, not deleted (verify fails on it as well).
#include "objects/routing.h"

#include <optional>

#include "net.h"
#include "verify/result.h"

namespace railyard {

namespace {

constexpr int kMainTable = 254;
constexpr int kRulePriorityBase = 1000;

std::string route_text(const RouteInfo& r) {
  return r.destination + " dev " + r.dev + (r.source.empty() ? "" : " src " + r.source) + " table " +
         std::to_string(r.table);
}

std::string rule_text(const RuleInfo& r) {
  return "from " + r.from + " lookup " + std::to_string(r.table) + " priority " + std::to_string(r.priority);
}

void policy_route(const RailPlan& rail, const InterfaceAddress& address, Kernel& kernel, std::vector<Change>& out) {
  std::string label = rail_label(rail);
  RouteInfo want{address.subnet().str(), rail.netdev, address.address.str(), *rail.table};
  std::string object = label + ": route " + want.destination + " table " + std::to_string(want.table);
  auto routes = kernel.rtnl.routes(want.table);
  if (!routes.ok()) {
    out.push_back({object, ChangeOutcome::failed, "", route_text(want), routes.error()});
  } else {
    const RouteInfo* found = nullptr;
    for (const auto& r : *routes)
      if (r.destination == want.destination) found = &r;
    if (!found)
      out.push_back(change_from(object, kernel.rtnl.add_route(want), "none", route_text(want)));
    else if (found->dev == want.dev && found->source == want.source)
      out.push_back({object, ChangeOutcome::unchanged, route_text(*found), route_text(want), ""});
    else
      out.push_back({object, ChangeOutcome::failed, route_text(*found), route_text(want),
                     "table " + std::to_string(want.table) + " already routes " + want.destination +
                         " otherwise; not modified"});
  }
}

void policy_rule(const RailPlan& rail, const InterfaceAddress& address, const Outcome<std::vector<RuleInfo>>& rules,
                 Kernel& kernel, std::vector<Change>& out) {
  RuleInfo want{kRulePriorityBase + rail.index, address.address.str() + "/32", *rail.table};
  std::string object = rail_label(rail) + ": rule from " + want.from;
  if (!rules.ok()) {
    out.push_back({object, ChangeOutcome::failed, "", rule_text(want), rules.error()});
    return;
  }
  for (const auto& r : *rules)
    if (r.from == want.from && r.table == want.table) {
      // The same rule at another priority still does the job; adding ours would duplicate it.
      out.push_back({object, ChangeOutcome::unchanged, rule_text(r), rule_text(want),
                     r.priority == want.priority ? "" : "present at priority " + std::to_string(r.priority)});
      return;
    }
  out.push_back(change_from(object, kernel.rtnl.add_rule(want), "none", rule_text(want)));
}

// A default route in `routes` that leaves by the rail's netdev or its interface.
const RouteInfo* default_route_via(const std::vector<RouteInfo>& routes, const RailPlan& rail) {
  for (const auto& r : routes)
    if (r.destination == "default" && (r.dev == rail.netdev || r.dev == rail.ifname)) return &r;
  return nullptr;
}

void no_default_route(const RailPlan& rail, const Outcome<std::vector<RouteInfo>>& main, std::vector<Change>& out) {
  std::string object = rail_label(rail) + ": default route";
  if (!main.ok()) {
    out.push_back({object, ChangeOutcome::failed, "", "none", main.error()});
    return;
  }
  if (const RouteInfo* r = default_route_via(*main, rail)) {
    out.push_back({object, ChangeOutcome::failed, "default dev " + r->dev, "none",
                   "default route via " + r->dev + " on a rail"});
    return;
  }
  out.push_back({object, ChangeOutcome::unchanged, "none", "none", ""});
}

}  // namespace

void apply_routing(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  if (plan.rails.empty()) return;
  auto main = kernel.rtnl.routes(kMainTable);
  std::optional<Outcome<std::vector<RuleInfo>>> rules;  // read once, only when some rail needs rules
  for (const auto& rail : plan.rails) {
    if (rail.table && rail.address) {
      if (auto address = parse_interface_address(*rail.address)) {
        policy_route(rail, *address, kernel, out);
        if (!rules) rules = kernel.rtnl.rules();
        policy_rule(rail, *address, *rules, kernel, out);
      } else {
        out.push_back({rail_label(rail) + ": policy routing", ChangeOutcome::failed, "", *rail.address,
                       "not an IPv4 address with prefix"});
      }
    }
    no_default_route(rail, main, out);
  }
}

void verify_no_default_route(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto routes = ctx.kernel.rtnl.routes(kMainTable);
  if (!routes.ok()) {
    checks::from_status(r, routes.status());
    return;
  }
  if (const RouteInfo* d = default_route_via(*routes, rail)) {
    checks::fail(r, "default route via " + d->dev, "rails must never carry a default route (DHCP on a rail?)");
    return;
  }
  checks::pass(r, "none via " + rail.netdev);
}

}  // namespace railyard
