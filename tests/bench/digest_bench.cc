// The fleet summary's report reader (builder/report/report_reader.cc: simdjson On-Demand
// with the report contract's checks and errors) against the bare On-Demand walk that only
// takes the same fields: both make the summary's digest (identity, result, failing checks,
// each check kind's worst status, phases, what the node runs) of every report under DIR,
// from memory, RUNS times; prints
// each one's median and their ratio (what the checks cost), and checks that both read the
// same digests. ci/bench-report.sh runs it on its 10,000 reports.
//   railyard_digest_bench DIR [RUNS]
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/report_reader.h"

using namespace railyard;
namespace fs = std::filesystem;

namespace {

// The same digest with bare simdjson On-Demand: the fields the digest keeps, everything
// else stepped over, no checks of the contract; false on any error (a fleet of valid
// reports has none).
bool simdjson_digest(simdjson::ondemand::parser& parser, const simdjson::padded_string& text, ReportDigest& d) {
  using namespace simdjson;
  try {
    ondemand::document doc = parser.iterate(text);
    std::string hostname, result;
    for (auto field : doc.get_object()) {
      std::string_view key = field.unescaped_key();
      auto v = field.value();
      if (key == "schema") d.schema = static_cast<int>(int64_t(v));
      else if (key == "node") d.node = std::string_view(v);
      else if (key == "recipe") d.recipe = std::string_view(v);
      else if (key == "result") result = std::string_view(v);
      else if (key == "started_at") d.started_at = std::string_view(v);
      else if (key == "railyard_version") d.railyard_version = std::string_view(v);
      else if (key == "host") {
        for (auto h : v.get_object()) {
          std::string_view hk = h.unescaped_key();
          if (hk == "hostname") hostname = std::string_view(h.value());
          else if (hk == "kernel") d.kernel = std::string_view(h.value());
          else if (hk == "boot_id") d.boot_id = std::string_view(h.value());
          else if (hk == "drivers")
            for (auto s : h.value().get_array()) d.drivers.emplace_back(std::string_view(s));
        }
      } else if (key == "problems") {
        for (auto s : v.get_array()) d.problems.emplace_back(std::string_view(s));
      } else if (key == "checks") {
        for (auto c : v.get_array()) {
          std::string_view name, status;
          bool required = true;
          for (auto f : c.get_object()) {
            std::string_view ck = f.unescaped_key();
            if (ck == "name") name = f.value();
            else if (ck == "status") status = f.value();
            else if (ck == "required") required = bool(f.value());
          }
          auto st = parse_check_status(std::string(status));
          if (!st) return false;
          ++d.check_count;
          CheckId id = CheckId::parse(name);
          std::uint8_t& worst = d.worst[static_cast<std::size_t>(id.kind)];
          worst = std::max(worst, worst_rank(*st));
          if (*st == CheckStatus::fail || (*st == CheckStatus::unsupported && required))
            d.failures.push_back({std::move(id), *st});
        }
      } else if (key == "phases") {
        for (auto p : v.get_array()) {
          PhaseTiming& t = d.phases.emplace_back();
          for (auto f : p.get_object()) {
            std::string_view pk = f.unescaped_key();
            if (pk == "phase") t.phase = std::string_view(f.value());
            else if (pk == "ms") t.ms = double(f.value());
          }
        }
      }
    }
    d.passed = result == "pass";
    if (d.node.empty()) d.node = hostname;
    return true;
  } catch (const simdjson_error&) {
    return false;
  }
}

// A digest as text, to compare the two readers' answers.
std::string fingerprint(const ReportDigest& d) {
  std::string s = d.node + "|" + d.recipe + "|" + (d.passed ? "pass" : "fail") + "|" + d.started_at + "|" + d.kernel +
                  "|" + d.boot_id + "|" + std::to_string(d.check_count);
  for (const auto& f : d.failures) s += "|" + f.id.name() + ":" + to_string(f.status);
  for (const auto& p : d.phases) s += "|" + p.phase + "=" + std::to_string(p.ms);
  for (const auto& v : d.drivers) s += "|" + v;
  for (std::uint8_t w : d.worst) s += std::to_string(w);
  return s;
}

template <class F>
double median_ms(int runs, F&& once) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    once();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [RUNS]\n", argv[0]);
    return 2;
  }
  int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  std::vector<std::string> texts;
  std::vector<simdjson::padded_string> padded;
  std::size_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(argv[1])) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    texts.push_back(ss.str());
    padded.emplace_back(texts.back());
    bytes += texts.back().size();
  }
  if (texts.empty()) {
    std::fprintf(stderr, "%s: no reports\n", argv[1]);
    return 2;
  }
  std::vector<std::string> reader_prints(texts.size()), simd_prints(texts.size());
  ReportReader reader;
  double ours = median_ms(runs, [&] {
    for (std::size_t i = 0; i < texts.size(); ++i) {
      auto d = reader.digest(texts[i]);
      reader_prints[i] = d.ok() ? fingerprint(*d) : "error";
    }
  });
  simdjson::ondemand::parser parser;
  double simd = median_ms(runs, [&] {
    for (std::size_t i = 0; i < padded.size(); ++i) {
      ReportDigest d;
      simd_prints[i] = simdjson_digest(parser, padded[i], d) ? fingerprint(d) : "error";
    }
  });
  std::size_t differ = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) differ += reader_prints[i] != simd_prints[i];
  std::printf("digests of %zu reports (%.1f MiB), from memory, median of %d runs:\n", texts.size(),
              static_cast<double>(bytes) / (1 << 20), runs);
  std::printf("  report reader (railyard's)  %8.1f ms  %7.1f MB/s\n", ours, static_cast<double>(bytes) / 1e3 / ours);
  std::printf("  bare simdjson On-Demand     %8.1f ms  %7.1f MB/s\n", simd, static_cast<double>(bytes) / 1e3 / simd);
  std::printf("  reader / bare time: %.2f (the contract's checks and the copy into padding)\n", ours / simd);
  std::printf("  digests that differ: %zu\n", differ);
  return differ == 0 ? 0 : 1;
}
