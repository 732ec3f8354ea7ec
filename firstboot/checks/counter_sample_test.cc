// Reading an RDMA device's counters (checks/counter_sample.cc) from sysfs and ethtool as the
// drivers lay them out, and judging a transfer by them.
#include "checks/counter_sample.h"

#include <doctest/doctest.h>

#include "support/fake_host.h"
#include "support/fake_rtnl.h"

using namespace railyard;
using railyard::test::FakeHost;

namespace {

const std::string kRxe = "/sys/class/infiniband/rxe0/ports/1/hw_counters/";

// ethtool statistics by interface; an interface not listed has none (EOPNOTSUPP, as virtio's).
struct StatsEthtool : test::UnusedEthtool {
  std::map<std::string, std::map<std::string, std::uint64_t>> by_ifname;
  Outcome<std::map<std::string, std::uint64_t>> stats(const std::string& ifname) override {
    auto it = by_ifname.find(ifname);
    if (it == by_ifname.end())
      return Outcome<std::map<std::string, std::uint64_t>>::from_errno(EOPNOTSUPP, "ethtool -S " + ifname);
    return it->second;
  }
};

void rxe_counters(FakeHost& h, std::uint64_t seq_err) {
  for (const char* n : {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
                        "send_rnr_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
                        "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs"})
    h.files[kRxe + n] = "0";
  h.files[kRxe + "rcvd_seq_err"] = std::to_string(seq_err);
}

}  // namespace

TEST_CASE("rdma counters: rxe's hw_counters read by name; a netdev without ethtool statistics has none") {
  FakeHost h;
  StatsEthtool ethtool;
  rxe_counters(h, 0);
  h.files[kRxe + "broken"] = "not a number";
  auto before = checks::sample_counters(h, ethtool, "rxe0", "enp1s0");
  REQUIRE(before.ok());
  CHECK(before->hw.size() == 15);
  CHECK(before->hw.count("broken") == 0);
  CHECK(before->ethtool.empty());

  h.files[kRxe + "rcvd_seq_err"] = "4";
  h.files[kRxe + "sent_pkts"] = "90210";
  auto after = checks::sample_counters(h, ethtool, "rxe0", "enp1s0");
  REQUIRE(after.ok());
  const CounterLayout* layout = checks::rail_counter_layout(true, "virtio_net");
  REQUIRE(layout);
  CounterVerdict v = judge_counters(*layout, 3, before->hw, after->hw, before->ethtool, after->ethtool);
  CHECK(describe_moves(v.violations) == "rcvd_seq_err +4");
  CHECK(v.missing.empty());
}

TEST_CASE("rdma counters: mlx5's hw_counters and its netdev's per-priority ethtool statistics") {
  FakeHost h;
  StatsEthtool ethtool;
  const std::string dir = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/";
  h.files[dir + "out_of_sequence"] = "7";
  h.files[dir + "np_cnp_sent"] = "1200";
  ethtool.by_ifname["ens1f0np0"] = {{"rx_prio3_discards", 2}, {"rx_discards_phy", 0}, {"rx_prio3_pause", 10}};
  auto s = checks::sample_counters(h, ethtool, "mlx5_0", "ens1f0np0");
  REQUIRE(s.ok());
  CHECK(s->hw.at("out_of_sequence") == 7);
  CHECK(s->ethtool.at("rx_prio3_discards") == 2);
  CHECK(checks::rail_counter_layout(false, "mlx5_core") == counter_layout("mlx5"));
  CHECK(checks::rail_counter_layout(false, "bnxt_en") == nullptr);
}

TEST_CASE("rdma counters: a device without port counters is an error naming the directory") {
  FakeHost h;
  StatsEthtool ethtool;
  auto s = checks::sample_counters(h, ethtool, "mlx5_9", "ens9");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().find("/sys/class/infiniband/mlx5_9/ports/1/hw_counters") != std::string::npos);
}
