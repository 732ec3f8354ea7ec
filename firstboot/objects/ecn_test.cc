// ECN (objects/ecn.cc): both DCQCN roles on the RoCE priority, applied and verified.
#include <doctest/doctest.h>

#include "support/host_rig.h"
#include "support/verify_node.h"

TEST_CASE("ecn: both roles on the RoCE priority; absent files are unsupported; off does nothing") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "ens1f0np0", "mlx5_0")};
  p.rails[0].ecn_priority = 3;
  rig.host.files["/sys/class/net/ens1f0np0/ecn/roce_np/enable/3"] = "0";
  rig.host.files["/sys/class/net/ens1f0np0/ecn/roce_rp/enable/3"] = "1";
  auto c = rig.run(apply_ecn, p);
  CHECK(outcomes(c) ==
        "rail 0 (ens1f0np0): ECN roce_np priority 3: changed\n"
        "rail 0 (ens1f0np0): ECN roce_rp priority 3: unchanged\n");
  CHECK(all_unchanged(rig.run(apply_ecn, p)));
  Rig upstream;
  CHECK(outcomes(upstream.run(apply_ecn, p)) ==
        "rail 0 (ens1f0np0): ECN roce_np priority 3: unsupported\n"
        "rail 0 (ens1f0np0): ECN roce_rp priority 3: unsupported\n");
  p.rails[0].ecn_priority = -1;
  CHECK(upstream.run(apply_ecn, p).empty());
}

TEST_CASE("rail.N.ecn: DCQCN notification and reaction points on the lossless priority") {
  Node n;
  auto r = n.check("rail.1.ecn");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "enabled on priority 3 (best-effort)");
  CHECK_FALSE(r.required);
  CHECK(r.observed == "np 1, rp 1, CNP DSCP 48, CNP priority 6");

  // ECN is best-effort by default: off on the NIC is a warning.
  n.host.files["/sys/class/net/ens1f0/ecn/roce_np/enable/3"] = "0";
  r = n.check("rail.1.ecn");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
  CHECK(r.observed == "np 0, rp 1");
  CHECK(node_passes({r}));

  // No ECN files (upstream mlx5, virtio): unsupported, which best-effort tolerates.
  n.host.files.erase("/sys/class/net/ens1f0/ecn/roce_np/enable/3");
  r = n.check("rail.1.ecn");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(node_passes({r}));

  Node q([](Recipe& rc) { rc.fabric.ecn = Requirement::required; });
  q.host.files["/sys/class/net/ens1f0/ecn/roce_rp/enable/3"] = "0";
  r = q.check("rail.1.ecn");
  CHECK(r.required);
  CHECK(r.expected == "enabled on priority 3");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "np 1, rp 0");
  q.host.files.erase("/sys/class/net/ens1f0/ecn/roce_rp/enable/3");
  r = q.check("rail.1.ecn");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK_FALSE(node_passes({r}));
}

TEST_CASE("ecn: the notifications' DSCP (fabric.cnp_dscp) and its priority, applied where the driver has them") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "ens1f0np0", "mlx5_0")};
  p.rails[0].ecn_priority = 3;
  p.rails[0].cnp_dscp = 48;
  p.rails[0].dscp_to_priority.assign(64, 0);
  p.rails[0].dscp_to_priority[48] = 6;
  std::string np = "/sys/class/net/ens1f0np0/ecn/roce_np/";
  rig.host.files[np + "enable/3"] = "1";
  rig.host.files["/sys/class/net/ens1f0np0/ecn/roce_rp/enable/3"] = "1";
  rig.host.files[np + "cnp_dscp"] = "0";
  rig.host.files[np + "cnp_802p_prio"] = "6";
  auto c = rig.run(apply_ecn, p);
  CHECK(outcomes(c) ==
        "rail 0 (ens1f0np0): ECN roce_np priority 3: unchanged\n"
        "rail 0 (ens1f0np0): ECN roce_rp priority 3: unchanged\n"
        "rail 0 (ens1f0np0): CNP DSCP 48: changed\n"
        "rail 0 (ens1f0np0): CNP priority 6: unchanged\n");
  CHECK(rig.host.files[np + "cnp_dscp"] == "48");
  CHECK(all_unchanged(rig.run(apply_ecn, p)));
  // A driver with ECN but no CNP knobs: unsupported, saying so, never nothing at all.
  rig.host.files.erase(np + "cnp_dscp");
  rig.host.files.erase(np + "cnp_802p_prio");
  auto none = rig.run(apply_ecn, p);
  REQUIRE(none.size() == 4);
  CHECK(none[2].outcome == ChangeOutcome::unsupported);
  CHECK(none[2].detail ==
        np + "cnp_dscp does not exist (this driver cannot set it; notifications keep the NIC's default)");
  // No ECN at all: the two unsupported roles say it; nothing about CNPs.
  Rig upstream;
  CHECK(upstream.run(apply_ecn, p).size() == 2);
}

TEST_CASE("rail.N.ecn: the notifications' DSCP is checked too") {
  Node n;
  n.host.files["/sys/class/net/ens1f0/ecn/roce_np/cnp_dscp"] = "0";
  auto r = n.check("rail.1.ecn");
  CHECK(r.status == CheckStatus::warn);  // best-effort: what fails a required check warns here
  CHECK(r.observed == "np 1, rp 1, CNP DSCP 0 (want 48)");
  n.host.files.erase("/sys/class/net/ens1f0/ecn/roce_np/cnp_dscp");
  r = n.check("rail.1.ecn");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.detail.find("/sys/class/net/ens1f0/ecn/roce_np/cnp_dscp missing: this driver cannot set") == 0);
}
