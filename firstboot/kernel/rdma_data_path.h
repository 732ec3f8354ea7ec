// The RDMA data path as an interface: RC queue pairs and RDMA WRITEs between two devices'
// GIDs, or from a device to itself through a GPU's memory. libibverbs implements it
// (checks/ibverbs_data_path.h); tests use fakes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "outcome.h"

namespace railyard {

class RdmaDataPath {
 public:
  virtual ~RdmaDataPath() = default;
  // RC queue pairs between (from, from_gid) and (to, to_gid), RDMA WRITE of `bytes`, read
  // back and compared. Returns the throughput in Mb/s, or why it failed. Called from several
  // threads at once (rails.cross_rdma_write tests pairs of disjoint devices together).
  virtual Outcome<double> write_test(const std::string& from_dev, int from_gid, const std::string& to_dev, int to_gid,
                                     std::size_t bytes, int timeout_ms) = 0;

  // GPUDirect RDMA: the same write from `dev` to itself whose source and destination are
  // memory of the GPU at `gpu_pci`, registered with the NIC as a dma-buf or through
  // nvidia-peermem. Bounded by `timeout_ms` for the GPU's set-up and again for the transfer.
  struct GpuWrite {
    double mbps = 0;
    std::string registration;             // how the NIC was given the GPU's memory: "dma-buf", "nvidia-peermem"
    std::optional<std::string> stand_in;  // a test double of libcuda says what it is
  };
  virtual Outcome<GpuWrite> gpu_write_test(const std::string& dev, int gid, const std::string& gpu_pci,
                                           std::size_t bytes, int timeout_ms) = 0;
};

}  // namespace railyard
