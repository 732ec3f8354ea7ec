#include "gpu/nvml.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <thread>

#include "gpu/dl_symbol.h"

namespace railyard {

namespace {

// NVML's C types and values as its API reference documents them; the agent declares the few
// it uses instead of building against nvml.h.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kInvalidArgument = 2;
constexpr nvmlReturn_t kNvmlNotSupported = 3;
constexpr int kEnabled = 1;           // nvmlEnableState_t
constexpr int kUncorrected = 1;       // nvmlMemoryErrorType_t
constexpr int kVolatileEcc = 0;       // nvmlEccCounterType_t
constexpr int kTemperatureGpu = 0;    // nvmlTemperatureSensors_t
constexpr unsigned kMaxNvlinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr unsigned kTextBuffer = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE, ..._UUID_V2_...

struct Library {
  void* handle = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*persistence)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*ecc_mode)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*ecc_errors)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*retired_pending)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*throttle)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_gen)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*max_width)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*gen)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*width)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*common_ancestor)(nvmlDevice_t, nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*numa_node)(nvmlDevice_t, unsigned*) = nullptr;
  const char* (*stand_in)() = nullptr;  // only a test double exports it

  ~Library() {
    if (handle) ::dlclose(handle);
  }

  std::string why(const char* call, nvmlReturn_t rc) const {
    const char* text = error_string ? error_string(rc) : nullptr;
    return std::string(call) + ": " + (text ? text : "NVML error " + std::to_string(rc));
  }

  template <class T>
  Outcome<T> failed(const char* call, nvmlReturn_t rc) const {
    return Outcome<T>::fail(rc == kNvmlNotSupported ? EOPNOTSUPP : 0, why(call, rc));
  }
};

template <class T>
Outcome<T> absent(const char* call) {
  return Outcome<T>::fail(EOPNOTSUPP, std::string("this libnvidia-ml.so.1 has no ") + call + " (an older driver)");
}

Outcome<std::string> text(const Library& lib, nvmlReturn_t (*fn)(nvmlDevice_t, char*, unsigned), const char* call,
                          nvmlDevice_t dev) {
  if (!fn) return absent<std::string>(call);
  char buf[kTextBuffer] = {};
  nvmlReturn_t rc = fn(dev, buf, sizeof buf);
  if (rc != kNvmlSuccess) return lib.failed<std::string>(call, rc);
  buf[sizeof buf - 1] = '\0';
  return std::string(buf);
}

Outcome<unsigned> number(const Library& lib, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned*), const char* call,
                         nvmlDevice_t dev) {
  if (!fn) return absent<unsigned>(call);
  unsigned v = 0;
  nvmlReturn_t rc = fn(dev, &v);
  if (rc != kNvmlSuccess) return lib.failed<unsigned>(call, rc);
  return v;
}

Outcome<NvmlEcc> read_ecc(const Library& lib, nvmlDevice_t dev) {
  if (!lib.ecc_mode) return absent<NvmlEcc>("nvmlDeviceGetEccMode");
  int current = 0, pending = 0;
  if (nvmlReturn_t rc = lib.ecc_mode(dev, &current, &pending); rc != kNvmlSuccess)
    return lib.failed<NvmlEcc>("nvmlDeviceGetEccMode", rc);
  NvmlEcc e{current == kEnabled, pending == kEnabled, 0};
  if (e.enabled) {
    if (!lib.ecc_errors) return absent<NvmlEcc>("nvmlDeviceGetTotalEccErrors");
    unsigned long long n = 0;
    if (nvmlReturn_t rc = lib.ecc_errors(dev, kUncorrected, kVolatileEcc, &n); rc != kNvmlSuccess)
      return lib.failed<NvmlEcc>("nvmlDeviceGetTotalEccErrors", rc);
    e.volatile_uncorrected = n;
  }
  return e;
}

Outcome<NvmlRemap> read_remap(const Library& lib, nvmlDevice_t dev) {
  if (lib.remapped_rows) {
    unsigned corr = 0, unc = 0, pending = 0, failure = 0;
    nvmlReturn_t rc = lib.remapped_rows(dev, &corr, &unc, &pending, &failure);
    if (rc == kNvmlSuccess) return NvmlRemap{true, corr, unc, pending != 0, failure != 0};
    if (rc != kNvmlNotSupported) return lib.failed<NvmlRemap>("nvmlDeviceGetRemappedRows", rc);
  }
  // Before row remapping (Volta and older): page retirement.
  if (!lib.retired_pending) return absent<NvmlRemap>("nvmlDeviceGetRetiredPagesPendingStatus");
  int pending = 0;
  if (nvmlReturn_t rc = lib.retired_pending(dev, &pending); rc != kNvmlSuccess)
    return lib.failed<NvmlRemap>("nvmlDeviceGetRetiredPagesPendingStatus", rc);
  NvmlRemap r;
  r.row_remapping = false;
  r.pending = pending == kEnabled;
  return r;
}

Outcome<NvmlPcie> read_pcie(const Library& lib, nvmlDevice_t dev) {
  auto mg = number(lib, lib.max_gen, "nvmlDeviceGetMaxPcieLinkGeneration", dev);
  auto mw = number(lib, lib.max_width, "nvmlDeviceGetMaxPcieLinkWidth", dev);
  auto g = number(lib, lib.gen, "nvmlDeviceGetCurrPcieLinkGeneration", dev);
  auto w = number(lib, lib.width, "nvmlDeviceGetCurrPcieLinkWidth", dev);
  for (const auto* o : {&mg, &mw, &g, &w})
    if (!o->ok()) return Outcome<NvmlPcie>::fail(*o);
  return NvmlPcie{*mg, *mw, *g, *w};
}

Outcome<std::vector<bool>> read_nvlinks(const Library& lib, nvmlDevice_t dev) {
  if (!lib.nvlink_state) return absent<std::vector<bool>>("nvmlDeviceGetNvLinkState");
  std::vector<bool> links;
  for (unsigned link = 0; link < kMaxNvlinks; ++link) {
    int active = 0;
    nvmlReturn_t rc = lib.nvlink_state(dev, link, &active);
    // Past the GPU's last link, or a GPU without NVLink: NVML says not supported or invalid.
    if (rc == kNvmlNotSupported || rc == kInvalidArgument) break;
    if (rc != kNvmlSuccess) return lib.failed<std::vector<bool>>("nvmlDeviceGetNvLinkState", rc);
    links.push_back(active == kEnabled);
  }
  return links;
}

Outcome<NvmlTopology> topology_level(int level) {
  switch (level) {
    case 0: return NvmlTopology::internal;
    case 10: return NvmlTopology::single;
    case 20: return NvmlTopology::multiple;
    case 30: return NvmlTopology::hostbridge;
    case 40: return NvmlTopology::node;
    case 50: return NvmlTopology::system;
    default: return Outcome<NvmlTopology>::fail("unknown topology level " + std::to_string(level));
  }
}

NvmlGpu read_gpu(const Library& lib, const std::string& pci, nvmlDevice_t dev) {
  NvmlGpu g;
  g.pci = pci;
  g.name = text(lib, lib.name, "nvmlDeviceGetName", dev);
  g.uuid = text(lib, lib.uuid, "nvmlDeviceGetUUID", dev);
  if (!lib.persistence) {
    g.persistence = absent<bool>("nvmlDeviceGetPersistenceMode");
  } else {
    int mode = 0;
    nvmlReturn_t rc = lib.persistence(dev, &mode);
    g.persistence =
        rc == kNvmlSuccess ? Outcome<bool>(mode == kEnabled) : lib.failed<bool>("nvmlDeviceGetPersistenceMode", rc);
  }
  g.ecc = read_ecc(lib, dev);
  g.remap = read_remap(lib, dev);
  if (!lib.throttle) {
    g.throttle = absent<std::uint64_t>("nvmlDeviceGetCurrentClocksThrottleReasons");
  } else {
    unsigned long long bits = 0;
    nvmlReturn_t rc = lib.throttle(dev, &bits);
    g.throttle = rc == kNvmlSuccess ? Outcome<std::uint64_t>(bits)
                                    : lib.failed<std::uint64_t>("nvmlDeviceGetCurrentClocksThrottleReasons", rc);
  }
  if (!lib.temperature) {
    g.temperature_c = absent<unsigned>("nvmlDeviceGetTemperature");
  } else {
    unsigned t = 0;
    nvmlReturn_t rc = lib.temperature(dev, kTemperatureGpu, &t);
    g.temperature_c = rc == kNvmlSuccess ? Outcome<unsigned>(t) : lib.failed<unsigned>("nvmlDeviceGetTemperature", rc);
  }
  g.pcie = read_pcie(lib, dev);
  g.nvlinks = read_nvlinks(lib, dev);
  if (lib.numa_node) {
    unsigned node = 0;
    if (lib.numa_node(dev, &node) == kNvmlSuccess) g.numa_node = static_cast<int>(node);
  }
  return g;
}

Outcome<std::string> read_kernel_log(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Outcome<std::string>::from_errno(errno, "open " + path);
  std::string out;
  char buf[8192];
  // /dev/kmsg gives one record per read and EAGAIN at the end; a file (a saved log) ends at
  // 0. EPIPE: records overwritten while reading, the next read goes on. Bounded at 64 MiB.
  while (out.size() < (64u << 20)) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      if (out.back() != '\n') out += '\n';
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) continue;
    if (n == 0 || errno == EAGAIN) break;
    int err = errno;
    ::close(fd);
    return Outcome<std::string>::from_errno(err, "read " + path);
  }
  ::close(fd);
  return out;
}

bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string_view to_string(NvmlTopology t) {
  switch (t) {
    case NvmlTopology::internal: return "internal";
    case NvmlTopology::single: return "PIX";
    case NvmlTopology::multiple: return "PXB";
    case NvmlTopology::hostbridge: return "PHB";
    case NvmlTopology::node: return "NODE";
    case NvmlTopology::system: return "SYS";
  }
  return "?";
}

const NvmlGpu* NvmlReading::gpu(const std::string& pci) const {
  for (const auto& g : gpus)
    if (g.pci == pci) return &g;
  return nullptr;
}

std::optional<std::string> NvmlReading::missing_reason(const std::string& pci) const {
  for (const auto& m : missing)
    if (m.rfind(pci + ": ", 0) == 0) return m.substr(pci.size() + 2);
  return std::nullopt;
}

const NvmlTopologyPair* NvmlReading::pair(const std::string& a, const std::string& b) const {
  for (const auto& p : topology)
    if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return &p;
  return nullptr;
}

std::vector<Xid> parse_xids(std::string_view log) {
  std::vector<Xid> out;
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string_view line = log.substr(start, end - start);
    start = end + 1;
    std::size_t at = line.find("NVRM: Xid (");
    if (at == std::string_view::npos) continue;
    std::string_view rest = line.substr(at + 11);
    if (rest.substr(0, 4) == "PCI:") rest.remove_prefix(4);
    std::size_t close = rest.find("): ");
    if (close == std::string_view::npos || close > 16) continue;
    Xid x;
    x.pci = std::string(rest.substr(0, close));
    std::string_view num = rest.substr(close + 3);
    std::size_t digits = 0;
    while (digits < num.size() && digits < 5 && std::isdigit(static_cast<unsigned char>(num[digits]))) ++digits;
    if (digits == 0) continue;
    x.xid = std::stoi(std::string(num.substr(0, digits)));
    std::string text(line.substr(at));
    for (char& c : text)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    x.line = text.substr(0, 240);
    out.push_back(std::move(x));
  }
  return out;
}

bool xid_is_for(const Xid& x, const std::string& gpu_pci) {
  std::string_view bus = gpu_pci;
  if (std::size_t dot = bus.rfind('.'); dot != std::string_view::npos) bus = bus.substr(0, dot);
  if (same_text(x.pci, bus)) return true;
  // Some drivers print the bus without its domain.
  return bus.size() > 5 && same_text(x.pci, bus.substr(5));
}

NvmlReading read_nvml(const std::vector<std::string>& pcis, const NvmlOptions& opts) {
  NvmlReading r;
  if (auto log = read_kernel_log(opts.kernel_log); log.ok()) r.xids = parse_xids(*log);
  else r.xids = Outcome<std::vector<Xid>>::fail(log, "the kernel log");

  Library lib;
  lib.handle = ::dlopen(opts.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    const char* e = ::dlerror();
    r.unavailable = "NVML is not on this node (" + std::string(e ? e : opts.library) +
                    "): the NVIDIA driver's user-space library is not installed";
    return r;
  }
  r.library_present = true;
  r.library = opts.library;
  void* h = lib.handle;
  lib.init = dl_symbol<decltype(lib.init)>(h, "nvmlInit_v2");
  lib.shutdown = dl_symbol<decltype(lib.shutdown)>(h, "nvmlShutdown");
  lib.error_string = dl_symbol<decltype(lib.error_string)>(h, "nvmlErrorString");
  lib.by_pci = dl_symbol<decltype(lib.by_pci)>(h, "nvmlDeviceGetHandleByPciBusId_v2");
  if (!lib.init || !lib.shutdown || !lib.by_pci) {
    r.unavailable =
        opts.library + " lacks nvmlInit_v2, nvmlShutdown or nvmlDeviceGetHandleByPciBusId_v2: not a usable NVML";
    return r;
  }
  lib.stand_in = dl_symbol<decltype(lib.stand_in)>(h, "railyard_nvml_stand_in");
  if (lib.stand_in) r.stand_in = std::string(lib.stand_in());
  lib.driver_version = dl_symbol<decltype(lib.driver_version)>(h, "nvmlSystemGetDriverVersion");
  lib.name = dl_symbol<decltype(lib.name)>(h, "nvmlDeviceGetName");
  lib.uuid = dl_symbol<decltype(lib.uuid)>(h, "nvmlDeviceGetUUID");
  lib.persistence = dl_symbol<decltype(lib.persistence)>(h, "nvmlDeviceGetPersistenceMode");
  lib.ecc_mode = dl_symbol<decltype(lib.ecc_mode)>(h, "nvmlDeviceGetEccMode");
  lib.ecc_errors = dl_symbol<decltype(lib.ecc_errors)>(h, "nvmlDeviceGetTotalEccErrors");
  lib.remapped_rows = dl_symbol<decltype(lib.remapped_rows)>(h, "nvmlDeviceGetRemappedRows");
  lib.retired_pending = dl_symbol<decltype(lib.retired_pending)>(h, "nvmlDeviceGetRetiredPagesPendingStatus");
  // Renamed "clocks event reasons" in newer drivers; the old name stays exported.
  lib.throttle = dl_symbol<decltype(lib.throttle)>(h, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!lib.throttle) lib.throttle = dl_symbol<decltype(lib.throttle)>(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
  lib.temperature = dl_symbol<decltype(lib.temperature)>(h, "nvmlDeviceGetTemperature");
  lib.max_gen = dl_symbol<decltype(lib.max_gen)>(h, "nvmlDeviceGetMaxPcieLinkGeneration");
  lib.max_width = dl_symbol<decltype(lib.max_width)>(h, "nvmlDeviceGetMaxPcieLinkWidth");
  lib.gen = dl_symbol<decltype(lib.gen)>(h, "nvmlDeviceGetCurrPcieLinkGeneration");
  lib.width = dl_symbol<decltype(lib.width)>(h, "nvmlDeviceGetCurrPcieLinkWidth");
  lib.nvlink_state = dl_symbol<decltype(lib.nvlink_state)>(h, "nvmlDeviceGetNvLinkState");
  lib.common_ancestor = dl_symbol<decltype(lib.common_ancestor)>(h, "nvmlDeviceGetTopologyCommonAncestor");
  lib.numa_node = dl_symbol<decltype(lib.numa_node)>(h, "nvmlDeviceGetNumaNodeId");

  if (nvmlReturn_t rc = lib.init(); rc != kNvmlSuccess) {
    // The library is there and the driver is not: a broken node, not a node without GPUs.
    r.unavailable = lib.why("nvmlInit_v2", rc) + " (is the nvidia kernel module loaded? see dmesg)";
    return r;
  }
  if (lib.driver_version) {
    char buf[80] = {};
    if (lib.driver_version(buf, sizeof buf) == kNvmlSuccess) {
      buf[sizeof buf - 1] = '\0';
      r.driver_version = buf;
    }
  }
  std::vector<std::pair<std::string, nvmlDevice_t>> handles;
  for (const auto& pci : pcis) {
    nvmlDevice_t dev = nullptr;
    if (nvmlReturn_t rc = lib.by_pci(pci.c_str(), &dev); rc != kNvmlSuccess) {
      r.missing.push_back(pci + ": " + lib.why("nvmlDeviceGetHandleByPciBusId_v2", rc));
      continue;
    }
    handles.emplace_back(pci, dev);
    r.gpus.push_back(read_gpu(lib, pci, dev));
  }
  for (std::size_t i = 0; i < handles.size(); ++i)
    for (std::size_t j = i + 1; j < handles.size(); ++j) {
      NvmlTopologyPair p{handles[i].first, handles[j].first, Outcome<NvmlTopology>::fail("")};
      if (!lib.common_ancestor) {
        p.level = absent<NvmlTopology>("nvmlDeviceGetTopologyCommonAncestor");
      } else {
        int level = 0;
        nvmlReturn_t rc = lib.common_ancestor(handles[i].second, handles[j].second, &level);
        p.level = rc == kNvmlSuccess ? topology_level(level)
                                     : lib.failed<NvmlTopology>("nvmlDeviceGetTopologyCommonAncestor", rc);
      }
      r.topology.push_back(std::move(p));
    }
  lib.shutdown();
  return r;
}

NvmlReading read_nvml_bounded(const std::vector<std::string>& pcis, int timeout_ms, const NvmlOptions& opts) {
  auto result = std::make_shared<std::promise<NvmlReading>>();
  std::future<NvmlReading> answer = result->get_future();
  // Detached: a call that never returns keeps only its own thread; the reading's inputs are
  // copied into it.
  std::thread([result, pcis, opts] { result->set_value(read_nvml(pcis, opts)); }).detach();
  if (answer.wait_for(std::chrono::milliseconds(timeout_ms)) == std::future_status::ready) return answer.get();
  NvmlReading r;
  r.library_present = true;
  r.unavailable = "NVML did not answer within " + std::to_string(timeout_ms) +
                  " ms (selftest.check_timeout_ms): a GPU or the driver is hung; see dmesg (NVRM) and nvidia-smi";
  r.xids = Outcome<std::vector<Xid>>::fail("not read: NVML's reading did not finish");
  return r;
}

}  // namespace railyard
