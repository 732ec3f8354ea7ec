// An RDMA device's counters as the counter layouts (core/rdma_counters.h) name them, read
// now: its port's hw_counters directory and its netdev's ethtool statistics.
#pragma once

#include <string>

#include "kernel/ethtool.h"
#include "kernel/files.h"
#include "outcome.h"
#include "rdma_counters.h"

namespace railyard::checks {

struct CounterSample {
  CounterSnapshot hw;       // /sys/class/infiniband/DEV/ports/PORT/hw_counters/NAME
  CounterSnapshot ethtool;  // the netdev's statistics; empty where its driver has none
};

// Fails only when the hw_counters directory cannot be listed (a device or driver without
// port counters); a counter file that does not read as a number is left out, as are the
// ethtool statistics of a netdev whose driver has none.
Outcome<CounterSample> sample_counters(Files& files, Ethtool& ethtool, const std::string& rdma_device,
                                       const std::string& netdev, int port = 1);

// The layout of a rail's RDMA device: rxe for a Soft-RoCE device, else by its NIC's driver
// (mlx5_core); nothing where railyard has no layout for the driver.
const CounterLayout* rail_counter_layout(bool soft_roce, const std::string& nic_driver);

}  // namespace railyard::checks
