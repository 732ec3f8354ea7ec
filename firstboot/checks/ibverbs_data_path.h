// The RDMA WRITE test over libibverbs: RC queue pairs, RoCE v2 GIDs, bytes compared; from
// host memory, or from a GPU's memory (CUDA through dlopen, gpu/cuda.h) for GPUDirect RDMA.
#pragma once

#include <memory>

#include "gpu/cuda.h"
#include "kernel/rdma_data_path.h"

namespace railyard {

class IbverbsDataPath : public RdmaDataPath {
 public:
  explicit IbverbsDataPath(CudaOptions cuda = {});
  ~IbverbsDataPath() override;
  Outcome<double> write_test(const std::string& from_dev, int from_gid, const std::string& to_dev, int to_gid,
                             std::size_t bytes, int timeout_ms) override;
  Outcome<GpuWrite> gpu_write_test(const std::string& dev, int gid, const std::string& gpu_pci, std::size_t bytes,
                                   int timeout_ms) override;

 private:
  CudaOptions cuda_options_;
  // Shared with the threads that run the GPU tests: a CUDA call that never returns keeps
  // only its own thread, and the tests after it fail at once instead of hanging again.
  struct GpuState;
  std::shared_ptr<GpuState> gpu_;
};

}  // namespace railyard
