// `railyard report show|summary|html`: the agent's first-boot reports for operators: one
// node (a file or a URL), the fleet (a directory of reports, e.g. a receiver's), and the
// fleet as one self-contained HTML page.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "io/atomic_file.h"
#include "report/fleet_page.h"
#include "report/fleet_summary.h"
#include "report/node_view.h"
#include "report/report_source.h"
#include "subcommand.h"
#include "text.h"

namespace railyard {

namespace {

constexpr auto kReplaceInvalid = nlohmann::ordered_json::error_handler_t::replace;

struct ReportOptions {
  std::string source;  // show: FILE or URL; summary, html: DIR
  std::string output;  // html -o
  bool json = false;
  CLI::App* show = nullptr;
  CLI::App* summary = nullptr;
  CLI::App* html = nullptr;
};

int run_show_report(const ReportOptions& opt) {
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
  if (opt.json) std::cout << node_json(*report).dump(2, ' ', false, kReplaceInvalid) << "\n";
  else std::cout << node_text(*report, TextStyle(TextStyle::colour_for_stdout()));
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
  FleetSummary s = summarize(*fleet);
  if (opt.json) std::cout << to_json(s).dump(2, ' ', false, kReplaceInvalid) << "\n";
  else std::cout << to_text(s, TextStyle(TextStyle::colour_for_stdout()));
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
  std::vector<UnreadableReport> unreadable;
  std::string page = fleet_page(summarize(*fleet), fleet->nodes, load, unreadable);
  if (Status st = write_file_atomically(opt.output, page); !st.ok()) {
    spdlog::error("{}", st.error());
    return kExitFailed;
  }
  fleet->unreadable.insert(fleet->unreadable.end(), unreadable.begin(), unreadable.end());
  print_unreadable(*fleet);
  spdlog::info("{}: {}", opt.output, plural(fleet->nodes.size(), "node"));
  return fleet->unreadable.empty() ? kExitOk : kExitBadInput;
}

const bool report_registered = register_subcommand(60, [](CLI::App& app) {
  auto opt = std::make_shared<ReportOptions>();
  auto* report = app.add_subcommand("report", "Read first-boot reports: one node, the fleet, or the fleet as HTML");
  report->require_subcommand(1);
  opt->show = report->add_subcommand("show", "One node's report: failures first with hints, then phases and timings");
  opt->show->add_option("report", opt->source, "report.json file, or an http(s):// URL")->required();
  opt->show->add_flag("--json", opt->json, "Print JSON");
  opt->summary = report->add_subcommand("summary", "The fleet: pass/fail, failures by check, by SKU, driver, kernel");
  opt->summary->add_option("dir", opt->source, "Directory of reports (searched recursively for *.json)")->required();
  opt->summary->add_flag("--json", opt->json, "Print JSON");
  opt->html = report->add_subcommand("html", "The fleet as one self-contained HTML page with each node's rails");
  opt->html->add_option("dir", opt->source, "Directory of reports (searched recursively for *.json)")->required();
  opt->html->add_option("-o,--output", opt->output, "HTML file to write")->required();
  return Subcommand{report, [opt](const CommandContext&) {
                      if (*opt->show) return run_show_report(*opt);
                      if (*opt->summary) return run_summary(*opt);
                      return run_html(*opt);
                    }};
});

}  // namespace

}  // namespace railyard
