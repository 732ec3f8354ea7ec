// builder/qemu/lab_result.cc: the exit code of railyard qemu from what the guest exported.
#include <doctest/doctest.h>

#include "qemu/lab_result.h"

using namespace railyard;

namespace {

const char* const kJoined =
    R"({"agent_exit": 0, "joined": true, "ready_unit": "active", "rerun_exit": null, "report_uptime_s": 68.1})";

std::string report(const std::string& result, const std::string& checks = "[]", const std::string& problems = "[]") {
  return R"({"schema": 1, "node": "lab-node01", "result": ")" + result + R"(", "checks": )" + checks +
         R"(, "problems": )" + problems + "}";
}

}  // namespace

TEST_CASE("a passing report from a node that joined: 0") {
  LabVerdict v = judge_lab_run(report("pass"), kJoined);
  CHECK(v.exit_code == 0);
  CHECK(v.summary == "lab-node01 passed its self-test and joined");
}

TEST_CASE("a failing report: 1, with the failed checks named") {
  std::string checks =
      R"([{"name": "rail.1.link", "status": "fail", "expected": "up", "observed": "down", "detail": ""},
                           {"name": "rail.1.pfc", "status": "unsupported", "expected": "", "observed": "", "detail": ""}])";
  LabVerdict v = judge_lab_run(report("fail", checks), R"({"agent_exit": 1, "joined": false})");
  CHECK(v.exit_code == 1);
  CHECK(v.summary == "lab-node01 failed its self-test (1 failed check): not joined");
  CHECK(v.detail == std::vector<std::string>{"failed: rail.1.link: expected up, observed down"});
}

TEST_CASE("a plan problem fails the node without any check") {
  LabVerdict v = judge_lab_run(report("fail", "[]", R"(["the recipe wants 4 rails; 3 RDMA NIC(s) found"])"), "");
  CHECK(v.exit_code == 1);
  CHECK(v.detail == std::vector<std::string>{"problem: the recipe wants 4 rails; 3 RDMA NIC(s) found"});
}

TEST_CASE("passing without joining is a failure of the node") {
  LabVerdict v = judge_lab_run(report("pass"), R"({"agent_exit": 1, "joined": false, "ready_unit": "failed"})");
  CHECK(v.exit_code == 1);
  CHECK(v.summary.find("did not join (join unit failed, agent exit 1)") != std::string::npos);
  CHECK(v.detail.empty());
  // The agent's errors say why: each is a detail line.
  v = judge_lab_run(
      report("pass"), R"({"agent_exit": 1, "joined": false, "ready_unit": "active"})",
      "railyard-firstboot: slurm: lab-node01 did not register\n\nrailyard-firstboot: Slurm did not take the node\n");
  CHECK(v.exit_code == 1);
  CHECK(v.detail == std::vector<std::string>{"agent: railyard-firstboot: slurm: lab-node01 did not register",
                                             "agent: railyard-firstboot: Slurm did not take the node"});
}

TEST_CASE("no report, a broken one or no word on joining: harness error") {
  CHECK(judge_lab_run("", "").exit_code == 2);
  CHECK(judge_lab_run("", "").summary == "no report came out of the guest");
  CHECK(judge_lab_run("{\"schema\": 1, \"res", kJoined).exit_code == 2);
  CHECK(judge_lab_run(R"({"schema": 1})", kJoined).exit_code == 2);
  CHECK(judge_lab_run(report("maybe"), kJoined).exit_code == 2);
  CHECK(judge_lab_run(report("pass"), "").exit_code == 2);
}
