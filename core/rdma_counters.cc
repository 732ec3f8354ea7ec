#include "rdma_counters.h"

namespace railyard {

namespace {

using R = CounterRole;
constexpr CounterSource kHw = CounterSource::hw_counters;
constexpr CounterSource kEthtool = CounterSource::ethtool;

// ConnectX (mlx5_ib's port counters, mlx5e's ethtool statistics). The CNP counters are
// DCQCN at work: the fabric marking and the sender slowing down, which a lossless rail under
// load is expected to show.
CounterLayout mlx5() {
  return {"mlx5",
          {
              {"out_of_sequence", kHw, R::sequence_error},  // the responder saw a PSN gap
              {"packet_seq_err", kHw, R::sequence_error},   // the requester got a sequence-error NAK
              {"implied_nak_seq_err", kHw, R::sequence_error},
              {"duplicate_request", kHw, R::retransmission},  // a request received twice: it was sent again
              {"local_ack_timeout_err", kHw, R::retransmission},
              {"rnr_nak_retry_err", kHw, R::retransmission},
              {"roce_adp_retrans", kHw, R::retransmission},
              {"roce_adp_retrans_to", kHw, R::retransmission},
              {"roce_slow_restart", kHw, R::retransmission},
              {"out_of_buffer", kHw, R::drop},  // no receive buffer posted
              {"req_cqe_error", kHw, R::error},
              {"resp_cqe_error", kHw, R::error},
              {"req_remote_access_errors", kHw, R::error},
              {"resp_remote_access_errors", kHw, R::error},
              {"req_remote_invalid_request", kHw, R::error},
              {"resp_local_length_error", kHw, R::error},
              {"np_cnp_sent", kHw, R::congestion},
              {"np_ecn_marked_roce_packets", kHw, R::congestion},
              {"rp_cnp_handled", kHw, R::congestion},
              {"rp_cnp_ignored", kHw, R::congestion},
              {"rx_prio{prio}_discards", kEthtool, R::drop},  // dropped on the lossless priority
              {"rx_discards_phy", kEthtool, R::drop},         // dropped by the port for lack of buffer
          }};
}

// Soft-RoCE (rdma_rxe's port counters). Its netdev is whatever it runs over, so no ethtool
// counters are its own; it implements no congestion control.
CounterLayout rxe() {
  return {"rxe",
          {
              {"out_of_seq_request", kHw, R::sequence_error},
              {"rcvd_seq_err", kHw, R::sequence_error},
              {"duplicate_request", kHw, R::retransmission},
              {"completer_retry_err", kHw, R::retransmission},
              {"rcvd_rnr_err", kHw, R::retransmission},
              {"send_rnr_err", kHw, R::retransmission},
              {"retry_exceeded_err", kHw, R::error},
              {"retry_rnr_exceeded_err", kHw, R::error},
              {"send_err", kHw, R::error},
              {"link_downed", kHw, R::error},
          }};
}

}  // namespace

const std::vector<CounterLayout>& counter_layouts() {
  static const std::vector<CounterLayout> layouts = {mlx5(), rxe()};
  return layouts;
}

const CounterLayout* counter_layout(std::string_view driver) {
  if (driver == "mlx5_core" || driver == "mlx5") return &counter_layouts()[0];
  if (driver == "rxe" || driver == "rdma_rxe") return &counter_layouts()[1];
  return nullptr;
}

std::string counter_name(const CounterSpec& spec, int lossless_priority) {
  std::string name(spec.name);
  constexpr std::string_view kPrio = "{prio}";
  if (auto at = name.find(kPrio); at != std::string::npos)
    name.replace(at, kPrio.size(), std::to_string(lossless_priority));
  return name;
}

CounterVerdict judge_counters(const CounterLayout& layout, int lossless_priority, const CounterSnapshot& hw_before,
                              const CounterSnapshot& hw_after, const CounterSnapshot& ethtool_before,
                              const CounterSnapshot& ethtool_after) {
  CounterVerdict v;
  for (const CounterSpec& spec : layout.counters) {
    const bool hw = spec.source == CounterSource::hw_counters;
    const CounterSnapshot& before = hw ? hw_before : ethtool_before;
    const CounterSnapshot& after = hw ? hw_after : ethtool_after;
    std::string name = counter_name(spec, lossless_priority);
    auto b = before.find(name), a = after.find(name);
    if (b == before.end() || a == after.end()) {
      v.missing.push_back(name);
      continue;
    }
    if (a->second < b->second) {
      v.went_backwards.push_back(name);
      continue;
    }
    if (a->second == b->second) continue;
    CounterMove move{name, spec.source, spec.role, a->second - b->second};
    (spec.role == CounterRole::congestion ? v.congestion : v.violations).push_back(std::move(move));
  }
  return v;
}

std::string describe_moves(const std::vector<CounterMove>& moves) {
  std::string out;
  for (const auto& m : moves) {
    if (!out.empty()) out += ", ";
    out += m.name + " +" + std::to_string(m.delta);
  }
  return out;
}

std::string_view role_name(CounterRole role) {
  switch (role) {
    case CounterRole::retransmission: return "retransmission";
    case CounterRole::sequence_error: return "sequence error";
    case CounterRole::drop: return "drop";
    case CounterRole::error: return "error";
    case CounterRole::congestion: return "congestion";
  }
  return "?";
}

}  // namespace railyard
