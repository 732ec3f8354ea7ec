// Subcommands that register themselves, the one dispatch style of both programs: a cmd_*.cc
// file adds its subcommand to the CLI and says what runs when it is chosen, so that main.cc
// need not know every command. `Context` is what main gives the chosen command.
//
//   namespace {
//   const bool registered = Commands::add(50, [](CLI::App& app) {
//     auto opt = std::make_shared<Options>();
//     auto* sub = app.add_subcommand("diff", "…");
//     sub->add_option("old", opt->old_path)->required();
//     return Commands::Subcommand{sub, [opt](const Context& ctx) { return run_diff(*opt); }};
//   });
//   }
#pragma once

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace railyard {

template <class Context>
class SubcommandRegistry {
 public:
  struct Subcommand {
    CLI::App* app = nullptr;                 // chosen when *app is true after parsing
    std::function<int(const Context&)> run;  // returns the exit code (exit_code.h)
  };
  using Factory = std::function<Subcommand(CLI::App& parent)>;

  // `rank` orders subcommands in --help (lower first) whatever the link order. Always true,
  // so that a file registers with a namespace-scope `const bool`.
  static bool add(int rank, Factory factory) {
    entries().push_back({rank, std::move(factory)});
    return true;
  }

  // Every registered subcommand added to `app`, in rank order.
  static std::vector<Subcommand> attach(CLI::App& app) {
    std::vector<Entry> sorted = entries();
    std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) { return a.rank < b.rank; });
    std::vector<Subcommand> out;
    for (auto& e : sorted) out.push_back(e.factory(app));
    return out;
  }

 private:
  struct Entry {
    int rank;
    Factory factory;
  };
  // A function-local static: registrations run during static initialisation, in any order.
  static std::vector<Entry>& entries() {
    static std::vector<Entry> all;
    return all;
  }
};

}  // namespace railyard
