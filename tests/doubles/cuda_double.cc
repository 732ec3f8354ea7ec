// A test double of NVIDIA's libcuda.so.1 (the CUDA driver API): only the calls
// railyard-firstboot makes for its GPUDirect RDMA test, answering from a fixture file
// (RAILYARD_CUDA_FIXTURE) read at cuInit. Its "GPU memory" is host memory, so that a
// Soft-RoCE device can register and write it: it proves railyard's code path, never a GPU.
// It says so: railyard_cuda_stand_in() names it, and the agent puts that on the check.
// Built by the tests as libcuda.so.1 in a directory of its own.
//
// Fixture lines (# comments):
//   init RC                      cuInit's return (100: no device)
//   init_delay_ms MS             cuInit takes that long (a hung driver)
//   gpu PCI key=value...         dmabuf=0|1 (DMA_BUF_SUPPORTED; 1: cuMemGetHandleForAddressRange
//                                answers a memfd, which is not a dma-buf), alloc_rc=N
//                                (cuMemAlloc's return: 2 out of memory), copy_rc=N
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kNotInitialized = 3, kInvalidDevice = 101,
              kInvalidContext = 201, kNotSupported = 801;
constexpr int kAttrDmaBufSupported = 124;

struct Gpu {
  std::string pci;
  int dmabuf = 0, alloc_rc = kSuccess, copy_rc = kSuccess;
  int context = 0;  // what its primary context points at
};

struct State {
  std::mutex lock;
  bool initialized = false;
  std::vector<Gpu> gpus;
  std::map<unsigned long long, std::size_t> allocations;  // "device" pointer → size
  int current = -1;                                       // the device whose context is current
};

State& state() {
  static State s;
  return s;
}

int load() {
  const char* path = std::getenv("RAILYARD_CUDA_FIXTURE");
  if (!path) return kNotInitialized;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cuda test double: cannot read %s\n", path);
    return kNotInitialized;
  }
  int rc = kSuccess, delay_ms = 0;
  std::vector<Gpu> gpus;
  std::string line;
  while (std::getline(in, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::stringstream ss(line);
    std::string word;
    if (!(ss >> word)) continue;
    if (word == "init") ss >> rc;
    else if (word == "init_delay_ms") ss >> delay_ms;
    else if (word == "gpu") {
      Gpu g;
      ss >> g.pci;
      std::string kv;
      while (ss >> kv) {
        auto eq = kv.find('=');
        if (eq == std::string::npos) continue;
        std::string key = kv.substr(0, eq);
        int v = std::atoi(kv.c_str() + eq + 1);
        if (key == "dmabuf") g.dmabuf = v;
        else if (key == "alloc_rc") g.alloc_rc = v;
        else if (key == "copy_rc") g.copy_rc = v;
        else std::fprintf(stderr, "cuda test double: unknown key %s\n", key.c_str());
      }
      gpus.push_back(g);
    }
  }
  if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  s.gpus = gpus;
  s.initialized = rc == kSuccess;
  return rc;
}

// The allocation holding [p, p + n), if any.
bool inside(const State& s, unsigned long long p, std::size_t n) {
  auto it = s.allocations.upper_bound(p);
  if (it == s.allocations.begin()) return false;
  --it;
  return p >= it->first && p + n <= it->first + it->second;
}

int device_of(const State& s, int dev) { return dev >= 0 && static_cast<std::size_t>(dev) < s.gpus.size() ? dev : -1; }

}  // namespace

extern "C" {

const char* railyard_cuda_stand_in() { return "railyard's test double of libcuda.so.1 (tests/doubles/cuda_double.cc)"; }

int cuInit(unsigned flags) { return flags != 0 ? kInvalidValue : load(); }

int cuGetErrorString(int rc, const char** text) {
  switch (rc) {
    case kSuccess: *text = "no error"; return kSuccess;
    case kInvalidValue: *text = "invalid argument"; return kSuccess;
    case kOutOfMemory: *text = "out of memory"; return kSuccess;
    case kNotInitialized: *text = "initialization error"; return kSuccess;
    case 100: *text = "no CUDA-capable device is detected"; return kSuccess;
    case kInvalidDevice: *text = "invalid device ordinal"; return kSuccess;
    case kInvalidContext: *text = "invalid device context"; return kSuccess;
    case kNotSupported: *text = "operation not supported"; return kSuccess;
    default: *text = nullptr; return kInvalidValue;
  }
}

int cuDeviceGetByPCIBusId(int* dev, const char* pci) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  if (!s.initialized) return kNotInitialized;
  for (std::size_t i = 0; i < s.gpus.size(); ++i)
    if (strcasecmp(s.gpus[i].pci.c_str(), pci) == 0) {
      *dev = static_cast<int>(i);
      return kSuccess;
    }
  return kInvalidDevice;
}

int cuDevicePrimaryCtxRetain(void** ctx, int dev) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  if (device_of(s, dev) < 0) return kInvalidDevice;
  *ctx = &s.gpus[static_cast<std::size_t>(dev)].context;
  return kSuccess;
}

int cuDevicePrimaryCtxRelease_v2(int dev) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  return device_of(s, dev) < 0 ? kInvalidDevice : kSuccess;
}

int cuCtxSetCurrent(void* ctx) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  for (std::size_t i = 0; i < s.gpus.size(); ++i)
    if (ctx == &s.gpus[i].context) {
      s.current = static_cast<int>(i);
      return kSuccess;
    }
  return kInvalidContext;
}

int cuDeviceGetAttribute(int* value, int attribute, int dev) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  if (device_of(s, dev) < 0) return kInvalidDevice;
  if (attribute != kAttrDmaBufSupported) return kInvalidValue;
  *value = s.gpus[static_cast<std::size_t>(dev)].dmabuf;
  return kSuccess;
}

int cuMemAlloc_v2(unsigned long long* ptr, std::size_t bytes) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  if (s.current < 0) return kInvalidContext;
  if (int rc = s.gpus[static_cast<std::size_t>(s.current)].alloc_rc; rc != kSuccess) return rc;
  void* p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!p) return kOutOfMemory;
  *ptr = reinterpret_cast<std::uintptr_t>(p);
  s.allocations[*ptr] = bytes;
  return kSuccess;
}

int cuMemFree_v2(unsigned long long ptr) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  if (s.allocations.erase(ptr) == 0) return kInvalidValue;
  std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr)));
  return kSuccess;
}

int cuPointerSetAttribute(const void* /*value*/, int /*attribute*/, unsigned long long ptr) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  return inside(s, ptr, 1) ? kSuccess : kInvalidValue;
}

int cuMemcpyHtoD_v2(unsigned long long dst, const void* src, std::size_t n) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  if (s.current < 0) return kInvalidContext;
  if (int rc = s.gpus[static_cast<std::size_t>(s.current)].copy_rc; rc != kSuccess) return rc;
  if (!inside(s, dst, n)) return kInvalidValue;
  std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(dst)), src, n);
  return kSuccess;
}

int cuMemcpyDtoH_v2(void* dst, unsigned long long src, std::size_t n) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  if (s.current < 0) return kInvalidContext;
  if (int rc = s.gpus[static_cast<std::size_t>(s.current)].copy_rc; rc != kSuccess) return rc;
  if (!inside(s, src, n)) return kInvalidValue;
  std::memcpy(dst, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(src)), n);
  return kSuccess;
}

int cuMemGetHandleForAddressRange(void* handle, unsigned long long ptr, std::size_t size, int type,
                                  unsigned long long flags) {
  State& s = state();
  std::lock_guard<std::mutex> hold(s.lock);
  if (type != 1 || flags != 0 || !inside(s, ptr, size)) return kInvalidValue;
  if (s.current < 0 || !s.gpus[static_cast<std::size_t>(s.current)].dmabuf) return kNotSupported;
  int fd = memfd_create("railyard-cuda-double-not-a-dma-buf", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(size)) != 0) return kOutOfMemory;
  *static_cast<int*>(handle) = fd;
  return kSuccess;
}

}  // extern "C"
