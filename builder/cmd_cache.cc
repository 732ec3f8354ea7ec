// `railyard cache ls|prune`: what the stage cache holds, and making room.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include <spdlog/spdlog.h>

#include "image/cache.h"
#include "commands.h"
#include "image/openssl_hasher.h"
#include "subcommand.h"

namespace railyard {

namespace {

std::string human_size(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string human_age(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (seconds < 7200) return std::to_string(seconds / 60) + "m";
  if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds / 86400) + "d";
}

std::int64_t now_s() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

std::size_t tmp_leftovers(const std::string& root) {
  std::error_code ec;
  std::filesystem::directory_iterator it(root + "/tmp", ec);
  return ec ? 0 : static_cast<std::size_t>(std::distance(it, std::filesystem::directory_iterator()));
}

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}

int run_cache_ls(const std::string& cache_dir, bool json) {
  OpenSslHasher hasher;
  StageCache cache(cache_dir, hasher);
  auto entries = cache.list();
  if (!entries.ok()) {
    spdlog::error("{}", entries.error());
    return kExitFailed;
  }
  std::int64_t now = now_s();
  std::size_t tmp = tmp_leftovers(cache_dir);
  DownloadsUsage downloads = cache.downloads();
  if (json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& e : *entries)
      list.push_back(
          {{"stage", to_string(e.stage)},
           {"key", e.key},
           {"complete", e.complete},
           {"size", e.size},
           {"created", e.created},
           {"age_s", e.complete ? now - e.created : 0},
           {"problem", e.problem.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.problem)},
           {"path", e.dir}});
    nlohmann::ordered_json out{{"cache", cache_dir},
                               {"entries", list},
                               {"tmp_leftovers", tmp},
                               {"downloads", {{"files", downloads.files}, {"bytes", downloads.bytes}}}};
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "cache " << cache_dir << "\n";
  if (entries->empty()) std::cout << "no entries\n";
  else std::cout << pad("STAGE", 10) << pad("KEY", kKeyPrefix + 2) << pad("SIZE", 12) << pad("AGE", 6) << "STATE\n";
  std::uint64_t total = 0;
  for (const auto& e : *entries) {
    total += e.size;
    std::cout << pad(to_string(e.stage), 10) << pad(e.key.substr(0, kKeyPrefix), kKeyPrefix + 2)
              << pad(e.complete ? human_size(e.size) : "-", 12) << pad(e.complete ? human_age(now - e.created) : "-", 6)
              << (e.complete ? "ok" : "incomplete: " + e.problem) << "\n";
  }
  if (!entries->empty()) std::cout << entries->size() << " entries, " << human_size(total) << "\n";
  if (tmp > 0)
    std::cout << "tmp/: " << tmp << " leftover(s) of interrupted builds (railyard cache prune removes them)\n";
  if (downloads.files > 0)
    std::cout << "downloads/: " << downloads.files << " file(s), " << human_size(downloads.bytes)
              << ": fetched archives and keys, kept packages (railyard cache prune --downloads removes them)\n";
  return kExitOk;
}

int run_cache_prune(const std::string& cache_dir, std::size_t keep, bool downloads) {
  OpenSslHasher hasher;
  StageCache cache(cache_dir, hasher);
  auto report = cache.prune(keep, downloads);
  if (!report.ok()) {
    spdlog::error("{}", report.error());
    return kExitFailed;
  }
  for (const auto& e : report->removed)
    std::cout << "removed " << to_string(e.stage) << " " << e.key.substr(0, kKeyPrefix) << " "
              << (e.complete ? human_size(e.size) : "(incomplete)") << "\n";
  std::cout << report->removed.size() << " entries removed, " << human_size(report->freed) << " freed, "
            << report->tmp_removed << " leftover(s) removed from tmp/; newest " << keep << " per stage kept\n";
  if (downloads)
    std::cout << "downloads/: " << report->downloads_removed.files << " file(s) removed, "
              << human_size(report->downloads_removed.bytes) << " freed\n";
  return kExitOk;
}

const bool cache_registered = register_subcommand(45, [](CLI::App& app) {
  struct Options {
    std::string cache_dir;
    bool json = false;
    std::size_t keep = 1;
    bool downloads = false;
  };
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand("cache", "List or prune the stage cache");
  sub->require_subcommand(1);
  sub->add_option("--cache", opt->cache_dir, "Stage cache (default as for build)");
  auto* ls = sub->add_subcommand("ls", "List cache entries: stage, key, size, age");
  ls->add_flag("--json", opt->json, "Print JSON");
  auto* prune = sub->add_subcommand("prune", "Keep the newest entries per stage; remove the rest and tmp/");
  prune->add_option("--keep", opt->keep, "Entries to keep per stage")->default_val(1);
  prune->add_flag("--downloads", opt->downloads,
                  "Also remove downloads/ (fetched archives and keys, kept packages; fetched again when needed)");
  sub->fallthrough();  // --cache may follow ls/prune
  return Subcommand{sub, [opt, ls](const CommandContext&) {
                      std::string dir = opt->cache_dir;
                      if (dir.empty())
                        dir = default_cache_dir(::geteuid() == 0, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
                      if (dir.empty()) {
                        spdlog::error("neither HOME nor XDG_CACHE_HOME is set; pass --cache DIR");
                        return kExitBadInput;
                      }
                      return *ls ? run_cache_ls(dir, opt->json) : run_cache_prune(dir, opt->keep, opt->downloads);
                    }};
});

}  // namespace

}  // namespace railyard
