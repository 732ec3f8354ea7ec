// The agent's Slurm steps (firstboot/join: slurm_after_selftest) against a real slurmctld,
// munged and configless slurmd (tests/slurm/run.sh starts them in namespaces of their own):
// a failing node drained with its failing checks before its slurmd ever ran, a passing one
// registered, given its features and resumed from railyard's drain, and an operator's drain
// left alone. The cases run in order: each starts from the state the one before left.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "join/join.h"
#include "slurm.h"
#include "support/fake_join.h"

using namespace railyard;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE_MESSAGE(v, name << " is not set: run this test through tests/slurm/run.sh");
  return v;
}

CheckResult result(const std::string& name, CheckStatus status) {
  CheckResult c;
  c.id = CheckId::parse(name);
  c.status = status;
  c.expected = "up";
  c.observed = status == CheckStatus::pass ? "up" : "down";
  c.required = true;
  return c;
}

Report report(bool pass) {
  Report r;
  r.node = env("RAILYARD_SLURM_NODE");
  r.recipe = "lab";
  r.checks = {result("rail.0.link", CheckStatus::pass),
              result("rail.3.link", pass ? CheckStatus::pass : CheckStatus::fail)};
  r.plan = {{"rails", {{{"rail", 0}, {"rdma_device", "rxe0"}}, {{"rail", 3}, {"rdma_device", "rxe3"}}}}};
  r.inventory = {{"gpus", nlohmann::ordered_json::array()}};
  return r;
}

SlurmSpec spec() {
  SlurmSpec s;
  s.controller = env("RAILYARD_SLURM_CONTROLLER");
  s.cluster = "lab";
  s.partition = "gpu";
  s.features = {"railyard", "rails{rails}", "{rdma}"};
  s.register_wait_s = 20;
  return s;
}

// The controller's view, through the agent's own client configuration.
SlurmNodeState controller_view(const test::TempRoot& root) {
  NativeJoinEffects fx;
  std::string out;
  int rc = fx.run(scontrol_show_node_argv(env("RAILYARD_SLURM_NODE")),
                  {"SLURM_CONF=" + (root / kSlurmClientConf).string()}, &out);
  REQUIRE(rc == 0);
  return parse_scontrol_node(out);
}

std::string log_text(const std::vector<JoinLine>& log) {
  std::string out;
  for (const auto& l : log) out += l.text + "\n";
  return out;
}

}  // namespace

TEST_CASE("slurm: drain on a fail, register and resume on a pass, an operator's drain kept") {
  test::TempRoot root;
  NativeJoinEffects fx;
  const std::string node = env("RAILYARD_SLURM_NODE");

  // 1. First boot fails before slurmd has ever run: the node is drained all the same.
  {
    std::vector<JoinLine> log;
    auto out = slurm_after_selftest(report(false), spec(), root.str(), fx, real_clock(), log);
    INFO(log_text(log));
    CHECK(out.ok);
    auto s = controller_view(root);
    CHECK(s.drained);
    CHECK(s.reason == "railyard: rail.3.link");
    CHECK_FALSE(s.responding);  // no slurmd yet
    CHECK(out.record.state.value_or("").find("DRAIN") != std::string::npos);
    CHECK(out.record.reason == "railyard: rail.3.link");
  }

  // 2. A later boot passes: slurmd (a join unit) starts, registers, and railyard's drain is resumed.
  REQUIRE(std::system(env("RAILYARD_SLURMD").c_str()) == 0);
  {
    std::vector<JoinLine> log;
    auto out = slurm_after_selftest(report(true), spec(), root.str(), fx, real_clock(), log);
    INFO(log_text(log));
    CHECK(out.ok);
    CHECK(out.record.registered_ms.has_value());
    CHECK(out.record.state == "IDLE");
    auto s = controller_view(root);
    CHECK(s.state == "IDLE");
    CHECK(s.responding);
    CHECK(s.reason.empty());
    CHECK(s.partitions == std::vector<std::string>{"gpu"});
    CHECK(s.features == std::vector<std::string>{"railyard", "rails2", "rxe0", "rxe3"});
  }

  // 3. An operator drains it for maintenance; a pass does not resume that.
  REQUIRE(fx.run(scontrol_drain_argv(node, "PSU swap, ticket 4411"),
                 {"SLURM_CONF=" + (root / kSlurmClientConf).string()}, nullptr) == 0);
  {
    std::vector<JoinLine> log;
    auto out = slurm_after_selftest(report(true), spec(), root.str(), fx, real_clock(), log);
    INFO(log_text(log));
    CHECK(out.ok);
    auto s = controller_view(root);
    CHECK(s.drained);
    CHECK(s.reason == "PSU swap, ticket 4411");
    CHECK(log_text(log).find("is not railyard's") != std::string::npos);
  }

  // 4. A partition the node is not in fails the join.
  {
    SlurmSpec other = spec();
    other.partition = "debug";
    std::vector<JoinLine> log;
    auto out = slurm_after_selftest(report(true), other, root.str(), fx, real_clock(), log);
    CHECK_FALSE(out.ok);
    CHECK(log_text(log).find("is not in partition debug") != std::string::npos);
  }
}
