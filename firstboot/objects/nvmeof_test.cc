// NVMe over Fabrics (objects/nvmeof.cc): identity, discovery.conf, connections and their retries;
// verified live and readable.
#include <doctest/doctest.h>

#include "support/fake_clock.h"
#include "support/host_rig.h"
#include "support/verify_node.h"

namespace {

Plan nvme_plan() {
  Plan p;
  p.rails = {rail(0, "enp17s0", "rxe0")};
  NvmeofConnection c;
  c.address = "198.18.0.100";
  c.nqn = "nqn.2026-11.org.railyard.lab:target0";
  c.host_iface = "enp17s0.100";
  c.host_traddr = "198.18.0.11";
  p.nvmeof = {c};
  return p;
}

}  // namespace

TEST_CASE("nvmeof: identity from the DMI UUID, discovery.conf, one connect, then nothing") {
  Rig rig;
  rig.host.files["/sys/class/dmi/id/product_uuid"] = "4C4C4544-0042-3510-8052-B4C04F333732";
  Plan p = nvme_plan();
  auto c = rig.run(apply_nvmeof, p);
  // As `nvme gen-hostnqn` gives it: libnvme copies product_uuid as the kernel prints it,
  // upper case included.
  CHECK(rig.host.files["/etc/nvme/hostnqn"] == "nqn.2014-08.org.nvmexpress:uuid:4C4C4544-0042-3510-8052-B4C04F333732");
  CHECK(rig.host.files["/etc/nvme/hostid"] == "4C4C4544-0042-3510-8052-B4C04F333732");
  CHECK(rig.host.files["/etc/nvme/discovery.conf"].find(
            "--transport=rdma --traddr=198.18.0.100 --trsvcid=4420 --host-traddr=198.18.0.11") != std::string::npos);
  REQUIRE(rig.host.connects.size() == 1);
  CHECK(rig.host.connects[0] ==
        "nqn=nqn.2026-11.org.railyard.lab:target0,transport=rdma,traddr=198.18.0.100,trsvcid=4420,"
        "hostnqn=nqn.2014-08.org.nvmexpress:uuid:4C4C4544-0042-3510-8052-B4C04F333732,"
        "hostid=4C4C4544-0042-3510-8052-B4C04F333732,host_traddr=198.18.0.11");
  CHECK(c.back().outcome == ChangeOutcome::changed);
  CHECK(c.back().detail == "instance=1,cntlid=1");
  // The kernel now lists the controller: the second run connects nothing.
  rig.host.files["/sys/class/nvme/nvme1/transport"] = "rdma";
  rig.host.files["/sys/class/nvme/nvme1/subsysnqn"] = "nqn.2026-11.org.railyard.lab:target0";
  rig.host.files["/sys/class/nvme/nvme1/address"] = "traddr=198.18.0.100,trsvcid=4420,src_addr=198.18.0.11";
  CHECK(all_unchanged(rig.run(apply_nvmeof, p)));
  CHECK(rig.host.connects.size() == 1);
}

TEST_CASE("nvmeof: without product_uuid, libnvme's next sources: the SMBIOS type 1 entry, then the device tree") {
  Rig rig;
  // An SMBIOS system structure: type 1, length, handle, four string indices, then the UUID,
  // its first three fields little-endian.
  std::string raw = std::string("\x01\x1b\x01\x00\x01\x02\x03\x04", 8) +
                    std::string("\x44\x45\x4c\x4c\x42\x00\x10\x35\x80\x52\xb4\xc0\x4f\x33\x37\x32", 16) + "x";
  rig.host.files["/sys/firmware/dmi/entries/0-0/type"] = "0";
  rig.host.files["/sys/firmware/dmi/entries/0-0/raw"] = std::string(40, '\x07');
  rig.host.files["/sys/firmware/dmi/entries/1-0/type"] = "1";
  rig.host.files["/sys/firmware/dmi/entries/1-0/raw"] = raw;
  rig.host.files["/etc/machine-id"] = "0123456789abcdef0123456789abcdef";
  auto c = rig.run(apply_nvmeof, nvme_plan());
  CHECK(rig.host.files["/etc/nvme/hostid"] == "4c4c4544-0042-3510-8052-b4c04f333732");
  CHECK(c[0].detail.find("SMBIOS system UUID (/sys/firmware/dmi/entries/1-0)") != std::string::npos);

  Rig power;
  power.host.files["/proc/device-tree/ibm,partition-uuid"] = std::string("2a9b1a31-9f2b-4a4f-8a6e-0d1c2b3a4f5e\0", 37);
  power.run(apply_nvmeof, nvme_plan());
  CHECK(power.host.files["/etc/nvme/hostid"] == "2a9b1a31-9f2b-4a4f-8a6e-0d1c2b3a4f5e");
}

TEST_CASE("nvmeof: no DMI UUID falls back to the machine id and says so; an unreachable target fails") {
  Rig rig;
  rig.host.files["/sys/class/dmi/id/product_uuid"] = "00000000-0000-0000-0000-000000000000";
  rig.host.files["/etc/machine-id"] = "0123456789abcdef0123456789abcdef";
  rig.host.connect_errno = ECONNREFUSED;
  auto c = rig.run(apply_nvmeof, nvme_plan());
  CHECK(rig.host.files["/etc/nvme/hostid"] == "01234567-89ab-cdef-0123-456789abcdef");
  CHECK(c[0].detail.find("no DMI product UUID") != std::string::npos);
  CHECK(c.back().outcome == ChangeOutcome::failed);
  CHECK(c.back().detail.find("Connection refused") != std::string::npos);
  Rig none;
  auto n = none.run(apply_nvmeof, nvme_plan());
  REQUIRE(n.size() == 1);
  CHECK(n[0].outcome == ChangeOutcome::failed);
}

TEST_CASE("nvmeof: a target still starting is retried until it answers, or until the wait is over") {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  // A clock that sleeping moves, and each connect attempt too (to an absent host it takes seconds).
  struct HookedClock : test::FakeClock {
    std::function<void()> on_sleep;
    void sleep(milliseconds d) override {
      FakeClock::sleep(d);
      if (on_sleep) on_sleep();
    }
  } clock;
  auto& slept = clock.sleeps;
  auto& on_sleep = clock.on_sleep;

  Rig rig;
  rig.host.files["/sys/class/dmi/id/product_uuid"] = "4C4C4544-0042-3510-8052-B4C04F333732";
  rig.host.connect_errno = ECONNREFUSED;
  Plan p = nvme_plan();
  auto changes = rig.run(apply_nvmeof, p);
  REQUIRE(changes.back().outcome == ChangeOutcome::failed);
  on_sleep = [&] {
    if (slept.size() == 3) rig.host.connect_errno = 0;  // the target comes up during the third wait
  };
  retry_nvmeof(p, rig.kernel, changes, seconds(30), seconds(2), clock);
  CHECK(slept.size() == 3);
  CHECK(rig.host.connects.size() == 1);  // the fake records only connections made
  CHECK(changes.back().outcome == ChangeOutcome::changed);
  CHECK(changes.back().detail.find("connected after 6.0 s of retries (first: ") != std::string::npos);
  CHECK(changes.back().detail.find("Connection refused") != std::string::npos);

  // Never answering, each attempt taking 3 s: the wait is wall time, not the sum of sleeps,
  // and the last step is cut to fit.
  Rig dead;
  dead.host.files["/sys/class/dmi/id/product_uuid"] = "4C4C4544-0042-3510-8052-B4C04F333732";
  dead.host.connect_errno = ECONNREFUSED;
  auto failed = dead.run(apply_nvmeof, p);
  slept.clear();
  on_sleep = [&] { clock.t += seconds(3); };
  retry_nvmeof(p, dead.kernel, failed, milliseconds(12000), seconds(2), clock);
  CHECK(slept == std::vector<milliseconds>{seconds(2), seconds(2), seconds(2)});  // at 0, 5 and 10 s
  CHECK(failed.back().outcome == ChangeOutcome::failed);
  CHECK(failed.back().detail.find("still failing after 15.0 s of retries") != std::string::npos);
  CHECK(failed.back().detail.find("of retries) (still") == std::string::npos);  // said once

  // Nothing failed: nothing waits.
  Rig fine;
  fine.host.files["/sys/class/dmi/id/product_uuid"] = "4C4C4544-0042-3510-8052-B4C04F333732";
  auto ok = fine.run(apply_nvmeof, p);
  REQUIRE(ok.back().outcome == ChangeOutcome::changed);
  slept.clear();
  retry_nvmeof(p, fine.kernel, ok, seconds(30), seconds(2), clock);
  CHECK(slept.empty());
}

TEST_CASE("nvmeof.N.connected: a live controller for the target's NQN and address over the planned transport") {
  Node n;
  auto r = n.check("nvmeof.0.connected");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == kNqn + " live over rdma");
  CHECK(r.observed == "nvme1 live over rdma");

  n.now.nvme[0].state = "connecting";
  r = n.check("nvmeof.0.connected");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "nvme1 connecting over rdma");

  n.now.nvme[0].state = "live";
  n.now.nvme[0].transport = "tcp";  // fell back to TCP
  r = n.check("nvmeof.0.connected");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "nvme1 live over tcp");
}

TEST_CASE("nvmeof.N.connected: no controller for the target fails with where it should be") {
  Node n;
  n.now.nvme[0].address = "traddr=198.18.0.251,trsvcid=4420";  // another target
  auto r = n.check("nvmeof.0.connected");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no controller");
  CHECK(contains(r.detail, "198.18.0.250:4420"));
  CHECK(contains(r.detail, "rail 0"));

  n.now.nvme[0].address = "traddr=198.18.0.250,trsvcid=4420";
  n.now.nvme[0].subsysnqn = "nqn.2024-01.example.storage:other";
  CHECK(n.check("nvmeof.0.connected").status == CheckStatus::fail);
  CHECK(n.check("nvmeof.0.namespace_read").observed == "no controller");
}

TEST_CASE("nvmeof.N.namespace_read: the first namespace's first 4 KiB") {
  Node n;
  auto r = n.check("nvmeof.0.namespace_read");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "first namespace readable");
  CHECK(r.observed == "/dev/nvme1n1: 4096 bytes read");

  n.host.files["/dev/nvme1n1"] = std::string(512, 'x');  // short, but readable
  CHECK(n.check("nvmeof.0.namespace_read").observed == "/dev/nvme1n1: 512 bytes read");

  n.host.files.erase("/dev/nvme1n1");
  r = n.check("nvmeof.0.namespace_read");
  CAPTURE(text(r));
  CHECK(r.status != CheckStatus::pass);
  CHECK(r.failing());
}

TEST_CASE("nvmeof.N: a best-effort target's checks warn instead of failing") {
  Node n([](Recipe& rc) { rc.nvmeof[0].required = false; });
  n.now.nvme.clear();
  auto results = n.verify_all();
  for (const auto& r : results)
    if (r.id.scope() == CheckScope::nvmeof) {
      CAPTURE(text(r));
      CHECK_FALSE(r.required);
      CHECK(r.status == CheckStatus::warn);
    }
  CHECK(node_passes(results));
}

// A connected controller without a readable namespace device is a failure, not "unsupported".
TEST_CASE("nvmeof.N.namespace_read: a missing namespace device is a failure, not unsupported") {
  Node n;
  n.host.files.erase("/dev/nvme1n1");
  auto r = n.check("nvmeof.0.namespace_read");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  Node b([](Recipe& rc) { rc.nvmeof[0].required = false; });
  b.host.files.erase("/dev/nvme1n1");
  r = b.check("nvmeof.0.namespace_read");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
}
