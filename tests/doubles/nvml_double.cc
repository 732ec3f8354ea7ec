// A test double of NVIDIA's libnvidia-ml.so.1: only the calls railyard-firstboot makes,
// answering from a fixture file (RAILYARD_NVML_FIXTURE) read at nvmlInit_v2. It is a lab
// stand-in and says so: railyard_nvml_stand_in() names it, and the agent puts that on every
// check it answers. Built by the tests as libnvidia-ml.so.1 in a directory of its own.
//
// Fixture lines (# comments):
//   init RC                     nvmlInit_v2's return (9: driver not loaded)
//   init_delay_ms MS            nvmlInit_v2 takes that long (a hung driver)
//   driver VERSION
//   gpu PCI key=value...        name (underscores for spaces), uuid, persistence, ecc,
//                               ecc_pending, ecc_unc, remap=CORR,UNC,PENDING,FAILURE or
//                               remap=unsupported with retired_pending=0|1, throttle (hex),
//                               temp, pcie=MAXGEN,MAXWIDTH,GEN,WIDTH, nvlinks=N,
//                               nvlinks_down=I,J, numa
//   topo PCI PCI LEVEL          nvmlDeviceGetTopologyCommonAncestor (0,10,...,50)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <strings.h>

namespace {

constexpr int kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotSupported = 3, kNotFound = 6,
              kInsufficientSize = 7;

struct Gpu {
  std::string pci, name = "NVIDIA_Test_Double", uuid = "GPU-00000000-0000-0000-0000-000000000000";
  int persistence = 1, ecc = 1, ecc_pending = 1, numa = -1;
  unsigned long long ecc_unc = 0, throttle = 0;
  bool remap_supported = true;
  unsigned remap[4] = {0, 0, 0, 0};
  int retired_pending = 0;
  unsigned temp = 40, pcie[4] = {5, 16, 5, 16};
  unsigned nvlinks = 0;
  std::vector<unsigned> nvlinks_down;
};

struct Topo {
  std::string a, b;
  int level;
};

struct State {
  bool initialized = false;
  int init_rc = kSuccess;
  int init_delay_ms = 0;
  std::string driver = "000.00.00";
  std::vector<Gpu> gpus;
  std::vector<Topo> topo;
};

State& state() {
  static State s;
  return s;
}

std::vector<unsigned> numbers(const std::string& v) {
  std::vector<unsigned> out;
  std::stringstream ss(v);
  std::string part;
  while (std::getline(ss, part, ','))
    if (!part.empty()) out.push_back(static_cast<unsigned>(std::strtoul(part.c_str(), nullptr, 0)));
  return out;
}

void set(Gpu& g, const std::string& key, const std::string& v) {
  auto n = [&] { return std::strtoull(v.c_str(), nullptr, 0); };
  if (key == "name") g.name = v;
  else if (key == "uuid") g.uuid = v;
  else if (key == "persistence") g.persistence = static_cast<int>(n());
  else if (key == "ecc") g.ecc = static_cast<int>(n());
  else if (key == "ecc_pending") g.ecc_pending = static_cast<int>(n());
  else if (key == "ecc_unc") g.ecc_unc = n();
  else if (key == "throttle") g.throttle = n();
  else if (key == "temp") g.temp = static_cast<unsigned>(n());
  else if (key == "numa") g.numa = static_cast<int>(n());
  else if (key == "nvlinks") g.nvlinks = static_cast<unsigned>(n());
  else if (key == "nvlinks_down") g.nvlinks_down = numbers(v);
  else if (key == "retired_pending") g.retired_pending = static_cast<int>(n());
  else if (key == "remap" && v == "unsupported") g.remap_supported = false;
  else if (key == "remap") {
    auto r = numbers(v);
    for (std::size_t i = 0; i < 4 && i < r.size(); ++i) g.remap[i] = r[i];
  } else if (key == "pcie") {
    auto p = numbers(v);
    for (std::size_t i = 0; i < 4 && i < p.size(); ++i) g.pcie[i] = p[i];
  } else {
    std::fprintf(stderr, "nvml test double: unknown key %s\n", key.c_str());
  }
}

int load() {
  State s;
  const char* path = std::getenv("RAILYARD_NVML_FIXTURE");
  if (!path) return kUninitialized;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "nvml test double: cannot read %s\n", path);
    return kUninitialized;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::stringstream ss(line);
    std::string word;
    if (!(ss >> word)) continue;
    if (word == "init") ss >> s.init_rc;
    else if (word == "init_delay_ms") ss >> s.init_delay_ms;
    else if (word == "driver") ss >> s.driver;
    else if (word == "topo") {
      Topo t;
      ss >> t.a >> t.b >> t.level;
      s.topo.push_back(t);
    } else if (word == "gpu") {
      Gpu g;
      ss >> g.pci;
      std::string kv;
      while (ss >> kv) {
        auto eq = kv.find('=');
        if (eq != std::string::npos) set(g, kv.substr(0, eq), kv.substr(eq + 1));
      }
      for (char& c : g.name)
        if (c == '_') c = ' ';
      s.gpus.push_back(g);
    }
  }
  int rc = s.init_rc;
  if (s.init_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(s.init_delay_ms));
  s.initialized = rc == kSuccess;
  state() = s;
  return rc;
}

Gpu* gpu(void* handle) {
  auto i = reinterpret_cast<std::size_t>(handle);
  State& s = state();
  if (!s.initialized || i == 0 || i > s.gpus.size()) return nullptr;
  return &s.gpus[i - 1];
}

int copy(const std::string& v, char* buf, unsigned size) {
  if (v.size() + 1 > size) return kInsufficientSize;
  std::memcpy(buf, v.c_str(), v.size() + 1);
  return kSuccess;
}

}  // namespace

extern "C" {

const char* railyard_nvml_stand_in() { return "railyard's test double of libnvidia-ml.so.1"; }

int nvmlInit_v2() { return load(); }
int nvmlShutdown() {
  state().initialized = false;
  return kSuccess;
}

const char* nvmlErrorString(int rc) {
  switch (rc) {
    case kSuccess: return "Success";
    case kUninitialized: return "Uninitialized";
    case kInvalidArgument: return "Invalid Argument";
    case kNotSupported: return "Not Supported";
    case kNotFound: return "Not Found";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

int nvmlSystemGetDriverVersion(char* buf, unsigned size) { return copy(state().driver, buf, size); }

int nvmlDeviceGetHandleByPciBusId_v2(const char* pci, void** out) {
  State& s = state();
  if (!s.initialized) return kUninitialized;
  for (std::size_t i = 0; i < s.gpus.size(); ++i)
    if (strcasecmp(s.gpus[i].pci.c_str(), pci) == 0) {
      *out = reinterpret_cast<void*>(i + 1);
      return kSuccess;
    }
  return kNotFound;
}

#define DOUBLE_GPU(h) \
  Gpu* g = gpu(h);    \
  if (!g) return kInvalidArgument

int nvmlDeviceGetName(void* h, char* buf, unsigned size) {
  DOUBLE_GPU(h);
  return copy(g->name, buf, size);
}
int nvmlDeviceGetUUID(void* h, char* buf, unsigned size) {
  DOUBLE_GPU(h);
  return copy(g->uuid, buf, size);
}
int nvmlDeviceGetPersistenceMode(void* h, int* mode) {
  DOUBLE_GPU(h);
  *mode = g->persistence;
  return kSuccess;
}
int nvmlDeviceGetEccMode(void* h, int* current, int* pending) {
  DOUBLE_GPU(h);
  *current = g->ecc;
  *pending = g->ecc_pending;
  return kSuccess;
}
int nvmlDeviceGetTotalEccErrors(void* h, int type, int counter, unsigned long long* n) {
  DOUBLE_GPU(h);
  // Only what the agent asks: uncorrected (1), volatile (0).
  if (type != 1 || counter != 0) return kInvalidArgument;
  *n = g->ecc_unc;
  return kSuccess;
}
int nvmlDeviceGetRemappedRows(void* h, unsigned* corr, unsigned* unc, unsigned* pending, unsigned* failure) {
  DOUBLE_GPU(h);
  if (!g->remap_supported) return kNotSupported;
  *corr = g->remap[0];
  *unc = g->remap[1];
  *pending = g->remap[2];
  *failure = g->remap[3];
  return kSuccess;
}
int nvmlDeviceGetRetiredPagesPendingStatus(void* h, int* pending) {
  DOUBLE_GPU(h);
  *pending = g->retired_pending;
  return kSuccess;
}
int nvmlDeviceGetCurrentClocksThrottleReasons(void* h, unsigned long long* bits) {
  DOUBLE_GPU(h);
  *bits = g->throttle;
  return kSuccess;
}
int nvmlDeviceGetTemperature(void* h, int sensor, unsigned* t) {
  DOUBLE_GPU(h);
  if (sensor != 0) return kInvalidArgument;
  *t = g->temp;
  return kSuccess;
}
int nvmlDeviceGetMaxPcieLinkGeneration(void* h, unsigned* v) {
  DOUBLE_GPU(h);
  *v = g->pcie[0];
  return kSuccess;
}
int nvmlDeviceGetMaxPcieLinkWidth(void* h, unsigned* v) {
  DOUBLE_GPU(h);
  *v = g->pcie[1];
  return kSuccess;
}
int nvmlDeviceGetCurrPcieLinkGeneration(void* h, unsigned* v) {
  DOUBLE_GPU(h);
  *v = g->pcie[2];
  return kSuccess;
}
int nvmlDeviceGetCurrPcieLinkWidth(void* h, unsigned* v) {
  DOUBLE_GPU(h);
  *v = g->pcie[3];
  return kSuccess;
}
int nvmlDeviceGetNvLinkState(void* h, unsigned link, int* active) {
  DOUBLE_GPU(h);
  if (link >= g->nvlinks) return kNotSupported;
  *active = 1;
  for (unsigned d : g->nvlinks_down)
    if (d == link) *active = 0;
  return kSuccess;
}
int nvmlDeviceGetNumaNodeId(void* h, unsigned* node) {
  DOUBLE_GPU(h);
  if (g->numa < 0) return kNotSupported;
  *node = static_cast<unsigned>(g->numa);
  return kSuccess;
}
int nvmlDeviceGetTopologyCommonAncestor(void* h1, void* h2, int* level) {
  Gpu* a = gpu(h1);
  Gpu* b = gpu(h2);
  if (!a || !b) return kInvalidArgument;
  for (const auto& t : state().topo)
    if ((strcasecmp(t.a.c_str(), a->pci.c_str()) == 0 && strcasecmp(t.b.c_str(), b->pci.c_str()) == 0) ||
        (strcasecmp(t.a.c_str(), b->pci.c_str()) == 0 && strcasecmp(t.b.c_str(), a->pci.c_str()) == 0)) {
      *level = t.level;
      return kSuccess;
    }
  return kNotSupported;
}

}  // extern "C"
