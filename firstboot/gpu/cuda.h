// GPU memory through NVIDIA's CUDA driver API, for the GPUDirect RDMA self-test: memory on a
// given GPU, filled and read back from the host, and exported as a dma-buf where the driver
// can, so that a NIC registers it (checks/ibverbs_data_path.h).
//
// The driver API is loaded at run time (dlopen of libcuda.so.1, which the driver installs):
// the agent has no build dependency on CUDA and runs on nodes without it. A test double of
// the library (tests/doubles/cuda_double.cc) stands in for it in tests; it says so through
// stand_in(), and every result made with it names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

struct CudaOptions {
  std::string library = "libcuda.so.1";  // a name for the loader's search, or a path
};

class Cuda;

// An allocation on one GPU (cuMemAlloc), freed with the object. Its address is a device
// pointer in the process's unified address space: what a NIC is given to read and write.
class GpuMemory {
 public:
  ~GpuMemory();
  GpuMemory(const GpuMemory&) = delete;
  GpuMemory& operator=(const GpuMemory&) = delete;

  std::uint64_t address() const { return ptr_; }
  std::size_t size() const { return size_; }
  // The allocation as a dma-buf (cuMemGetHandleForAddressRange), or -1 with why_no_dmabuf()
  // saying why (an older driver, a GPU or kernel without dma-buf support).
  int dmabuf_fd() const { return dmabuf_fd_; }
  const std::string& why_no_dmabuf() const { return why_no_dmabuf_; }

  Status copy_in(const void* src, std::size_t n);  // host → GPU
  Status copy_out(void* dst, std::size_t n);       // GPU → host

 private:
  friend class Cuda;
  GpuMemory(std::shared_ptr<Cuda> cuda, int device) : cuda_(std::move(cuda)), device_(device) {}
  std::shared_ptr<Cuda> cuda_;
  int device_ = -1;
  std::uint64_t ptr_ = 0;
  std::size_t size_ = 0;
  int dmabuf_fd_ = -1;
  std::string why_no_dmabuf_;
};

class Cuda : public std::enable_shared_from_this<Cuda> {
 public:
  struct Symbols;
  ~Cuda();

  // Loads the library and initializes the driver (cuInit). Fails with EOPNOTSUPP where the
  // library is absent (no NVIDIA driver on the node) and with EIO where it is there and the
  // driver does not work.
  static Outcome<std::shared_ptr<Cuda>> load(const CudaOptions& opts = {});

  // `bytes` (rounded up to whole 2 MiB pages) on the GPU at PCI address `pci`
  // (0000:17:00.0), in its primary context.
  Outcome<std::unique_ptr<GpuMemory>> alloc(const std::string& pci, std::size_t bytes);

  const std::string& library() const { return library_; }
  // What a test double of libcuda says it is; empty for NVIDIA's library.
  const std::optional<std::string>& stand_in() const { return stand_in_; }

 private:
  friend class GpuMemory;
  Cuda() = default;
  std::string why(const char* call, int rc) const;
  Status current(int device);  // makes the device's primary context current on this thread

  void* handle_ = nullptr;
  std::unique_ptr<Symbols> fn_;
  std::string library_;
  std::optional<std::string> stand_in_;
  std::vector<std::pair<int, void*>> retained_;  // devices whose primary context this object holds
};

}  // namespace railyard
