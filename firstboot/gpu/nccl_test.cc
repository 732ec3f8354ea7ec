// all_reduce_perf's run and its output (gpu/nccl.cc), and nccl.all_reduce on it.
#include "gpu/nccl.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "checks/gpu_health.h"
#include "support/verify_node.h"

using namespace railyard;
using railyard::test::verify_node::Node;

namespace {

const std::string kFixtures = std::string(RAILYARD_SOURCE_DIR) + "/tests/fixtures/nccl/";

std::string fixture(const std::string& name) {
  std::ifstream in(kFixtures + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An executable script standing in for all_reduce_perf, in a temporary directory.
std::string script(const std::string& body) {
  char dir[] = "/tmp/railyard-nccl-XXXXXX";
  REQUIRE(::mkdtemp(dir));
  std::string path = std::string(dir) + "/all_reduce_perf";
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

void plan_nccl(Recipe& r) { r.selftest.nccl_allreduce_min_gbps = 250; }

}  // namespace

TEST_CASE("all_reduce_perf's output: the average bus bandwidth, wrong results, the largest size's row") {
  auto a = parse_all_reduce(fixture("all-reduce-8gpu.txt"));
  REQUIRE_MESSAGE(a.ok(), a.error());
  CHECK(a->busbw_gbps == doctest::Approx(279.987));
  CHECK(a->wrong == 0);
  CHECK(a->largest.rfind("1073741824     268435456     float     sum", 0) == 0);
  auto w = parse_all_reduce(fixture("all-reduce-wrong.txt"));
  REQUIRE(w.ok());
  CHECK(w->wrong == 6);
  auto d = parse_all_reduce(fixture("all-reduce-died.txt"));
  REQUIRE_FALSE(d.ok());
  CHECK(d.error() == "no \"# Avg bus bandwidth\" line: all_reduce_perf did not finish");
}

TEST_CASE("run_all_reduce_perf: the node's GPUs and sizes, the output kept; absent is not run; a hang is killed") {
  std::string p = script("echo \"args: $*\"\ncat '" + kFixtures + "all-reduce-8gpu.txt'\n");
  NcclRun run = run_all_reduce_perf(p, 8, 30);
  CHECK_FALSE(run.not_run);
  CHECK(run.status == 0);
  CHECK(run.command == p + " -b 8M -e 1G -f 2 -g 8 -c 1");
  CHECK(run.output.rfind("args: -b 8M -e 1G -f 2 -g 8 -c 1\n", 0) == 0);
  CHECK(parse_all_reduce(run.output).ok());

  NcclRun absent = run_all_reduce_perf("/nonexistent/all_reduce_perf", 8, 30);
  REQUIRE(absent.not_run);
  CHECK(*absent.not_run ==
        "/nonexistent/all_reduce_perf: No such file or directory (build nccl-tests into the image, "
        "or set selftest.nccl_all_reduce_perf)");

  NcclRun hung = run_all_reduce_perf(script("exec sleep 30\n"), 8, 1);
  CHECK(hung.status == 124);
}

TEST_CASE("nccl.all_reduce: planned only when asked, on two NVIDIA GPUs or more") {
  Node none;
  CHECK_FALSE(checks::plans_nccl(none.plan));
  Node n(plan_nccl);
  REQUIRE(checks::plans_nccl(n.plan));
  CHECK(n.check("nccl.all_reduce").expected ==
        "all_reduce_perf across " + std::to_string(n.plan.gpus.size()) + " GPUs: bus bandwidth >= 250 GB/s");
  Node amd([](Recipe& r) {
    plan_nccl(r);
    r.hardware.gpu_vendor = GpuVendor::amd;
  });
  CHECK_FALSE(checks::plans_nccl(amd.plan));
}

TEST_CASE("nccl.all_reduce: passes at the bound, fails below it, on wrong results, on a kill; skips where not run") {
  Node n(plan_nccl);
  auto r = n.check("nccl.all_reduce");
  CHECK(r.status == CheckStatus::skip);  // not run (as in verify)
  CHECK(r.detail.find("compete with the jobs") != std::string::npos);

  n.nccl = NcclRun{"all_reduce_perf -g 6", std::nullopt, 0, fixture("all-reduce-8gpu.txt")};
  r = n.check("nccl.all_reduce");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "280.0 GB/s bus bandwidth");

  n.plan.selftest.nccl_allreduce_min_gbps = 300;
  r = n.check("nccl.all_reduce");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.detail.rfind("below the recipe's 300 GB/s: see gpu.N.nvlink", 0) == 0);

  n.nccl->output = fixture("all-reduce-wrong.txt");
  r = n.check("nccl.all_reduce");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.detail == "6 wrong results (# Out of bounds values): a GPU or NVLink corrupts data");

  n.nccl->output = fixture("all-reduce-died.txt");
  n.nccl->status = 1;
  r = n.check("nccl.all_reduce");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "exit status 1");

  n.nccl->status = 124;
  CHECK(n.check("nccl.all_reduce").observed == "killed");

  n.nccl = NcclRun{"x", std::string("/usr/local/bin/all_reduce_perf: No such file or directory"), 0, ""};
  r = n.check("nccl.all_reduce");
  CHECK(r.status == CheckStatus::skip);
  CHECK(r.observed == "not in the image");
}
