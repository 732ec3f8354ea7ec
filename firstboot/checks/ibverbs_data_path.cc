#include "checks/ibverbs_data_path.h"

#include <infiniband/verbs.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <cstring>
#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace railyard {

namespace {

using Steady = std::chrono::steady_clock;

// One side of the test: device, protection domain, completion queue (and the channel its
// events arrive on), queue pair, and the registered memory (host memory in `host`, or a
// GPU's at `addr`).
struct Side {
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  ibv_comp_channel* channel = nullptr;
  ibv_cq* cq = nullptr;
  ibv_qp* qp = nullptr;
  ibv_mr* mr = nullptr;
  std::vector<std::uint8_t> host;
  std::uint64_t addr = 0;  // what the work requests address
  ibv_port_attr port{};
  ibv_gid gid{};
  ~Side() {
    if (qp) ibv_destroy_qp(qp);
    if (cq) ibv_destroy_cq(cq);  // every event taken from the channel is acknowledged at once
    if (channel) ibv_destroy_comp_channel(channel);
    if (mr) ibv_dereg_mr(mr);
    if (pd) ibv_dealloc_pd(pd);
    if (ctx) ibv_close_device(ctx);
  }
};

constexpr int kPort = 1;
constexpr int kDepth = 16;                 // WRITEs in flight
constexpr std::size_t kChunk = 64 * 1024;  // bytes per WRITE
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
// How long a write waits for its acknowledgement before it is sent again: 4.096 µs × 2^18,
// about 1.07 s. A lossless fabric drops nothing, so the timer only fires when the
// acknowledgements are slow, and a write sent again that way is a duplicate the responder
// must sort out. At 2^14 (67 ms) a loaded lab host (Soft-RoCE under TCG, the writes between
// rails at 12–23 Mb/s) once ended a write with "remote invalid request error". NCCL's own
// default for its connections (NCCL_IB_TIMEOUT) is of this order.
constexpr std::uint8_t kAckTimeout = 18;

// The device, its port and GID, a protection domain, a completion queue and an RC queue pair.
Status open(Side& s, const std::string& name, int gid_index) {
  int n = 0;
  std::unique_ptr<ibv_device*, decltype(&ibv_free_device_list)> list(ibv_get_device_list(&n), ibv_free_device_list);
  if (!list) return Status::from_errno(errno, name + ": no RDMA device on this host (ibv_get_device_list)");
  for (int i = 0; i < n && !s.ctx; ++i)
    if (name == ibv_get_device_name(list.get()[i])) s.ctx = ibv_open_device(list.get()[i]);
  if (!s.ctx) return Status::fail(ENODEV, name + ": no such RDMA device");
  if (ibv_query_port(s.ctx, kPort, &s.port)) return Status::from_errno(errno, name + ": query port");
  if (s.port.state != IBV_PORT_ACTIVE) return Status::fail(ENETDOWN, name + ": port 1 is not ACTIVE");
  if (ibv_query_gid(s.ctx, kPort, gid_index, &s.gid)) return Status::from_errno(errno, name + ": query GID");
  s.pd = ibv_alloc_pd(s.ctx);
  s.channel = s.pd ? ibv_create_comp_channel(s.ctx) : nullptr;
  s.cq = s.channel ? ibv_create_cq(s.ctx, kDepth * 2, nullptr, s.channel, 0) : nullptr;
  if (!s.cq) return Status::from_errno(errno, name + ": protection domain / completion channel / completion queue");
  ibv_qp_init_attr init{};
  init.send_cq = init.recv_cq = s.cq;
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = kDepth;
  init.cap.max_recv_wr = 1;
  init.cap.max_send_sge = init.cap.max_recv_sge = 1;
  s.qp = ibv_create_qp(s.pd, &init);
  if (!s.qp) return Status::from_errno(errno, name + ": create RC queue pair");
  return success();
}

Status register_host(Side& s, std::size_t bytes, const std::string& name) {
  s.host.assign(bytes, 0);
  s.mr = ibv_reg_mr(s.pd, s.host.data(), bytes, kAccess);
  if (!s.mr) return Status::from_errno(errno, name + ": register memory (memlock limit?)");
  s.addr = reinterpret_cast<std::uintptr_t>(s.host.data());
  return success();
}

// A GPU's memory given to the NIC: as a dma-buf where CUDA exports one and the NIC's driver
// takes it (the upstream path), else as the device pointer itself, which the NIC's driver
// resolves through nvidia-peermem. `how` says which.
Status register_gpu(Side& s, GpuMemory& m, std::size_t bytes, const std::string& name, std::string& how) {
  std::string dmabuf = m.why_no_dmabuf();
  if (m.dmabuf_fd() >= 0) {
    s.mr = ibv_reg_dmabuf_mr(s.pd, 0, bytes, m.address(), m.dmabuf_fd(), kAccess);
    if (s.mr) how = "dma-buf";
    else dmabuf = std::string("ibv_reg_dmabuf_mr: ") + std::strerror(errno);
  }
  if (!s.mr) {
    s.mr = ibv_reg_mr(s.pd, reinterpret_cast<void*>(static_cast<std::uintptr_t>(m.address())), bytes, kAccess);
    if (!s.mr)
      return Status::from_errno(errno, name + ": register GPU memory (dma-buf: " + dmabuf +
                                           "; ibv_reg_mr on GPU memory needs nvidia_peermem loaded)");
    how = "nvidia-peermem";
  }
  s.addr = m.address();
  return success();
}

void pattern(std::vector<std::uint8_t>& buf) {
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<std::uint8_t>((i * 131 + 7) & 0xff);
}

Status connect(Side& s, const Side& peer, int gid_index, const std::string& name) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = kPort;
  a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
  if (ibv_modify_qp(s.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
    return Status::from_errno(errno, name + ": queue pair to INIT");
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = std::min(s.port.active_mtu, peer.port.active_mtu);
  a.dest_qp_num = peer.qp->qp_num;
  a.rq_psn = 1;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.is_global = 1;
  a.ah_attr.grh.dgid = peer.gid;
  a.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(gid_index);
  a.ah_attr.grh.hop_limit = 64;
  a.ah_attr.port_num = kPort;
  if (ibv_modify_qp(s.qp, &a,
                    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
    return Status::from_errno(errno, name + ": queue pair to RTR (GID unreachable?)");
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = kAckTimeout;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.sq_psn = 1;
  a.max_rd_atomic = 1;
  if (ibv_modify_qp(s.qp, &a,
                    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                        IBV_QP_MAX_QP_RD_ATOMIC))
    return Status::from_errno(errno, name + ": queue pair to RTS");
  return success();
}

// Why a transfer ran out of time: nothing completed, as when the lossless priority is paused
// for good.
std::string stalled(const std::string& label, int timeout_ms) {
  return label + ": no completion within " + std::to_string(timeout_ms) + " ms (lossless fabric stalled?)";
}

// Waits until `s`'s completion queue raises an event, or the deadline. The queue must be
// armed (ibv_req_notify_cq) and found empty after arming.
Status await_completion(Side& s, Steady::time_point deadline, int timeout_ms, const std::string& label) {
  for (;;) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Steady::now()).count();
    if (left <= 0) return Status::fail(ETIMEDOUT, stalled(label, timeout_ms));
    pollfd p{s.channel->fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::from_errno(errno, label + ": wait for the completion queue's event");
    if (r == 0) continue;  // the deadline, above
    ibv_cq* cq = nullptr;
    void* cq_context = nullptr;
    if (ibv_get_cq_event(s.channel, &cq, &cq_context))
      return Status::from_errno(errno, label + ": read the completion queue's event");
    ibv_ack_cq_events(cq, 1);
    return success();
  }
}

// `bytes` from `from` to `to` by RDMA WRITE, kDepth in flight; the throughput in Mb/s. With
// nothing completed yet the test sleeps on the completion queue's event rather than spinning:
// where CPUs are few (the lab's two emulated ones) a spinning test takes the CPU from the
// Soft-RoCE work that completes its writes and from everything booting beside it.
Outcome<double> transfer(Side& from, Side& to, std::size_t bytes, int timeout_ms, const std::string& label) {
  using Result = Outcome<double>;
  auto deadline = Steady::now() + std::chrono::milliseconds(timeout_ms);
  auto start = Steady::now();
  std::size_t posted = 0, completed = 0, chunks = (bytes + kChunk - 1) / kChunk;
  while (completed < chunks) {
    while (posted < chunks && posted - completed < kDepth) {
      std::size_t off = posted * kChunk, len = std::min(kChunk, bytes - off);
      ibv_sge sge{from.addr + off, static_cast<std::uint32_t>(len), from.mr->lkey};
      ibv_send_wr wr{}, *bad = nullptr;
      wr.wr_id = posted;
      wr.sg_list = &sge;
      wr.num_sge = 1;
      wr.opcode = IBV_WR_RDMA_WRITE;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.wr.rdma.remote_addr = to.addr + off;
      wr.wr.rdma.rkey = to.mr->rkey;
      if (ibv_post_send(from.qp, &wr, &bad)) return Result::from_errno(errno, label + ": post RDMA WRITE");
      ++posted;
    }
    ibv_wc wc[kDepth];
    int n = ibv_poll_cq(from.cq, kDepth, wc);
    if (n == 0) {
      if (ibv_req_notify_cq(from.cq, 0)) return Result::from_errno(errno, label + ": arm the completion queue");
      n = ibv_poll_cq(from.cq, kDepth, wc);  // what completed before the arming raises no event
      if (n == 0) {
        if (Status s = await_completion(from, deadline, timeout_ms, label); !s.ok()) return Result::fail(s);
        continue;
      }
    }
    if (n < 0) return Result::fail(EIO, label + ": poll completion queue");
    for (int i = 0; i < n; ++i)
      if (wc[i].status != IBV_WC_SUCCESS)
        return Result::fail(EIO, label + ": RDMA WRITE completed with " + ibv_wc_status_str(wc[i].status));
    completed += static_cast<std::size_t>(n);
    if (Steady::now() > deadline) return Result::fail(ETIMEDOUT, stalled(label, timeout_ms));
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
  if (Status s = connect(from, to, from_gid, from_dev); !s.ok()) return Result::fail(s);
  if (Status s = connect(to, from, to_gid, to_dev); !s.ok()) return Result::fail(s);
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
  if (Status s = connect(from, to, gid, dev); !s.ok()) return Result::fail(s);
  if (Status s = connect(to, from, gid, dev); !s.ok()) return Result::fail(s);
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
