#include "checks/ibverbs_data_path.h"

#include <infiniband/verbs.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

namespace railyard {

namespace {

using Steady = std::chrono::steady_clock;

// One side of the test: device, protection domain, buffer, completion queue, queue pair.
struct Side {
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_qp* qp = nullptr;
  ibv_mr* mr = nullptr;
  std::vector<std::uint8_t> buf;
  ibv_port_attr port{};
  ibv_gid gid{};
  ~Side() {
    if (qp) ibv_destroy_qp(qp);
    if (cq) ibv_destroy_cq(cq);
    if (mr) ibv_dereg_mr(mr);
    if (pd) ibv_dealloc_pd(pd);
    if (ctx) ibv_close_device(ctx);
  }
};

constexpr int kPort = 1;
constexpr int kDepth = 16;                 // WRITEs in flight
constexpr std::size_t kChunk = 64 * 1024;  // bytes per WRITE

Status open(Side& s, const std::string& name, int gid_index, std::size_t bytes) {
  int n = 0;
  std::unique_ptr<ibv_device*, decltype(&ibv_free_device_list)> list(ibv_get_device_list(&n), ibv_free_device_list);
  if (!list) return Status::from_errno(errno, "ibv_get_device_list");
  for (int i = 0; i < n && !s.ctx; ++i)
    if (name == ibv_get_device_name(list.get()[i])) s.ctx = ibv_open_device(list.get()[i]);
  if (!s.ctx) return Status::fail(ENODEV, name + ": no such RDMA device");
  if (ibv_query_port(s.ctx, kPort, &s.port)) return Status::from_errno(errno, name + ": query port");
  if (s.port.state != IBV_PORT_ACTIVE) return Status::fail(ENETDOWN, name + ": port 1 is not ACTIVE");
  if (ibv_query_gid(s.ctx, kPort, gid_index, &s.gid)) return Status::from_errno(errno, name + ": query GID");
  s.pd = ibv_alloc_pd(s.ctx);
  s.cq = s.pd ? ibv_create_cq(s.ctx, kDepth * 2, nullptr, nullptr, 0) : nullptr;
  if (!s.cq) return Status::from_errno(errno, name + ": protection domain / completion queue");
  s.buf.assign(bytes, 0);
  s.mr = ibv_reg_mr(s.pd, s.buf.data(), bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  if (!s.mr) return Status::from_errno(errno, name + ": register memory (memlock limit?)");
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
  a.timeout = 14;
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

}  // namespace

Outcome<double> IbverbsDataPath::write_test(const std::string& from_dev, int from_gid, const std::string& to_dev,
                                             int to_gid, std::size_t bytes, int timeout_ms) {
  using Result = Outcome<double>;
  Side from, to;
  if (Status s = open(from, from_dev, from_gid, bytes); !s.ok()) return Result::fail(s);
  if (Status s = open(to, to_dev, to_gid, bytes); !s.ok()) return Result::fail(s);
  if (Status s = connect(from, to, from_gid, from_dev); !s.ok()) return Result::fail(s);
  if (Status s = connect(to, from, to_gid, to_dev); !s.ok()) return Result::fail(s);
  for (std::size_t i = 0; i < bytes; ++i) from.buf[i] = static_cast<std::uint8_t>((i * 131 + 7) & 0xff);

  auto deadline = Steady::now() + std::chrono::milliseconds(timeout_ms);
  auto start = Steady::now();
  std::size_t posted = 0, completed = 0, chunks = (bytes + kChunk - 1) / kChunk;
  while (completed < chunks) {
    while (posted < chunks && posted - completed < kDepth) {
      std::size_t off = posted * kChunk, len = std::min(kChunk, bytes - off);
      ibv_sge sge{reinterpret_cast<std::uintptr_t>(from.buf.data() + off), static_cast<std::uint32_t>(len), from.mr->lkey};
      ibv_send_wr wr{}, *bad = nullptr;
      wr.wr_id = posted;
      wr.sg_list = &sge;
      wr.num_sge = 1;
      wr.opcode = IBV_WR_RDMA_WRITE;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(to.buf.data() + off);
      wr.wr.rdma.rkey = to.mr->rkey;
      if (ibv_post_send(from.qp, &wr, &bad)) return Result::from_errno(errno, from_dev + ": post RDMA WRITE");
      ++posted;
    }
    ibv_wc wc[kDepth];
    int n = ibv_poll_cq(from.cq, kDepth, wc);
    if (n < 0) return Result::fail(EIO, from_dev + ": poll completion queue");
    for (int i = 0; i < n; ++i)
      if (wc[i].status != IBV_WC_SUCCESS)
        return Result::fail(EIO, from_dev + " → " + to_dev + ": RDMA WRITE completed with " +
                                     ibv_wc_status_str(wc[i].status));
    completed += static_cast<std::size_t>(n);
    if (Steady::now() > deadline)
      return Result::fail(ETIMEDOUT, from_dev + " → " + to_dev + ": no completion within " +
                                           std::to_string(timeout_ms) + " ms (lossless fabric stalled?)");
  }
  double seconds = std::chrono::duration<double>(Steady::now() - start).count();
  if (std::memcmp(from.buf.data(), to.buf.data(), bytes) != 0)
    return Result::fail(EIO, from_dev + " → " + to_dev + ": the bytes written differ from the bytes read");
  return Result(seconds > 0 ? static_cast<double>(bytes) * 8 / seconds / 1e6 : 0);
}

}  // namespace railyard
