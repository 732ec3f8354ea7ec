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

// First boot loads the recipe's modules on a thread while it waits for its devices; apply
// then finds them loaded, and the report still says that the agent loaded them.
TEST_CASE("modules: loaded while waiting for the devices; apply keeps the preload's changes") {
  Rig rig;
  rig.host.available_modules = {"8021q", "rdma_cm"};
  rig.host.modules = {"8021q"};
  std::vector<Change> preloaded;
  {
    ModulePreload preload(rig.host, {"8021q", "rdma_cm", "nvme_rdma"});
    preloaded = preload.finish();
  }
  CHECK(outcomes(preloaded) == "module 8021q: unchanged\nmodule rdma_cm: changed\nmodule nvme_rdma: failed\n");
  CHECK(rig.host.modules.count("rdma_cm"));

  rig.host.available_modules.insert("nvme_rdma");  // apply tries a failed one again
  Plan p;
  p.modules = {"8021q", "rdma_cm", "nvme_rdma"};
  std::vector<Change> applied = rig.run(apply_modules, p);
  CHECK(outcomes(applied) == "module 8021q: unchanged\nmodule rdma_cm: unchanged\nmodule nvme_rdma: changed\n");
  merge_preloaded(applied, preloaded);
  CHECK(outcomes(applied) == "module 8021q: unchanged\nmodule rdma_cm: changed\nmodule nvme_rdma: changed\n");
  CHECK(applied[1].before == "not loaded");
  CHECK(applied[1].detail == "while waiting for the devices");
  CHECK(applied[2].detail.empty());

  // Never finished: the destructor joins the thread.
  { ModulePreload abandoned(rig.host, {"8021q"}); }
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
