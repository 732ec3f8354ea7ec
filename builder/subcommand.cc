#include "subcommand.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

namespace railyard {

namespace {
struct Entry {
  int rank;
  SubcommandFactory factory;
};
// A function-local static: registrations run during static initialisation, in any order.
std::vector<Entry>& registry() {
  static std::vector<Entry> entries;
  return entries;
}
}  // namespace

bool register_subcommand(int rank, SubcommandFactory factory) {
  registry().push_back({rank, std::move(factory)});
  return true;
}

std::vector<SubcommandFactory> registered_subcommands() {
  std::vector<Entry> sorted = registry();
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) { return a.rank < b.rank; });
  std::vector<SubcommandFactory> out;
  for (auto& e : sorted) out.push_back(std::move(e.factory));
  return out;
}

std::string self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

}  // namespace railyard
