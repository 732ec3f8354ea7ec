#include "checks/ibverbs_data_path.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <cstring>
#include <future>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "probe/verbs.h"

namespace railyard {

namespace {

using Steady = verbs::Clock;

constexpr int kDepth = 16;                 // WRITEs in flight
constexpr std::size_t kChunk = 64 * 1024;  // bytes per WRITE
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
// Both ends' first packet sequence number.
constexpr std::uint32_t kPsn = 1;

// One side of the test, on probe/verbs.h's owners: the device, a protection domain, an RC
// queue pair, and the registered memory (host memory in `host`, or a GPU's). Declared in
// the order they are made, so that they go in the reverse one.
struct Side {
  std::unique_ptr<verbs::Device> dev;
  std::unique_ptr<verbs::ProtectionDomain> pd;
  std::unique_ptr<verbs::QueuePair> qp;
  std::vector<std::uint8_t> host;
  std::unique_ptr<verbs::Region> mr;
};

Status open(Side& s, const std::string& name, int gid_index) {
  auto dev = verbs::Device::open(name, gid_index);
  if (!dev.ok()) return dev.status();
  s.dev = std::move(*dev);
  auto pd = verbs::ProtectionDomain::create(*s.dev);
  if (!pd.ok()) return pd.status();
  s.pd = std::move(*pd);
  auto qp = verbs::QueuePair::create(*s.dev, *s.pd, kDepth);
  if (!qp.ok()) return qp.status();
  s.qp = std::move(*qp);
  return success();
}

Status register_host(Side& s, std::size_t bytes, const std::string& name) {
  s.host.assign(bytes, 0);
  auto mr = verbs::Region::create(*s.pd, s.host.data(), bytes, kAccess);
  if (!mr.ok()) return Status::fail(mr, name);
  s.mr = std::move(*mr);
  return success();
}

// A GPU's memory given to the NIC: as a dma-buf where CUDA exports one and the NIC's driver
// takes it (the upstream path), else as the device pointer itself, which the NIC's driver
// resolves through nvidia-peermem. `how` says which.
Status register_gpu(Side& s, GpuMemory& m, std::size_t bytes, const std::string& name, std::string& how) {
  std::string dmabuf = m.why_no_dmabuf();
  if (m.dmabuf_fd() >= 0) {
    auto mr = verbs::Region::create_dmabuf(*s.pd, m.dmabuf_fd(), m.address(), bytes, kAccess);
    if (mr.ok()) {
      s.mr = std::move(*mr);
      how = "dma-buf";
      return success();
    }
    dmabuf = mr.error();
  }
  auto mr = verbs::Region::create(*s.pd, reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(m.address())),
                                  bytes, kAccess);
  if (!mr.ok())
    return Status::from_errno(mr.code(), name + ": register GPU memory (dma-buf: " + dmabuf +
                                             "; ibv_reg_mr on GPU memory needs nvidia_peermem loaded)");
  s.mr = std::move(*mr);
  how = "nvidia-peermem";
  return success();
}

void pattern(std::vector<std::uint8_t>& buf) {
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<std::uint8_t>((i * 131 + 7) & 0xff);
}

// Both queue pairs connected to each other, at the path MTU both ports carry.
Status connect(Side& a, Side& b) {
  const int mtu = std::min(a.dev->path_mtu(4096), b.dev->path_mtu(4096));
  for (auto [self, peer] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    ProbeQp remote = peer->qp->local(kPsn);
    remote.gid = peer->dev->gid();
    if (Status s = self->qp->connect(*self->dev, remote, kPsn, mtu, kAccess); !s.ok()) return s;
  }
  return success();
}

// `bytes` from `from` to `to` by RDMA WRITE, kDepth in flight; the throughput in Mb/s. With
// nothing completed yet the test sleeps on the completion queue's event rather than spinning
// (QueuePair::complete with no spin): where CPUs are few (the lab's two emulated ones) a
// spinning test takes the CPU from the Soft-RoCE work that completes its writes and from
// everything booting beside it.
Outcome<double> transfer(Side& from, Side& to, std::size_t bytes, int timeout_ms, const std::string& label) {
  using Result = Outcome<double>;
  auto deadline = Steady::now() + std::chrono::milliseconds(timeout_ms);
  auto start = Steady::now();
  std::size_t posted = 0, completed = 0, chunks = (bytes + kChunk - 1) / kChunk;
  while (completed < chunks) {
    while (posted < chunks && posted - completed < kDepth) {
      std::size_t off = posted * kChunk, len = std::min(kChunk, bytes - off);
      if (Status s = from.qp->post_write(posted, from.mr->address() + off, static_cast<std::uint32_t>(len),
                                         from.mr->lkey(), to.mr->address() + off, to.mr->rkey());
          !s.ok())
        return Result::fail(s, label);
      ++posted;
    }
    auto n = from.qp->complete(deadline);
    if (!n.ok() && n.code() == ETIMEDOUT)
      return Result::fail(
          ETIMEDOUT, label + ": no completion within " + std::to_string(timeout_ms) + " ms (lossless fabric stalled?)");
    if (!n.ok()) return Result::fail(n, label);
    completed += static_cast<std::size_t>(*n);
  }
  double seconds = std::chrono::duration<double>(Steady::now() - start).count();
  return Result(seconds > 0 ? static_cast<double>(bytes) * 8 / seconds / 1e6 : 0);
}

using GpuWrite = RdmaDataPath::GpuWrite;

}  // namespace

struct IbverbsDataPath::GpuState {
  std::mutex lock;  // loading CUDA
  std::shared_ptr<Cuda> cuda;
  std::atomic<bool> hung{false};
};

IbverbsDataPath::IbverbsDataPath(CudaOptions cuda)
    : cuda_options_(std::move(cuda)), gpu_(std::make_shared<GpuState>()) {}
IbverbsDataPath::~IbverbsDataPath() = default;

Outcome<double> IbverbsDataPath::write_test(const std::string& from_dev, int from_gid, const std::string& to_dev,
                                            int to_gid, std::size_t bytes, int timeout_ms) {
  using Result = Outcome<double>;
  Side from, to;
  if (Status s = open(from, from_dev, from_gid); !s.ok()) return Result::fail(s);
  if (Status s = open(to, to_dev, to_gid); !s.ok()) return Result::fail(s);
  if (Status s = register_host(from, bytes, from_dev); !s.ok()) return Result::fail(s);
  if (Status s = register_host(to, bytes, to_dev); !s.ok()) return Result::fail(s);
  if (Status s = connect(from, to); !s.ok()) return Result::fail(s);
  pattern(from.host);
  std::string label = from_dev + " → " + to_dev;
  auto t = transfer(from, to, bytes, timeout_ms, label);
  if (!t.ok()) return t;
  if (from.host != to.host) return Result::fail(EIO, label + ": the bytes written differ from the bytes read");
  return t;
}

namespace {

// The GPUDirect write itself, on its own thread (IbverbsDataPath::gpu_write_test bounds it).
Outcome<GpuWrite> gpu_write(const std::shared_ptr<Cuda>& cuda, const std::string& dev, int gid, const std::string& pci,
                            std::size_t bytes, int timeout_ms) {
  using Result = Outcome<GpuWrite>;
  // Declared before the sides: the memory regions go before the memory behind them.
  auto src = cuda->alloc(pci, bytes);
  if (!src.ok()) return Result::fail(src);
  auto dst = cuda->alloc(pci, bytes);
  if (!dst.ok()) return Result::fail(dst);
  Side from, to;
  std::string how_from, how_to;
  if (Status s = open(from, dev, gid); !s.ok()) return Result::fail(s);
  if (Status s = open(to, dev, gid); !s.ok()) return Result::fail(s);
  if (Status s = register_gpu(from, **src, bytes, dev, how_from); !s.ok()) return Result::fail(s);
  if (Status s = register_gpu(to, **dst, bytes, dev, how_to); !s.ok()) return Result::fail(s);
  if (Status s = connect(from, to); !s.ok()) return Result::fail(s);
  std::vector<std::uint8_t> sent(bytes), seen(bytes, 0);
  pattern(sent);
  if (Status s = (*dst)->copy_in(seen.data(), bytes); !s.ok()) return Result::fail(s, pci);
  if (Status s = (*src)->copy_in(sent.data(), bytes); !s.ok()) return Result::fail(s, pci);
  std::string label = dev + " GPU " + pci + " → GPU " + pci;
  auto t = transfer(from, to, bytes, timeout_ms, label);
  if (!t.ok()) return Result::fail(t);
  if (Status s = (*dst)->copy_out(seen.data(), bytes); !s.ok()) return Result::fail(s, pci);
  if (sent != seen) return Result::fail(EIO, label + ": the bytes in GPU memory differ from the bytes written");
  GpuWrite w;
  w.mbps = *t;
  w.registration = how_from == how_to ? how_from : how_from + "/" + how_to;
  w.stand_in = cuda->stand_in();
  return w;
}

}  // namespace

Outcome<GpuWrite> IbverbsDataPath::gpu_write_test(const std::string& dev, int gid, const std::string& gpu_pci,
                                                  std::size_t bytes, int timeout_ms) {
  using Result = Outcome<GpuWrite>;
  if (gpu_->hung)
    return Result::fail(ETIMEDOUT, "CUDA did not answer earlier in this run: not tried again (see dmesg, nvidia-smi)");
  auto answer = std::make_shared<std::promise<Result>>();
  std::future<Result> result = answer->get_future();
  // Detached, with copies of its inputs: a call into the driver that never returns keeps
  // only its own thread.
  std::thread([answer, state = gpu_, opts = cuda_options_, dev, gid, gpu_pci, bytes, timeout_ms] {
    std::shared_ptr<Cuda> cuda;
    {
      std::lock_guard<std::mutex> hold(state->lock);
      if (!state->cuda) {
        auto loaded = Cuda::load(opts);
        if (!loaded.ok()) {
          answer->set_value(Result::fail(loaded));
          return;
        }
        state->cuda = *loaded;
      }
      cuda = state->cuda;
    }
    answer->set_value(gpu_write(cuda, dev, gid, gpu_pci, bytes, timeout_ms));
  }).detach();
  // The GPU's set-up (cuInit of a GPU without persistence mode takes seconds) and the
  // transfer each get the check's bound.
  if (result.wait_for(std::chrono::milliseconds(2LL * timeout_ms)) == std::future_status::ready) return result.get();
  gpu_->hung = true;
  return Result::fail(ETIMEDOUT,
                      "CUDA or the transfer did not finish within " + std::to_string(2LL * timeout_ms) +
                          " ms (twice selftest.check_timeout_ms): a GPU or the driver is hung; see dmesg (NVRM)");
}

}  // namespace railyard
