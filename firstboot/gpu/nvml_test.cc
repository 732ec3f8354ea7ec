// NVML through dlopen (gpu/nvml.cc) against railyard's test double of libnvidia-ml.so.1,
// driven by fixture files (tests/fixtures/nvml/), and the kernel log's XID lines.
#include "gpu/nvml.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>

using namespace railyard;

namespace {

const std::string kFixtures = std::string(RAILYARD_SOURCE_DIR) + "/tests/fixtures/nvml/";

NvmlReading read_with(const std::string& fixture, const std::vector<std::string>& pcis,
                      const std::string& kmsg = "/dev/null") {
  ::setenv("RAILYARD_NVML_FIXTURE", (kFixtures + fixture).c_str(), 1);
  NvmlOptions o;
  o.library = RAILYARD_NVML_DOUBLE;
  o.kernel_log = kmsg;
  return read_nvml(pcis, o);
}

}  // namespace

TEST_CASE("read_nvml: every value of every GPU, the pair's common ancestor, and the double naming itself") {
  auto r = read_with("two-gpus.nvml", {"0000:18:00.0", "0000:2a:00.0"});
  REQUIRE_FALSE(r.unavailable);
  CHECK(r.library_present);
  REQUIRE(r.stand_in);
  CHECK(*r.stand_in == "railyard's test double of libnvidia-ml.so.1");
  CHECK(r.driver_version == "550.54.15");
  REQUIRE(r.gpus.size() == 2);
  const NvmlGpu& g = r.gpus[1];
  CHECK(g.pci == "0000:2a:00.0");
  CHECK(*g.name == "NVIDIA H100 80GB HBM3");
  CHECK(*g.uuid == "GPU-5e3b2c4a-1f0e-4b6d-9a8c-00000000002a");
  CHECK(*g.persistence);
  CHECK(g.ecc->enabled);
  CHECK(g.ecc->volatile_uncorrected == 0);
  CHECK(g.remap->row_remapping);
  CHECK_FALSE(g.remap->pending);
  CHECK(*g.throttle == 0x1);
  CHECK(*g.temperature_c == 38);
  CHECK(g.pcie->max_gen == 5);
  CHECK(g.pcie->gen == 1);
  CHECK(g.nvlinks->size() == 18);
  CHECK(g.numa_node == 0);
  CHECK(r.gpus[0].remap->corrected_rows == 3);
  REQUIRE(r.pair("0000:2a:00.0", "0000:18:00.0"));
  CHECK(*r.pair("0000:2a:00.0", "0000:18:00.0")->level == NvmlTopology::multiple);
  REQUIRE(r.xids.ok());
  CHECK(r.xids->empty());
}

TEST_CASE("read_nvml: the faults as NVML reports them") {
  auto r = read_with("faults.nvml", {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0", "0000:9a:00.0"},
                     kFixtures + "kmsg-xid79.txt");
  REQUIRE(r.gpus.size() == 4);
  CHECK(r.gpus[0].ecc->volatile_uncorrected == 3);
  CHECK(r.gpus[1].remap->pending);
  CHECK(r.gpus[1].remap->uncorrected_rows == 1);
  CHECK(r.gpus[2].nvlinks->at(3) == false);
  CHECK(*r.gpus[2].throttle == 0x40);
  CHECK_FALSE(r.gpus[3].remap->row_remapping);  // remapped rows not supported: page retirement
  CHECK(r.gpus[3].remap->pending);
  CHECK_FALSE(*r.gpus[3].persistence);
  CHECK(r.gpus[3].nvlinks->empty());
  CHECK_FALSE(r.gpus[3].numa_node);  // NVML did not say
  CHECK(r.gpus[3].temperature_c.ok());
  // A GPU NVML does not know: missing, with NVML's answer.
  CHECK(r.missing_reason("0000:9a:00.0") == "nvmlDeviceGetHandleByPciBusId_v2: Not Found");
  CHECK(*r.pair("0000:18:00.0", "0000:2a:00.0")->level == NvmlTopology::system);
  CHECK(r.pair("0000:18:00.0", "0000:3a:00.0")->level.unsupported());
  REQUIRE(r.xids.ok());
  REQUIRE(r.xids->size() == 2);
  CHECK((*r.xids)[0].xid == 79);
  CHECK(xid_is_for((*r.xids)[0], "0000:3a:00.0"));
  CHECK_FALSE(xid_is_for((*r.xids)[0], "0000:18:00.0"));
  CHECK((*r.xids)[1].xid == 31);
}

TEST_CASE("read_nvml: no library is unavailable without it; a driver that is not loaded is unavailable with it") {
  NvmlOptions o;
  o.library = "/nonexistent/libnvidia-ml.so.1";
  o.kernel_log = "/dev/null";
  auto r = read_nvml({"0000:18:00.0"}, o);
  REQUIRE(r.unavailable);
  CHECK_FALSE(r.library_present);
  CHECK(r.unavailable->find("/nonexistent/libnvidia-ml.so.1") != std::string::npos);

  auto d = read_with("driver-not-loaded.nvml", {"0000:18:00.0"});
  REQUIRE(d.unavailable);
  CHECK(d.library_present);
  CHECK(d.unavailable->find("nvmlInit_v2: Driver Not Loaded") != std::string::npos);

  o.library = RAILYARD_NVML_DOUBLE;
  o.kernel_log = "/nonexistent/kmsg";
  auto k = read_nvml({}, o);
  CHECK_FALSE(k.xids.ok());
  CHECK(k.xids.error().find("No such file or directory") != std::string::npos);
}

TEST_CASE("parse_xids: the driver's lines with and without PCI:, dmesg's prefix, nothing else") {
  auto x = parse_xids(
      "[ 1234.5] NVRM: Xid (PCI:0000:17:00): 48, pid=9, An uncorrectable double bit error\n"
      "NVRM: Xid (0000:3b:00): 13, Graphics SM Warp Exception\n"
      "NVRM: Xid (PCI:0000:17:00): oops\n"
      "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n");
  REQUIRE(x.size() == 2);
  CHECK(x[0].pci == "0000:17:00");
  CHECK(x[0].xid == 48);
  CHECK(x[0].line == "NVRM: Xid (PCI:0000:17:00): 48, pid=9, An uncorrectable double bit error");
  CHECK(x[1].xid == 13);
  CHECK(xid_is_for(x[1], "0000:3B:00.0"));
  CHECK(xid_is_for(Xid{"17:00", 79, ""}, "0000:17:00.0"));
}

TEST_CASE("read_nvml_bounded: an NVML that does not answer in time is unavailable, and the agent goes on") {
  ::setenv("RAILYARD_NVML_FIXTURE", (kFixtures + "hung.nvml").c_str(), 1);
  NvmlOptions o;
  o.library = RAILYARD_NVML_DOUBLE;
  o.kernel_log = "/dev/null";
  auto start = std::chrono::steady_clock::now();
  auto r = read_nvml_bounded({"0000:18:00.0"}, 200, o);
  auto took = std::chrono::steady_clock::now() - start;
  CHECK(took < std::chrono::milliseconds(1000));
  REQUIRE(r.unavailable);
  CHECK(r.unavailable->find("NVML did not answer within 200 ms") != std::string::npos);
  CHECK(r.library_present);  // the checks fail: a hung driver is not a node without one
  // In time, the same call answers.
  auto fine = read_nvml_bounded({"0000:18:00.0"}, 5000, o);
  CHECK_FALSE(fine.unavailable);
  // The first call's thread finished with the second's: nothing of it is left running.
}
