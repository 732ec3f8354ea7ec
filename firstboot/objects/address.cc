// Rail addresses: the planned IPv4 address on the rail's netdev. Other addresses stay; one in
// the same subnet is named in the Change, since it competes for the rail's ARP and routes.
#include "objects/address.h"

#include <algorithm>

#include "net.h"
#include "objects/result.h"

namespace railyard {

namespace {

std::string join_or_none(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out.empty() ? "none" : out;
}

}  // namespace

namespace {

// One planned address on the rail's netdev: added unless present; another address in its
// subnet is named in the Change.
Change apply_address(const RailPlan& rail, const std::string& text, Kernel& kernel) {
  std::string object = rail_label(rail) + ": address on " + rail.netdev;
  auto planned = parse_interface_address(text);
  if (!planned) return {object, ChangeOutcome::failed, "", text, "not an IPv4 address with prefix"};
  auto current = kernel.rtnl.addresses(rail.netdev);
  if (!current.ok()) return {object, ChangeOutcome::failed, "", planned->str(), current.error()};
  bool present = false;
  std::vector<std::string> neighbours;
  for (const auto& t : *current) {
    auto a = parse_interface_address(t);
    if (!a) continue;
    if (a->address == planned->address && a->prefix == planned->prefix) present = true;
    else if (planned->subnet().contains(a->address) && t != rail.address &&
             std::find(rail.extra_addresses.begin(), rail.extra_addresses.end(), t) == rail.extra_addresses.end())
      neighbours.push_back(a->str());
  }
  std::string before = join_or_none(*current);
  Change c = present
                 ? Change{object, ChangeOutcome::unchanged, before, planned->str(), ""}
                 : change_from(object, kernel.rtnl.add_address(rail.netdev, planned->str()), before, planned->str());
  if (!neighbours.empty()) {
    std::string note =
        rail.netdev + " also has " + join_or_none(neighbours) + " in " + planned->subnet().str() + "; left as is";
    c.detail = c.detail.empty() ? note : c.detail + "; " + note;
  }
  return c;
}

}  // namespace

void apply_addresses(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (rail.address) out.push_back(apply_address(rail, *rail.address, kernel));
    for (const auto& extra : rail.extra_addresses) out.push_back(apply_address(rail, extra, kernel));
  }
}

void verify_address(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto addrs = ctx.kernel.rtnl.addresses(rail.netdev);
  if (!addrs.ok()) checks::from_status(r, addrs.status());
  else if (rail.address && std::find(addrs->begin(), addrs->end(), *rail.address) != addrs->end())
    checks::pass(r, *rail.address + " on " + rail.netdev);
  else {
    std::string seen;
    for (const auto& a : *addrs) seen += (seen.empty() ? "" : " ") + a;
    checks::fail(r, seen.empty() ? "no address" : seen);
  }
}

}  // namespace railyard
