// Kernel modules (objects/modules.cc): loaded in the plan's order; nvidia_peermem verified.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

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

namespace {
// Records the loading thread's nice value at each load; the first load waits until the test
// says go, so that finish() is called while the thread is still at work.
struct NiceHost : railyard::test::FakeHost {
  std::atomic<pid_t> loader{0};  // the loading thread, once its first load began
  std::atomic<bool> go{false};
  std::vector<int> nice;
  Status load_module(const std::string& name) override {
    nice.push_back(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())));
    if (nice.size() == 1) {
      loader = ::gettid();
      for (int i = 0; i < 1000 && !go; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return FakeHost::load_module(name);
  }
};

// Waits up to 10 s for `done`.
template <typename F>
bool eventually(F done) {
  for (int i = 0; i < 1000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}
}  // namespace

// The loads run at the lowest priority while first boot waits (they must not take the CPU
// from udev), and at the normal one once first boot needs them (the storage target waited
// seconds per module under emulation, at nice 19 behind the rest of the boot).
TEST_CASE("modules: the preload runs at nice 19 while first boot waits, at 0 from finish()") {
  if (::geteuid() != 0) return;  // raising a priority back takes CAP_SYS_NICE
  NiceHost host;
  host.available_modules = {"8021q", "rdma_cm"};
  std::vector<Change> done;
  {
    ModulePreload preload(host, {"8021q", "rdma_cm"});
    REQUIRE(eventually([&] { return host.loader != 0; }));
    std::thread finisher([&] { done = preload.finish(); });
    const auto loader = static_cast<id_t>(host.loader.load());
    CHECK(eventually([&] { return ::getpriority(PRIO_PROCESS, loader) == 0; }));
    host.go = true;
    finisher.join();
  }
  REQUIRE(host.nice.size() == 2);
  CHECK(host.nice[0] == 19);
  CHECK(host.nice[1] == 0);
  CHECK(outcomes(done) == "module 8021q: changed\nmodule rdma_cm: changed\n");
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
