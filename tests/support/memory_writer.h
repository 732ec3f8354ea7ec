// Test helper: a node's RDMA side in memory for the peer probes (checks/peer_probe.h): a
// "write" copies its buffer into the slice the responder granted, may spoil one byte of it,
// and may move a counter of the node's mlx5_0 on the fake host on the way (a retransmission
// the fabric caused). memory_writers() hands the probes a copy of it per attempt.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "checks/peer_probe.h"
#include "support/fake_host.h"
#include "support/probe_rig.h"

namespace railyard::test {

// Where mlx5_0's port counters sit on the fake host.
inline const std::string kMlx5Counters = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/";

struct MemoryWriter : ProbeWriter {
  MemorySlices* slices = nullptr;
  OpenHost* host = nullptr;
  std::string bump;  // a counter of mlx5_0 set to `bump_to` during the write
  std::string bump_to = "3";
  bool corrupt = false;  // one byte of the slice spoiled after the write
  ProbeTransfer figures{12.5, 8.0};
  std::vector<std::uint8_t> data;
  Outcome<ProbeQp> prepare(std::uint32_t bytes) override {
    data.assign(bytes, 0x5a);
    return ProbeQp{0x42, 1, {}};
  }
  Outcome<ProbeTransfer> write(const ProbeAccept& accept) override {
    auto& slice = slices->memory[accept.rkey - 1];
    std::copy(data.begin(), data.end(), slice.begin());
    if (corrupt) slice[7] ^= 0xff;
    if (!bump.empty()) host->files[kMlx5Counters + bump] = bump_to;
    return figures;
  }
  std::span<const std::uint8_t> buffer() const override { return data; }
};

inline checks::WriterFactory memory_writers(MemoryWriter& w) {
  return [&w](const std::string&, int, int, std::chrono::milliseconds, std::uint64_t) {
    return std::unique_ptr<ProbeWriter>(std::make_unique<MemoryWriter>(w));
  };
}

// mlx5_0's counters that the peer checks read, each at 0 on `host`.
inline void zero_mlx5_counters(OpenHost& host) {
  for (const char* c : {"out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err",
                        "np_cnp_sent", "rp_cnp_handled"})
    host.files[kMlx5Counters + c] = "0";
}

}  // namespace railyard::test
