// What NVIDIA's management library (NVML) says of the node's GPUs, read once per self-test.
//
// NVML is loaded at run time (dlopen of libnvidia-ml.so.1, which the driver installs): the
// agent has no build dependency on it, runs on nodes without it (every NVML check is then
// `unsupported`, saying why) and a test double of the library stands in for it in tests.
// The checks (checks/gpu_health.h) are pure functions of a reading.
//
// XIDs come from the kernel log, not from NVML: NVML's event sets report only events after
// a process registers for them, while the driver writes every XID since boot to the kernel
// log ("NVRM: Xid (PCI:0000:17:00): 79, ...").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outcome.h"

namespace railyard {

struct NvmlEcc {
  bool enabled = false;
  bool pending_enabled = false;            // the mode after the next reset
  std::uint64_t volatile_uncorrected = 0;  // since the driver loaded
};

// Row remapping (A100 and later) or, on older GPUs, page retirement.
struct NvmlRemap {
  bool row_remapping = true;  // false: page retirement (only `pending` is meaningful)
  unsigned corrected_rows = 0;
  unsigned uncorrected_rows = 0;
  bool pending = false;  // a remap waits for a GPU reset
  bool failure = false;  // a remap failed: the GPU needs service
};

struct NvmlPcie {
  unsigned max_gen = 0, max_width = 0;
  unsigned gen = 0, width = 0;  // current; an idle GPU lowers its generation to save power
};

// One GPU as NVML sees it; each value read on its own, so one the GPU does not support
// (Outcome::unsupported()) or that fails leaves the others.
struct NvmlGpu {
  std::string pci;  // the plan's address (0000:17:00.0)
  Outcome<std::string> name = Outcome<std::string>::fail("not read");
  Outcome<std::string> uuid = Outcome<std::string>::fail("not read");
  Outcome<bool> persistence = Outcome<bool>::fail("not read");
  Outcome<NvmlEcc> ecc = Outcome<NvmlEcc>::fail("not read");
  Outcome<NvmlRemap> remap = Outcome<NvmlRemap>::fail("not read");
  Outcome<std::uint64_t> throttle = Outcome<std::uint64_t>::fail("not read");  // nvmlClocksThrottleReason* bits
  Outcome<unsigned> temperature_c = Outcome<unsigned>::fail("not read");
  Outcome<NvmlPcie> pcie = Outcome<NvmlPcie>::fail("not read");
  // One entry per NVLink the GPU has, true when active; empty on a GPU without NVLink.
  Outcome<std::vector<bool>> nvlinks = Outcome<std::vector<bool>>::fail("not read");
  std::optional<int> numa_node;  // NVML's NUMA node of the GPU, where the driver says
};

// nvidia-smi topo's vocabulary, as NVML's nvmlGpuTopologyLevel_t orders it.
enum class NvmlTopology { internal, single, multiple, hostbridge, node, system };
std::string_view to_string(NvmlTopology t);

struct NvmlTopologyPair {
  std::string a, b;  // PCI addresses
  Outcome<NvmlTopology> level = Outcome<NvmlTopology>::fail("not read");
};

struct Xid {
  std::string pci;  // as the driver names it: 0000:17:00 (no function)
  int xid = 0;
  std::string line;  // the kernel log's line, for the report
};

struct NvmlReading {
  // Why NVML could not be used at all (library absent, driver not loaded): every NVML check
  // is then unsupported (absent) or fails (present but broken), with this reason.
  std::optional<std::string> unavailable;
  bool library_present = false;
  std::string library;  // what was loaded
  // A test double of NVML says so (its railyard_nvml_stand_in()): every NVML check names it,
  // so that no one reads a lab result as a GPU's.
  std::optional<std::string> stand_in;
  std::string driver_version;
  // Found by PCI address; a GPU NVML does not know is absent here with its reason.
  std::vector<NvmlGpu> gpus;
  std::vector<std::string> missing;        // "0000:17:00.0: Not Found"
  std::vector<NvmlTopologyPair> topology;  // every pair of the plan's GPUs that NVML has
  Outcome<std::vector<Xid>> xids = Outcome<std::vector<Xid>>::fail("not read");

  const NvmlGpu* gpu(const std::string& pci) const;
  std::optional<std::string> missing_reason(const std::string& pci) const;
  const NvmlTopologyPair* pair(const std::string& a, const std::string& b) const;
};

// The driver's XID lines in kernel log text (/dev/kmsg records or dmesg output): each
// "NVRM: Xid (PCI:0000:17:00): 79, pid=..., ..." with its device and number.
std::vector<Xid> parse_xids(std::string_view log);
// Whether a kernel log XID names this GPU (the driver omits the function).
bool xid_is_for(const Xid& x, const std::string& gpu_pci);

struct NvmlOptions {
  std::string library = "libnvidia-ml.so.1";  // a name for the loader's search, or a path
  std::string kernel_log = "/dev/kmsg";
};

// Loads NVML, reads every GPU of `pcis` and their pairs, shuts NVML down again. Never
// throws; what could not be read is in the reading.
NvmlReading read_nvml(const std::vector<std::string>& pcis, const NvmlOptions& opts = {});

// read_nvml bounded in time: a GPU or driver in a bad state can keep an NVML call from
// returning, and first boot must not hang on it. After `timeout_ms` the reading is
// unavailable ("NVML did not answer within N ms"), and the call is left to its thread.
NvmlReading read_nvml_bounded(const std::vector<std::string>& pcis, int timeout_ms, const NvmlOptions& opts = {});

}  // namespace railyard
