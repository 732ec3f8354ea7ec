// `railyard report show|summary|html|topology`: the agent's first-boot reports for
// operators: one node (a file or a URL), the fleet (a directory of reports, e.g. a
// receiver's), the fleet as one self-contained HTML page, and the fabric's scalable units in
// the forms schedulers read (docs/topology.md).
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "io/atomic_file.h"
#include "report/fleet_page.h"
#include "report/fleet_summary.h"
#include "report/fleet_topology.h"
#include "report/node_view.h"
#include "report/report_source.h"
#include "report/sweep_view.h"
#include "subcommand.h"
#include "text.h"
#include "topology.h"

namespace railyard {

namespace {

constexpr auto kReplaceInvalid = nlohmann::ordered_json::error_handler_t::replace;

struct ReportOptions {
  std::string source;  // show: FILE or URL; summary, html, topology: DIR
  std::string output;  // html, topology -o
  bool json = false;
  TopologyFormat topology_format;  // topology --format, --spine, --block-sizes
  std::string check;               // topology --check FILE
  std::string sweep;               // show, summary, html --sweep FILE: a fleet sweep's sweep.json
  CLI::App* topology = nullptr;
  CLI::App* show = nullptr;
  CLI::App* summary = nullptr;
  CLI::App* html = nullptr;
};

// --sweep FILE read, or nothing asked; an error (printed) when it cannot be read.
std::optional<Outcome<SweepView>> read_sweep_option(const ReportOptions& opt) {
  if (opt.sweep.empty()) return std::nullopt;
  auto v = read_sweep_view(opt.sweep);
  if (!v.ok()) spdlog::error("--sweep {}", v.error());
  return v;
}

int run_show_report(const ReportOptions& opt) {
  auto sweep = read_sweep_option(opt);
  if (sweep && !sweep->ok()) return kExitBadInput;
  auto text = read_report_text(opt.source);
  if (!text.ok()) {
    spdlog::error("{}", text.error());
    return kExitBadInput;
  }
  auto report = parse_report(*text);
  if (!report.ok()) {
    spdlog::error("{}: {}", opt.source, report.error());
    return kExitBadInput;
  }
  // A file name or field that is not UTF-8 is written with U+FFFD, never a throw.
  const TextStyle style(TextStyle::colour_for_stdout());
  if (opt.json) {
    auto j = node_json(*report);
    if (sweep) {
      nlohmann::ordered_json rails = nlohmann::ordered_json::array();
      for (const auto& [node, cells] : (*sweep)->nodes)
        if (node == report->name())
          for (const auto& c : cells)
            rails.push_back({{"rail", c.rail},
                             {"verdict", c.verdict},
                             {"peers", c.peers},
                             {"failed_peers", c.failed_peers},
                             {"median_gbps", c.median_gbps}});
      j["sweep"] = {{"file", (*sweep)->path}, {"settled", (*sweep)->settled}, {"rails", rails}};
    }
    std::cout << j.dump(2, ' ', false, kReplaceInvalid) << "\n";
  } else {
    std::cout << node_text(*report, style);
    if (sweep) std::cout << sweep_node_text(**sweep, report->name(), style);
  }
  return report->verdict() ? kExitOk : kExitFailed;
}

void print_unreadable(const Fleet& fleet) {
  for (const auto& u : fleet.unreadable) spdlog::error("{}: {}", u.path, u.error);
}

int run_summary(const ReportOptions& opt) {
  auto fleet = read_fleet(opt.source);
  if (!fleet.ok()) {
    spdlog::error("{}", fleet.error());
    return kExitBadInput;
  }
  auto sweep = read_sweep_option(opt);
  if (sweep && !sweep->ok()) return kExitBadInput;
  FleetSummary s = summarize(*fleet);
  const TextStyle style(TextStyle::colour_for_stdout());
  if (opt.json) {
    auto j = to_json(s);
    if (sweep) j["sweep"] = sweep_summary_json(**sweep);
    std::cout << j.dump(2, ' ', false, kReplaceInvalid) << "\n";
  } else {
    std::cout << to_text(s, style);
    if (sweep) std::cout << sweep_text(**sweep, style);
  }
  print_unreadable(*fleet);
  if (!fleet->unreadable.empty()) return kExitBadInput;
  return s.passed == s.nodes ? kExitOk : kExitFailed;
}

int run_html(const ReportOptions& opt) {
  auto fleet = read_fleet(opt.source);
  if (!fleet.ok()) {
    spdlog::error("{}", fleet.error());
    return kExitBadInput;
  }
  auto load = [](const ReportDigest& d) {
    auto text = read_text_file(d.path);
    return text.ok() ? parse_report(*text) : Outcome<LoadedReport>::fail(text.error());
  };
  auto sweep = read_sweep_option(opt);
  if (sweep && !sweep->ok()) return kExitBadInput;
  std::vector<UnreadableReport> unreadable;
  std::string page =
      fleet_page(summarize(*fleet), fleet->nodes, fleet_topology(*fleet), load, unreadable, sweep ? &**sweep : nullptr);
  if (Status st = write_file_atomically(opt.output, page); !st.ok()) {
    spdlog::error("{}", st.error());
    return kExitFailed;
  }
  fleet->unreadable.insert(fleet->unreadable.end(), unreadable.begin(), unreadable.end());
  print_unreadable(*fleet);
  spdlog::info("{}: {}", opt.output, plural(fleet->nodes.size(), "node"));
  return fleet->unreadable.empty() ? kExitOk : kExitBadInput;
}

// The lines of `a` not in `b`, each once, in `a`'s order.
std::vector<std::string> lines_missing(const std::string& a, const std::string& b) {
  std::vector<std::string> in_b = split(b, '\n'), out;
  for (const auto& line : split(a, '\n'))
    if (!line.empty() && std::find(in_b.begin(), in_b.end(), line) == in_b.end()) out.push_back(line);
  return out;
}

int run_topology(const ReportOptions& opt) {
  auto fleet = read_fleet(opt.source);
  if (!fleet.ok()) {
    spdlog::error("{}", fleet.error());
    return kExitBadInput;
  }
  Topology t = fleet_topology(*fleet);
  auto rendered = render_topology(t, opt.topology_format);
  if (!rendered.ok()) {
    spdlog::error("{}", rendered.error());
    return kExitBadInput;
  }
  const std::string& text = *rendered;
  for (const auto& o : t.left_out)
    spdlog::warn("{} left out: {}{}", o.node, o.why, o.likely_unit.empty() ? "" : " (likely " + o.likely_unit + ")");
  print_unreadable(*fleet);
  if (!opt.check.empty()) {
    auto running = read_text_file(opt.check);
    if (!running.ok()) {
      spdlog::error("--check {}", running.error());
      return kExitBadInput;
    }
    auto gone = lines_missing(*running, text), added = lines_missing(text, *running);
    for (const auto& l : gone) std::cout << "- " << l << "\n";
    for (const auto& l : added) std::cout << "+ " << l << "\n";
    if (*running == text) {
      spdlog::info("{}: as the reports say ({} units)", opt.check, t.units.size());
      return fleet->unreadable.empty() ? kExitOk : kExitBadInput;
    }
    spdlog::info("{} differs from the reports' topology: {} line(s) to go, {} to come", opt.check, gone.size(),
                 added.size());
    return kExitFailed;
  }
  if (opt.output.empty()) std::cout << text;
  else if (Status st = write_file_atomically(opt.output, text); !st.ok()) {
    spdlog::error("{}", st.error());
    return kExitFailed;
  }
  std::size_t placed = 0;
  for (const auto& u : t.units) placed += u.nodes.size();
  spdlog::info("{} in {}, {} left out", plural(placed, "node"), plural(t.units.size(), "scalable unit"),
               t.left_out.size());
  if (!fleet->unreadable.empty()) return kExitBadInput;
  return t.left_out.empty() ? kExitOk : kExitFailed;
}

const bool report_registered = register_subcommand(60, [](CLI::App& app) {
  auto opt = std::make_shared<ReportOptions>();
  auto* report = app.add_subcommand("report", "Read first-boot reports: one node, the fleet, or the fleet as HTML");
  report->require_subcommand(1);
  opt->show = report->add_subcommand("show", "One node's report: failures first with hints, then phases and timings");
  opt->show->add_option("report", opt->source, "report.json file, or an http(s):// URL")->required();
  opt->show->add_flag("--json", opt->json, "Print JSON");
  opt->show->add_option("--sweep", opt->sweep, "A fleet sweep's sweep.json: the node's rails as the sweep found them");
  opt->summary = report->add_subcommand("summary", "The fleet: pass/fail, failures by check, by SKU, driver, kernel");
  opt->summary->add_option("dir", opt->source, "Directory of reports (searched recursively for *.json)")->required();
  opt->summary->add_flag("--json", opt->json, "Print JSON");
  opt->summary->add_option("--sweep", opt->sweep, "A fleet sweep's sweep.json: its verdict, culprits and pair faults");
  opt->html = report->add_subcommand("html", "The fleet as one self-contained HTML page with each node's rails");
  opt->html->add_option("dir", opt->source, "Directory of reports (searched recursively for *.json)")->required();
  opt->html->add_option("-o,--output", opt->output, "HTML file to write")->required();
  opt->html->add_option("--sweep", opt->sweep, "A fleet sweep's sweep.json: the fabric sweep view (nodes x rails)");
  opt->topology = report->add_subcommand(
      "topology", "The fabric's scalable units from the rails' LLDP, for Slurm's topology plugins or Kubernetes");
  opt->topology->add_option("dir", opt->source, "Directory of reports (searched recursively for *.json)")->required();
  opt->topology->add_option("--format", opt->topology_format.format, kTopologyFormats)
      ->check(CLI::IsMember({"slurm-tree", "slurm-block", "json", "k8s-labels"}))
      ->default_val("slurm-tree");
  opt->topology->add_option("-o,--output", opt->output,
                            "File to write (whole or not at all); standard output otherwise");
  opt->topology->add_option("--check", opt->check,
                            "Compare with this file (the one Slurm runs): exit 1 naming the lines that differ");
  opt->topology->add_option("--spine", opt->topology_format.spine, "slurm-tree: the switch above the units")
      ->default_val("spine");
  opt->topology->add_option("--block-sizes", opt->topology_format.block_sizes, "slurm-block: BlockSizes, in nodes")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  return Subcommand{report, [opt](const CommandContext&) {
                      if (*opt->show) return run_show_report(*opt);
                      if (*opt->summary) return run_summary(*opt);
                      if (*opt->topology) return run_topology(*opt);
                      return run_html(*opt);
                    }};
});

}  // namespace

}  // namespace railyard
