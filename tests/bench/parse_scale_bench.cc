// How the report reader's time grows with a body's size, for the shapes a hostile client
// sends the receiver: the receiver's read (ReportReader::checked, what `railyard collect`
// stores by) and `report show`'s (whole, the values built), at sizes doubling up to the
// receiver's 8 MiB body limit. Linear means a constant time per byte down each column; the
// last line says how far the largest size's per-byte time is from the smallest's. A shape
// of small values passes the reader's bound of 250,000 values at about 1 MiB and is refused
// there: its time stops growing, as a receiver's does. The strings stay under the bound to
// the largest size.
// ci/bench-parse.sh runs it.
//   railyard_parse_scale_bench [MAX_BYTES] [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "report/report_reader.h"

using namespace railyard;

namespace {

const std::string kTail =
    R"("schema": 1, "node": "n1", "result": "pass", "started_at": "2026-03-10T08:00:00Z", "checks": []})";

// A report whose plan is `fill` repeated to about `bytes` bytes, in brackets `open`/`close`.
std::string shaped(std::size_t bytes, const std::string& open, const std::function<std::string(std::size_t)>& item,
                   const std::string& close) {
  std::string plan = open;
  for (std::size_t i = 0; plan.size() < bytes; ++i) plan += (i ? "," : "") + item(i);
  return R"({"plan": )" + plan + close + ", " + kTail;
}

struct Shape {
  const char* name;
  std::function<std::string(std::size_t)> make;
};

double median_ms(const std::function<void()>& f, int runs) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto s = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t max_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (8u << 20);
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<Shape> shapes = {
      {"array of {}",
       [](std::size_t n) {
         return shaped(
             n, "[", [](std::size_t) { return "{}"; }, "]");
       }},
      {"object, many keys",
       [](std::size_t n) {
         return shaped(
             n, "{", [](std::size_t i) { return "\"k" + std::to_string(i) + "\":{}"; }, "}");
       }},
      {"unclosed [", [](std::size_t n) { return R"({"plan": )" + std::string(n, '['); }},
      {"strings, 1e999 last",
       [](std::size_t n) {
         return shaped(
             n, "[", [](std::size_t) { return "\"" + std::string(100, 'x') + "\""; }, ",1e999]");
       }},
      {"strings",
       [](std::size_t n) {
         return shaped(
             n, "[", [](std::size_t) { return "\"" + std::string(100, 'x') + "\""; }, "]");
       }},
  };
  std::printf("%-20s %10s %12s %12s %12s %12s\n", "shape", "bytes", "checked ms", "ns/byte", "whole ms", "ns/byte");
  ReportReader reader;
  for (const auto& shape : shapes) {
    double first_ns = 0, last_ns = 0;
    for (std::size_t bytes = 64u << 10; bytes <= max_bytes; bytes *= 2) {
      std::string body = shape.make(bytes);
      double checked = median_ms([&] { (void)reader.checked(body); }, runs);
      double whole = median_ms([&] { (void)reader.whole(body); }, runs);
      double ns = checked * 1e6 / static_cast<double>(body.size());
      if (first_ns == 0) first_ns = ns;
      last_ns = ns;
      std::printf("%-20s %10zu %12.2f %12.2f %12.2f %12.2f\n", shape.name, body.size(), checked, ns, whole,
                  whole * 1e6 / static_cast<double>(body.size()));
    }
    std::printf("%-20s per-byte time at the largest size / at the smallest: %.2f\n\n", shape.name, last_ns / first_ns);
  }
  return 0;
}
