// Rail addresses (objects/address.cc): added when missing, and verified on the rail's netdev.
#include <doctest/doctest.h>

#include "support/rtnl_rig.h"
#include "support/verify_node.h"

TEST_CASE("addresses: added when missing, left when present, a neighbour in the subnet named") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.add_link("ens2f0np0", 9000, true);
  f.rtnl.add_link("ens3f0np0", 9000, true);
  f.rtnl.addrs["ens2f0np0"] = {"198.18.1.99/24", "198.19.0.1/16"};
  Plan plan = plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24"),
                       rail(1, "ens2f0np0", std::nullopt, "198.18.1.11/24"), rail(2, "ens3f0np0")});
  auto out = run(apply_addresses, plan, f.kernel);
  CHECK(out.size() == 2);  // rail 2 has no address planned: nothing to do
  Change a0 = find(out, "rail 0 (ens1f0np0): address on ens1f0np0");
  CHECK(a0.outcome == ChangeOutcome::changed);
  CHECK(a0.before == "none");
  CHECK(a0.after == "198.18.0.11/24");
  CHECK(a0.detail == "");
  Change a1 = find(out, "rail 1 (ens2f0np0): address on ens2f0np0");
  CHECK(a1.outcome == ChangeOutcome::changed);
  CHECK(a1.before == "198.18.1.99/24, 198.19.0.1/16");
  CHECK(a1.detail == "ens2f0np0 also has 198.18.1.99/24 in 198.18.1.0/24; left as is");
  CHECK(f.rtnl.addrs["ens2f0np0"].size() == 3);

  f.rtnl.writes.clear();
  auto again = run(apply_addresses, plan, f.kernel);
  CHECK(not_unchanged(again) == "");
  CHECK(find(again, "rail 1 (ens2f0np0): address on ens2f0np0").detail ==
        "ens2f0np0 also has 198.18.1.99/24 in 198.18.1.0/24; left as is");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("rail.N.address: the planned address on the VLAN device") {
  Node n;
  auto r = n.check("rail.1.address");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "198.18.1.11/24 on ens1f0.200");
  CHECK(r.observed == "198.18.1.11/24 on ens1f0.200");

  n.rtnl.addrs["ens1f0.200"] = {"198.18.1.12/24", "169.254.3.1/16"};
  r = n.check("rail.1.address");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "198.18.1.12/24 169.254.3.1/16");

  n.rtnl.addrs["ens1f0.200"].clear();
  n.rtnl.addrs["ens1f0"] = {"198.18.1.11/24"};  // on the parent: untagged traffic
  r = n.check("rail.1.address");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no address");

  n.rtnl.fail["addresses"] = EIO;
  r = n.check("rail.1.address");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "error");
}
