#include "checks/counter_sample.h"

#include <charconv>

#include "text.h"

namespace railyard::checks {

namespace {

std::optional<std::uint64_t> counter_value(const std::string& text) {
  std::string t = trim(text);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

}  // namespace

Outcome<CounterSample> sample_counters(Files& files, Ethtool& ethtool, const std::string& rdma_device,
                                       const std::string& netdev, int port) {
  const std::string dir = "/sys/class/infiniband/" + rdma_device + "/ports/" + std::to_string(port) + "/hw_counters";
  auto names = files.list_directory(dir);
  if (!names.ok()) return Outcome<CounterSample>::fail(names.status());
  CounterSample s;
  for (const auto& name : *names) {
    auto text = files.read_file(dir + "/" + name);
    if (!text.ok()) continue;
    if (auto v = counter_value(*text)) s.hw[name] = *v;
  }
  if (auto stats = ethtool.stats(netdev); stats.ok())
    for (const auto& [name, value] : *stats) s.ethtool[name] = value;
  return s;
}

const CounterLayout* rail_counter_layout(bool soft_roce, const std::string& nic_driver) {
  return counter_layout(soft_roce ? "rxe" : nic_driver);
}

}  // namespace railyard::checks
