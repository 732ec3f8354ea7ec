// The counter layouts (core/rdma_counters.cc), each against its driver's own counter names:
// mlx5_ib's port hw_counters and mlx5e's ethtool statistics as a ConnectX-6 Dx lists them,
// rdma_rxe's hw_counters as drivers/infiniband/sw/rxe/rxe_hw_counters.c names them.
#include <doctest/doctest.h>

#include <algorithm>

#include "rdma_counters.h"

using namespace railyard;

namespace {

// What `ls /sys/class/infiniband/mlx5_0/ports/1/hw_counters` lists on a ConnectX-6 Dx with
// current firmware (the extended error and CNP counters included), all at `value`.
CounterSnapshot mlx5_hw(std::uint64_t value) {
  CounterSnapshot s;
  for (const char* n : {"duplicate_request",
                        "implied_nak_seq_err",
                        "lifespan",
                        "local_ack_timeout_err",
                        "np_cnp_sent",
                        "np_ecn_marked_roce_packets",
                        "out_of_buffer",
                        "out_of_sequence",
                        "packet_seq_err",
                        "req_cqe_error",
                        "req_cqe_flush_error",
                        "req_remote_access_errors",
                        "req_remote_invalid_request",
                        "resp_cqe_error",
                        "resp_cqe_flush_error",
                        "resp_local_length_error",
                        "resp_remote_access_errors",
                        "rnr_nak_retry_err",
                        "roce_adp_retrans",
                        "roce_adp_retrans_to",
                        "roce_slow_restart",
                        "roce_slow_restart_cnps",
                        "roce_slow_restart_trans",
                        "rp_cnp_handled",
                        "rp_cnp_ignored",
                        "rx_atomic_requests",
                        "rx_icrc_encapsulated",
                        "rx_read_requests",
                        "rx_write_requests"})
    s[n] = value;
  return s;
}

// A few of mlx5e's ethtool statistics (`ethtool -S ens1f0np0`).
CounterSnapshot mlx5_ethtool(std::uint64_t value) {
  CounterSnapshot s;
  for (const char* n : {"rx_prio3_bytes", "rx_prio3_packets", "rx_prio3_discards", "rx_prio3_pause", "rx_discards_phy",
                        "tx_prio3_pause", "rx_prio0_discards"})
    s[n] = value;
  return s;
}

CounterSnapshot rxe_hw(std::uint64_t value) {
  CounterSnapshot s;
  for (const char* n : {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
                        "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
                        "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs"})
    s[n] = value;
  return s;
}

}  // namespace

TEST_CASE("counter layouts: found by the driver sysfs names, nothing for an unknown one") {
  REQUIRE(counter_layout("mlx5_core"));
  CHECK(counter_layout("mlx5_core")->driver == "mlx5");
  REQUIRE(counter_layout("rxe"));
  CHECK(counter_layout("rxe")->driver == "rxe");
  CHECK(counter_layout("bnxt_en") == nullptr);
  CHECK(counter_layout("") == nullptr);
}

TEST_CASE("mlx5: every counter of the layout is one the driver reports") {
  const CounterLayout& l = *counter_layout("mlx5_core");
  CounterSnapshot hw = mlx5_hw(0), eth = mlx5_ethtool(0);
  for (const auto& spec : l.counters) {
    const auto& names = spec.source == CounterSource::hw_counters ? hw : eth;
    CHECK_MESSAGE(names.count(counter_name(spec, 3)) == 1, counter_name(spec, 3));
  }
  CounterVerdict v = judge_counters(l, 3, hw, hw, eth, eth);
  CHECK(v.lossless());
  CHECK(v.missing.empty());
  CHECK(v.congestion.empty());
}

TEST_CASE("mlx5: a sequence error, a timeout and a discard on the lossless priority are violations") {
  const CounterLayout& l = *counter_layout("mlx5_core");
  CounterSnapshot hw_after = mlx5_hw(100), eth_after = mlx5_ethtool(100);
  hw_after["packet_seq_err"] = 103;
  hw_after["local_ack_timeout_err"] = 101;
  hw_after["rx_write_requests"] = 5000;  // traffic: not judged
  eth_after["rx_prio3_discards"] = 112;
  eth_after["rx_prio0_discards"] = 999;  // another priority: not the lossless one
  CounterVerdict v = judge_counters(l, 3, mlx5_hw(100), hw_after, mlx5_ethtool(100), eth_after);
  CHECK_FALSE(v.lossless());
  CHECK(describe_moves(v.violations) == "packet_seq_err +3, local_ack_timeout_err +1, rx_prio3_discards +12");
  CHECK(v.violations[0].role == CounterRole::sequence_error);
  CHECK(v.violations[1].role == CounterRole::retransmission);
  CHECK(v.violations[2].role == CounterRole::drop);
  CHECK(v.violations[2].source == CounterSource::ethtool);
}

TEST_CASE("mlx5: congestion notifications are reported, not violations") {
  const CounterLayout& l = *counter_layout("mlx5_core");
  CounterSnapshot after = mlx5_hw(0);
  after["np_cnp_sent"] = 40;
  after["rp_cnp_handled"] = 38;
  CounterVerdict v = judge_counters(l, 3, mlx5_hw(0), after, mlx5_ethtool(0), mlx5_ethtool(0));
  CHECK(v.lossless());
  CHECK(describe_moves(v.congestion) == "np_cnp_sent +40, rp_cnp_handled +38");
}

TEST_CASE("mlx5: the lossless priority names the ethtool counter") {
  const CounterLayout& l = *counter_layout("mlx5_core");
  CounterSnapshot before, after;
  before["rx_prio4_discards"] = 0;
  after["rx_prio4_discards"] = 2;
  before["rx_discards_phy"] = after["rx_discards_phy"] = 7;
  CounterVerdict v = judge_counters(l, 4, mlx5_hw(0), mlx5_hw(0), before, after);
  CHECK(describe_moves(v.violations) == "rx_prio4_discards +2");
}

TEST_CASE("mlx5: older firmware without the extended counters: missing, not failed") {
  const CounterLayout& l = *counter_layout("mlx5_core");
  CounterSnapshot hw = mlx5_hw(0);
  for (const char* n : {"req_cqe_error", "resp_cqe_error", "roce_adp_retrans", "roce_adp_retrans_to"}) hw.erase(n);
  CounterVerdict v = judge_counters(l, 3, hw, hw, mlx5_ethtool(0), mlx5_ethtool(0));
  CHECK(v.lossless());
  CHECK(v.missing ==
        std::vector<std::string>{"roce_adp_retrans", "roce_adp_retrans_to", "req_cqe_error", "resp_cqe_error"});
}

TEST_CASE("rxe: every counter of the layout is one rdma_rxe reports; retransmissions and sequence errors") {
  const CounterLayout& l = *counter_layout("rxe");
  CounterSnapshot names = rxe_hw(0);
  for (const auto& spec : l.counters) {
    CHECK(spec.source == CounterSource::hw_counters);  // its netdev's counters are not its own
    CHECK_MESSAGE(names.count(std::string(spec.name)) == 1, spec.name);
  }
  CounterSnapshot after = rxe_hw(10);
  after["sent_pkts"] = after["rcvd_pkts"] = 9000;
  CHECK(judge_counters(l, 3, rxe_hw(10), after, {}, {}).lossless());
  after["rcvd_seq_err"] = 12;
  after["completer_retry_err"] = 11;
  CounterVerdict v = judge_counters(l, 3, rxe_hw(10), after, {}, {});
  CHECK(describe_moves(v.violations) == "rcvd_seq_err +2, completer_retry_err +1");
  CHECK(v.missing.empty());
}

TEST_CASE("counters reset between the snapshots: no delta, said") {
  const CounterLayout& l = *counter_layout("rxe");
  CounterSnapshot after = rxe_hw(10);
  after["out_of_seq_request"] = 3;
  CounterVerdict v = judge_counters(l, 3, rxe_hw(10), after, {}, {});
  CHECK(v.lossless());
  CHECK(v.went_backwards == std::vector<std::string>{"out_of_seq_request"});
}
