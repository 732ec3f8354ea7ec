// Kernel modules (objects/modules.cc): loaded in the plan's order; nvidia_peermem verified.
#include <doctest/doctest.h>

#include "support/host_rig.h"
#include "support/verify_node.h"

TEST_CASE("modules: loads what is missing, in order; a missing module fails") {
  Rig rig;
  rig.host.available_modules = {"8021q", "rdma_cm"};
  rig.host.modules = {"8021q"};
  Plan p;
  p.modules = {"8021q", "rdma_cm", "nvidia_peermem"};
  auto c = rig.run(apply_modules, p);
  CHECK(outcomes(c) == "module 8021q: unchanged\nmodule rdma_cm: changed\nmodule nvidia_peermem: failed\n");
  CHECK(c[2].detail.find("no such module") != std::string::npos);
  rig.host.available_modules.insert("nvidia_peermem");
  rig.run(apply_modules, p);
  CHECK(all_unchanged(rig.run(apply_modules, p)));
}

TEST_CASE("gpudirect.peermem: nvidia_peermem loaded") {
  Node n;
  auto r = n.check("gpudirect.peermem");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "loaded");

  n.host.modules.clear();
  r = n.check("gpudirect.peermem");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "not loaded");
  CHECK(contains(r.detail, "nvidia-peermem"));
}
