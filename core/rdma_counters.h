// What an RDMA NIC's counters say about a transfer: which of a driver's counters count a
// retransmission, a sequence error or a drop (none may move on a lossless rail), which count
// congestion notifications (expected under ECN, reported), and which only count traffic.
// One layout per driver, from the names the driver gives its counters: the RDMA device's
// port hw_counters (/sys/class/infiniband/DEV/ports/1/hw_counters/NAME) and the netdev's
// ethtool statistics. Pure: the agent reads the counters, this judges two snapshots.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

enum class CounterRole {
  retransmission,  // the sender sent again: a timeout, a NAK, an adaptive retransmission
  sequence_error,  // a packet arrived out of order or was missing: a loss on the way
  drop,            // a packet was dropped: no receive buffer, a discard on the lossless priority
  error,           // a transfer failed at either end
  congestion,      // ECN marks and congestion notifications: the fabric pacing traffic, not losing it
};

enum class CounterSource { hw_counters, ethtool };

struct CounterSpec {
  std::string_view name;  // as the driver names it; "{prio}" stands for the lossless priority
  CounterSource source;
  CounterRole role;
};

struct CounterLayout {
  std::string_view driver;  // "mlx5", "rxe"
  std::vector<CounterSpec> counters;
};

// The layout for an RDMA device's driver as sysfs names it (`/sys/class/infiniband/DEV/device/
// driver` is mlx5_core for ConnectX; rxe devices have no device link and are "rxe"); nothing
// for a driver railyard has no layout for.
const CounterLayout* counter_layout(std::string_view driver);

// Every layout, for the documentation and the tests.
const std::vector<CounterLayout>& counter_layouts();

// A counter's name with the lossless priority filled in: rx_prio{prio}_discards → rx_prio3_discards.
std::string counter_name(const CounterSpec& spec, int lossless_priority);

// name → value, one source's counters as read at one moment.
using CounterSnapshot = std::map<std::string, std::uint64_t, std::less<>>;

struct CounterMove {
  std::string name;
  CounterSource source;
  CounterRole role;
  std::uint64_t delta = 0;
};

struct CounterVerdict {
  std::vector<CounterMove> violations;      // retransmissions, sequence errors, drops, errors that moved
  std::vector<CounterMove> congestion;      // congestion notifications that moved
  std::vector<std::string> missing;         // the layout's counters the device did not report, in both snapshots
  std::vector<std::string> went_backwards;  // reset between the snapshots: no delta known
  bool lossless() const { return violations.empty(); }
};

// The layout's counters between two snapshots of each source (`before` and `after` hold the
// hw_counters and the ethtool statistics under their own names).
CounterVerdict judge_counters(const CounterLayout& layout, int lossless_priority, const CounterSnapshot& hw_before,
                              const CounterSnapshot& hw_after, const CounterSnapshot& ethtool_before,
                              const CounterSnapshot& ethtool_after);

// "packet_seq_err +3, rx_prio3_discards +12": the moves as an operator reads them.
std::string describe_moves(const std::vector<CounterMove>& moves);

std::string_view role_name(CounterRole role);

}  // namespace railyard
