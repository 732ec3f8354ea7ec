// A rail's routing: per-rail tables and source rules on a shared subnet or on routed rails
// (BGP unnumbered); never a default route.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "clock.h"
#include "kernel/bgp.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_routing(const Plan&, Kernel&, std::vector<Change>&);

// Routed rails (plan.bgp): bgpd started with the plan's configuration (already written),
// then its sessions polled every 500 ms until every rail's is Established with at least
// min_prefixes routes, or session_wait_s has passed.
struct BgpBringUp {
  std::vector<BgpSession> sessions;  // as last seen
  std::string error;                 // bgpd could not be started or asked; "" otherwise
  bool all_up = false;
  long long waited_ms = 0;  // from the start of bgpd to all up, or to the bound
};
// `config_changed`: the FRR files were just rewritten (bgpd restarts to read them); otherwise
// a running bgpd is left alone.
BgpBringUp bring_up_bgp(const Plan& plan, Bgp& bgp, Clock& clock, bool config_changed = true);

// Each routed rail's table: every fabric prefix via the rail's leaf (its session's link-local
// address), so that the rule sending the rail's address to the table keeps its traffic on the
// rail whatever BGP spreads over the others. A rail whose leaf is unknown gets no
// route, and a failed change saying so.
void apply_rail_tables(const Plan& plan, const std::vector<BgpSession>& sessions, Kernel& kernel,
                       std::vector<Change>& out);

// The session of a rail; nullptr when bgpd has none on its netdev.
const BgpSession* session_of(const std::vector<BgpSession>& sessions, const RailPlan& rail);

// rail.N.bgp, rail.N.bgp_prefixes, rail.N.route.
void verify_bgp_session(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void verify_bgp_prefixes(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void verify_rail_route(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

// rail.N.no_default_route: no default route in the main table via the rail or its netdev.
void verify_no_default_route(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
