// DSCP trust (objects/trust.cc): the qos/trust file, or the DSCP app entries where there is none.
#include <doctest/doctest.h>

#include "support/host_rig.h"
#include "support/verify_node.h"

TEST_CASE("trust: written where qos/trust exists, unsupported where it does not, nothing without PFC") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "ens1f0np0", "mlx5_0"), rail(1, "ens2f0np0", "mlx5_1"), rail(2, "ens3f0np0", "mlx5_2")};
  p.rails[0].trust = p.rails[1].trust = Trust::dscp;
  rig.host.files["/sys/class/net/ens1f0np0/qos/trust"] = "pcp";
  auto c = rig.run(apply_trust, p);
  CHECK(outcomes(c) == "rail 0 (ens1f0np0): trust: changed\nrail 1 (ens2f0np0): trust: unsupported\n");
  CHECK(c[0].before == "pcp");
  CHECK(rig.host.files["/sys/class/net/ens1f0np0/qos/trust"] == "dscp");
  CHECK(c[1].detail.find("upstream mlx5") != std::string::npos);
  CHECK(rig.run(apply_trust, p)[0].outcome == ChangeOutcome::unchanged);
}

TEST_CASE("rail.N.trust: the qos/trust file, or the DSCP app entries where the driver has none") {
  Node n;
  auto r = n.check("rail.0.trust");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "dscp");
  CHECK(r.observed == "dscp");
  CHECK(r.detail.empty());

  n.host.files["/sys/class/net/ens0f0/qos/trust"] = "pcp";
  r = n.check("rail.0.trust");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "pcp");

  // Upstream mlx5: no trust file; DSCP app entries switch the port to DSCP trust.
  n.host.files.erase("/sys/class/net/ens0f0/qos/trust");
  r = n.check("rail.0.trust");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "dscp");
  CHECK(contains(r.detail, "implied"));

  // No file and no DSCP entry: nothing shows DSCP trust; required, so the node fails.
  n.dcb.tables["ens0f0"].clear();
  r = n.check("rail.0.trust");
  CAPTURE(text(r));
  CHECK(r.status != CheckStatus::pass);
  CHECK(r.failing());

  // No file and the app table unreadable.
  n.dcb.fail["apps"] = EOPNOTSUPP;
  r = n.check("rail.0.trust");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.failing());
}

TEST_CASE("rail.N.trust: DSCP app entries imply DSCP trust, never the PCP trust a recipe asks for") {
  Node n([](Recipe& rc) { rc.fabric.trust = Trust::pcp; });
  n.host.files.erase("/sys/class/net/ens0f0/qos/trust");
  auto r = n.check("rail.0.trust");
  CAPTURE(text(r));
  CHECK(r.expected == "pcp");
  CHECK(r.status != CheckStatus::pass);
  CHECK(r.failing());

  n.host.files["/sys/class/net/ens0f0/qos/trust"] = "pcp";
  CHECK(n.check("rail.0.trust").status == CheckStatus::pass);
}
