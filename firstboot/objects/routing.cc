// Rail routing. Shared-subnet rails get source policy routing (the subnet route in the rail's
// own table, a rule sending the rail's address there), or replies leave by the wrong NIC.
// Per-rail subnets need nothing: the connected route comes with the address. No rail may
// carry a default route; one found is reported, not deleted (verify fails on it as well).
#include "objects/routing.h"

#include <map>
#include <optional>

#include "net.h"
#include "text.h"
#include "objects/result.h"

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
  RouteInfo want{address.subnet().str(), rail.netdev, address.address.str(), *rail.table, ""};
  std::string object = label + ": route " + want.destination + " table " + std::to_string(want.table);
  auto routes = kernel.rtnl.routes(want.table);
  if (!routes.ok()) {
    out.push_back({object, ChangeOutcome::failed, "", route_text(want), routes.error()});
  } else {
    const RouteInfo* found = nullptr;
    for (const auto& r : *routes)
      if (r.destination == want.destination) found = &r;
    if (!found) out.push_back(change_from(object, kernel.rtnl.add_route(want), "none", route_text(want)));
    else if (found->dev == want.dev && found->source == want.source)
      out.push_back({object, ChangeOutcome::unchanged, route_text(*found), route_text(want), ""});
    else
      out.push_back(
          {object, ChangeOutcome::failed, route_text(*found), route_text(want),
           "table " + std::to_string(want.table) + " already routes " + want.destination + " otherwise; not modified"});
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
    out.push_back(
        {object, ChangeOutcome::failed, "default dev " + r->dev, "none", "default route via " + r->dev + " on a rail"});
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
        // A routed rail's table gets its routes once its leaf is known (apply_rail_tables).
        if (!plan.bgp) policy_route(rail, *address, kernel, out);
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

BgpBringUp bring_up_bgp(const Plan& plan, Bgp& bgp, Clock& clock, bool config_changed) {
  BgpBringUp out;
  if (!plan.bgp) return out;
  auto start = clock.now();
  auto deadline = start + std::chrono::seconds(plan.bgp->session_wait_s);
  auto waited = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - start).count(); };
  if (Status s = bgp.start(config_changed); !s.ok()) {
    out.error = s.error();
    return out;
  }
  // A leaf's NOTIFICATION shows only until the session's next reset: kept from every poll,
  // so that the checks can say why the leaf refused the session however it cycles.
  std::map<std::string, std::string> notified;
  auto remember = [&] {
    for (auto& s : out.sessions) {
      if (!s.notification.empty()) notified[s.interface] = s.notification;
      else if (auto it = notified.find(s.interface); it != notified.end()) s.notification = it->second;
    }
  };
  for (;;) {
    auto sessions = bgp.sessions();
    if (sessions.ok()) {
      out.sessions = *sessions;
      remember();
      out.error.clear();
      bool up = true;
      for (const auto& rail : plan.rails) {
        const BgpSession* s = session_of(out.sessions, rail);
        up = up && s && s->established() && s->prefixes >= plan.bgp->min_prefixes;
      }
      if (up) {
        out.all_up = true;
        out.waited_ms = waited();
        return out;
      }
    } else {
      out.error = sessions.error();  // bgpd may still be starting: asked again until the bound
    }
    if (clock.now() >= deadline) {
      out.waited_ms = waited();
      return out;
    }
    clock.sleep(std::chrono::milliseconds(500));
  }
}

const BgpSession* session_of(const std::vector<BgpSession>& sessions, const RailPlan& rail) {
  for (const auto& s : sessions)
    if (s.interface == rail.netdev) return &s;
  return nullptr;
}

void apply_rail_tables(const Plan& plan, const std::vector<BgpSession>& sessions, Kernel& kernel,
                       std::vector<Change>& out) {
  if (!plan.bgp) return;
  for (const auto& rail : plan.rails) {
    if (!rail.table || !rail.address) continue;
    const BgpSession* s = session_of(sessions, rail);
    const std::string label = rail_label(rail);
    if (!s || s->peer.empty()) {
      out.push_back({label + ": table " + std::to_string(*rail.table), ChangeOutcome::failed, "",
                     "the fabric via the leaf",
                     "the leaf's link-local address is not known: no BGP session on " + rail.netdev});
      continue;
    }
    auto routes = kernel.rtnl.routes(*rail.table);
    for (const auto& prefix : plan.bgp->fabric_prefixes) {
      RouteInfo want{prefix, rail.netdev, "", *rail.table, s->peer};
      std::string object = label + ": route " + prefix + " table " + std::to_string(*rail.table);
      std::string text = prefix + " via " + s->peer + " dev " + rail.netdev + " table " + std::to_string(*rail.table);
      if (!routes.ok()) {
        out.push_back({object, ChangeOutcome::failed, "", text, routes.error()});
        continue;
      }
      const RouteInfo* found = nullptr;
      for (const auto& r : *routes)
        if (r.destination == prefix) found = &r;
      if (!found) {
        out.push_back(change_from(object, kernel.rtnl.add_route(want), "none", text));
      } else if (found->dev == want.dev && found->via == want.via) {
        out.push_back({object, ChangeOutcome::unchanged, text, text, ""});
      } else {
        out.push_back(
            {object, ChangeOutcome::failed, prefix + " via " + found->via + " dev " + found->dev, text,
             "table " + std::to_string(*rail.table) + " already routes " + prefix + " otherwise; not modified"});
      }
    }
  }
}

void verify_bgp_session(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  if (!ctx.bgp) {
    checks::fail(r, "bgpd not asked", "the agent did not start bgpd (no routed rails planned)");
    return;
  }
  if (!ctx.bgp->error.empty() && ctx.bgp->sessions.empty()) {
    checks::fail(r, "no answer from bgpd", ctx.bgp->error);
    return;
  }
  const BgpSession* s = session_of(ctx.bgp->sessions, rail);
  if (!s) {
    checks::fail(r, "no session on " + rail.netdev,
                 "bgpd has no neighbour on " + rail.netdev + " (frr.conf not applied?)");
    return;
  }
  std::string who = (s->remote_as ? "AS " + std::to_string(s->remote_as) : std::string("the leaf")) +
                    (s->peer.empty() ? "" : " at " + s->peer);
  if (s->established()) {
    checks::pass(r,
                 "Established with " + who + (s->up_ms >= 0 ? ", up " + std::to_string(s->up_ms / 1000) + " s" : ""));
    return;
  }
  std::string hint;
  if (s->peer.empty())
    hint = "no router advertisement from the leaf on " + rail.netdev +
           ": its port is down, not configured for BGP unnumbered, or the cable goes elsewhere";
  else if (s->notification.find("Bad Peer AS") != std::string::npos)
    hint = "the leaf refused this node's AS " + std::to_string(ctx.plan.bgp ? ctx.plan.bgp->asn : 0) +
           ": the inventory's asn and the leaf's configuration disagree";
  else hint = "the leaf at " + s->peer + " does not complete the session: is BGP configured on its port?";
  std::string last = !s->notification.empty() ? "the leaf's NOTIFICATION: " + s->notification
                     : s->last_error.empty()  ? ""
                                              : "last: " + s->last_error;
  checks::fail(
      r, s->state.empty() ? "unknown state" : s->state + " with " + who,
      (last.empty() ? "" : last + "; ") + hint + " (waited " + std::to_string(ctx.bgp->waited_ms / 1000) + " s)");
}

void verify_bgp_prefixes(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const BgpSession* s = ctx.bgp ? session_of(ctx.bgp->sessions, rail) : nullptr;
  if (!s || !s->established()) {
    checks::fail(r, "no session", "rail." + std::to_string(rail.index) + ".bgp says why");
    return;
  }
  int want = ctx.plan.bgp ? ctx.plan.bgp->min_prefixes : 1;
  if (s->prefixes < 0) {
    checks::fail(r, "not reported", "bgpd did not report the routes accepted on " + rail.netdev);
    return;
  }
  if (s->prefixes < want) {
    checks::fail(r, std::to_string(s->prefixes) + " received",
                 "the leaf sends fewer fabric routes than expected: other nodes not up yet, or the leaf filters them");
    return;
  }
  checks::pass(r, std::to_string(s->prefixes) + " received");
}

void verify_rail_route(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  if (!rail.address) {
    checks::fail(r, "no rail address", "the node's identity gives this rail no address");
    return;
  }
  std::string from = rail.address->substr(0, rail.address->find('/'));
  // Through the rail's leaf as its session knows it now: a table pinned to a leaf that was
  // since replaced would black-hole the rail's traffic.
  const BgpSession* s = ctx.bgp ? session_of(ctx.bgp->sessions, rail) : nullptr;
  const std::string leaf = s ? s->peer : "";
  std::vector<std::string> seen, wrong;
  for (const auto& probe : rail.route_probes) {
    auto route = ctx.kernel.rtnl.route_get(probe, from);
    if (!route.ok()) {
      wrong.push_back(probe + ": " + route.error());
      seen.push_back(probe + " unreachable");
      continue;
    }
    seen.push_back(probe + " via " + route->dev +
                   (route->table ? " (table " + std::to_string(route->table) + ")" : ""));
    if (route->dev != rail.netdev) wrong.push_back(probe + " leaves by " + route->dev + ", not " + rail.netdev);
    else if (!leaf.empty() && !route->via.empty() && route->via != leaf)
      wrong.push_back(probe + " goes via " + route->via + ", but the rail's leaf is " + leaf + " now");
  }
  if (!wrong.empty()) {
    checks::fail(
        r, join(seen, ", "),
        join(wrong, "; ") + ": rail " + std::to_string(rail.index) + "'s RoCE traffic would cross to another rail");
    return;
  }
  checks::pass(r, join(seen, ", "));
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
