// The first-boot report (report.cc): which checks count against the node, the console
// marker, report.json's fields, the summary for people and the node_exporter textfile.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "report.h"

using namespace railyard;

namespace {

CheckResult check(const std::string& name, CheckStatus status, bool required = true, const std::string& expected = "",
                  const std::string& observed = "", const std::string& detail = "") {
  CheckResult c;
  c.id = CheckId::parse(name);
  c.status = status;
  c.required = required;
  c.expected = expected;
  c.observed = observed;
  c.detail = detail;
  return c;
}

Report report_of(std::vector<CheckResult> checks) {
  Report r;
  r.node = "gpu-a01";
  r.recipe = "hgx";
  r.railyard_version = "0.1.0";
  r.started_at = "2024-05-01T10:00:00Z";
  r.checks = std::move(checks);
  return r;
}

// Where `needle` starts in `hay`; npos when absent.
std::size_t at(const std::string& hay, const std::string& needle) { return hay.find(needle); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// What counts against the node

TEST_CASE("failing: a failure always counts, required or not") {
  CHECK(check("a", CheckStatus::fail, true).failing());
  CHECK(check("a", CheckStatus::fail, false).failing());
}

TEST_CASE("failing: unsupported counts only when the check is required") {
  CHECK(check("a", CheckStatus::unsupported, true).failing());
  CHECK_FALSE(check("a", CheckStatus::unsupported, false).failing());
}

TEST_CASE("failing: pass, warn and skip never count") {
  for (bool required : {true, false}) {
    CAPTURE(required);
    CHECK_FALSE(check("a", CheckStatus::pass, required).failing());
    CHECK_FALSE(check("a", CheckStatus::warn, required).failing());
    CHECK_FALSE(check("a", CheckStatus::skip, required).failing());
  }
}

TEST_CASE("a default CheckResult is a required skip, which does not fail") {
  CheckResult c;
  CHECK(c.status == CheckStatus::skip);
  CHECK(c.required);
  CHECK_FALSE(c.failing());
}

TEST_CASE("passed: no failing check and no planning problem") {
  CHECK(report_of({}).passed());
  Report r = report_of({check("a", CheckStatus::pass), check("b", CheckStatus::warn), check("c", CheckStatus::skip),
                        check("d", CheckStatus::unsupported, false)});
  CHECK(r.passed());
  CHECK(r.failed_count() == 0);

  r.checks.push_back(check("e", CheckStatus::unsupported, true));
  CHECK_FALSE(r.passed());
  CHECK(r.failed_count() == 1);
  r.checks.push_back(check("f", CheckStatus::fail, false));
  CHECK(r.failed_count() == 2);
}

TEST_CASE("passed: a planning problem fails the node even with every check passing") {
  Report r = report_of({check("a", CheckStatus::pass)});
  r.problems.push_back("the recipe wants 8 rails; 4 RDMA NIC(s) found");
  CHECK_FALSE(r.passed());
  CHECK(r.failed_count() == 0);  // problems are not checks
  CHECK(result_marker(r) == "railyard: result=fail checks=1 failed=0");
}

TEST_CASE("check status names round-trip") {
  for (auto s :
       {CheckStatus::pass, CheckStatus::fail, CheckStatus::skip, CheckStatus::warn, CheckStatus::unsupported}) {
    CAPTURE(to_string(s));
    CHECK(parse_check_status(to_string(s)) == s);
  }
  CHECK(to_string(CheckStatus::unsupported) == "unsupported");
  CHECK_FALSE(parse_check_status("PASS").has_value());
  CHECK_FALSE(parse_check_status("").has_value());
}

// ---------------------------------------------------------------------------------------------
// The console marker

TEST_CASE("result_marker: the exact last console line") {
  CHECK(result_marker(report_of({})) == "railyard: result=pass checks=0 failed=0");
  CHECK(result_marker(report_of({check("a", CheckStatus::pass), check("b", CheckStatus::warn, false)})) ==
        "railyard: result=pass checks=2 failed=0");
  CHECK(result_marker(report_of({check("a", CheckStatus::pass), check("b", CheckStatus::fail),
                                 check("c", CheckStatus::unsupported, true), check("d", CheckStatus::skip)})) ==
        "railyard: result=fail checks=4 failed=2");
}

// ---------------------------------------------------------------------------------------------
// report.json

TEST_CASE("to_json: schema 1, node, result and every check's contract fields") {
  Report r = report_of({check("rail.0.mtu", CheckStatus::pass, true, "9000", "9000"),
                        check("rail.0.pfc", CheckStatus::unsupported, false, "priority 3 lossless (best-effort)",
                              "unsupported", "ens0f0: RTM_GETDCB IEEE PFC: Operation not supported")});
  r.phases.push_back({"verify", 1234.5});
  auto j = to_json(r);
  CHECK(j["schema"] == 1);
  CHECK(j["schema"] == kReportSchema);
  CHECK(j["node"] == "gpu-a01");
  CHECK(j["recipe"] == "hgx");
  CHECK(j["result"] == "pass");
  CHECK(j["railyard_version"] == "0.1.0");
  CHECK(j["started_at"] == "2024-05-01T10:00:00Z");
  REQUIRE(j["checks"].is_array());
  REQUIRE(j["checks"].size() == 2);
  const auto& c = j["checks"][1];
  CHECK(c["name"] == "rail.0.pfc");
  CHECK(c["status"] == "unsupported");
  CHECK(c["expected"] == "priority 3 lossless (best-effort)");
  CHECK(c["observed"] == "unsupported");
  CHECK(c["detail"] == "ens0f0: RTM_GETDCB IEEE PFC: Operation not supported");
  CHECK(c["required"] == false);
  CHECK(j["checks"][0]["status"] == "pass");
  CHECK(j["checks"][0]["required"] == true);
  REQUIRE(j["phases"].size() == 1);
  CHECK(j["phases"][0]["phase"] == "verify");
  CHECK(j["phases"][0]["ms"] == 1234.5);
  CHECK(j["problems"].is_array());
  CHECK(j["problems"].empty());
  CHECK(j["changes"].is_array());
  CHECK(j["plan"].is_null());
}

TEST_CASE("to_json: the contract's keys come first, in order") {
  auto j = to_json(report_of({check("a", CheckStatus::pass)}));
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  REQUIRE(keys.size() >= 3);
  CHECK(keys[0] == "schema");
  CHECK(keys[1] == "node");
  std::vector<std::string> check_keys;
  for (auto it = j["checks"][0].begin(); it != j["checks"][0].end(); ++it) check_keys.push_back(it.key());
  CHECK(check_keys == std::vector<std::string>{"name", "status", "expected", "observed", "detail", "required"});
}

TEST_CASE("to_json: host and inventory, added within schema 1 after the contract's fields") {
  Report r = report_of({check("a", CheckStatus::pass)});
  auto j = to_json(r);
  // Without them: empty strings, no drivers, a null inventory; the keys are always there.
  CHECK(j["host"] ==
        nlohmann::ordered_json{
            {"hostname", ""}, {"kernel", ""}, {"boot_id", ""}, {"drivers", nlohmann::ordered_json::array()}});
  CHECK(j["inventory"].is_null());

  r.host = {
      "gpu-a01.lab", "6.8.0-45-generic", "0b5c3c2e-9d6f-4c57-8a57-3f7f0e3d2a11", {"doca-ofed-2.10.0", "cuda-13.0"}};
  r.inventory = {{"gpus", nlohmann::ordered_json::array()}, {"numa_nodes", {{{"id", 0}, {"cpulist", "0-31"}}}}};
  j = to_json(r);
  CHECK(j["schema"] == 1);
  CHECK(j["host"]["hostname"] == "gpu-a01.lab");
  CHECK(j["host"]["kernel"] == "6.8.0-45-generic");
  CHECK(j["host"]["boot_id"] == "0b5c3c2e-9d6f-4c57-8a57-3f7f0e3d2a11");
  CHECK(j["host"]["drivers"] == nlohmann::ordered_json{"doca-ofed-2.10.0", "cuda-13.0"});
  CHECK(j["inventory"]["numa_nodes"][0]["cpulist"] == "0-31");

  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"schema", "node", "recipe", "result", "railyard_version", "started_at", "host",
                                         "problems", "checks", "phases", "changes", "plan", "inventory", "modules",
                                         "lldp", "peers", "join"});
}

TEST_CASE("to_json: result is fail on a failing check or a planning problem") {
  CHECK(to_json(report_of({check("a", CheckStatus::fail, false)}))["result"] == "fail");
  CHECK(to_json(report_of({check("a", CheckStatus::unsupported, true)}))["result"] == "fail");
  CHECK(to_json(report_of({check("a", CheckStatus::unsupported, false)}))["result"] == "pass");
  Report r = report_of({});
  r.problems = {"no RDMA NIC found for the rails"};
  auto j = to_json(r);
  CHECK(j["result"] == "fail");
  REQUIRE(j["problems"].size() == 1);
  CHECK(j["problems"][0] == "no RDMA NIC found for the rails");
}

TEST_CASE("to_json: changes and plan are carried as given; the dump parses back") {
  Report r = report_of({check("a \"quoted\"\nname", CheckStatus::pass)});
  r.changes.push_back({{"object", "rail.0.mtu"}, {"outcome", "changed"}});
  r.plan = {{"recipe", "hgx"}};
  auto back = nlohmann::json::parse(to_json(r).dump(2));
  CHECK(back["changes"][0]["object"] == "rail.0.mtu");
  CHECK(back["plan"]["recipe"] == "hgx");
  CHECK(back["checks"][0]["name"] == "a \"quoted\"\nname");
}

// ---------------------------------------------------------------------------------------------
// The summary for people

TEST_CASE("summary_text: failures first with expected vs observed, then the rest, then timings") {
  Report r = report_of({
      check("rail.0.ecn", CheckStatus::warn, false, "enabled on priority 3 (best-effort)", "np 0, rp 1"),
      check("rail.0.mtu", CheckStatus::pass, true, "9000", "9000"),
      check("rail.1.pfc", CheckStatus::fail, true, "priority 3 lossless", "pfc_en 0x00", "DCBX willing"),
      check("bogus", CheckStatus::skip, true, "x", "", "this agent has no evaluator for the check"),
      check("rail.1.trust", CheckStatus::unsupported, true, "dscp", "unsupported", "no qos/trust"),
  });
  r.phases = {{"apply", 812.4}, {"verify", 2300.6}};
  std::string s = summary_text(r);
  CAPTURE(s);
  CHECK(s.rfind("railyard self-test for gpu-a01 (recipe hgx): FAIL\n", 0) == 0);
  CHECK(s.find("  FAIL        rail.1.pfc: expected priority 3 lossless, observed pfc_en 0x00 (DCBX willing)\n") !=
        std::string::npos);
  CHECK(s.find("  FAIL        rail.1.trust: expected dscp, observed unsupported (no qos/trust)\n") !=
        std::string::npos);
  CHECK(s.find("  warn        rail.0.ecn: np 0, rp 1\n") != std::string::npos);
  CHECK(s.find("  skip        bogus:  (this agent has no evaluator for the check)\n") != std::string::npos);
  // Failures come before the rest, though rail.0.ecn is listed first.
  CHECK(at(s, "FAIL        rail.1.pfc") < at(s, "warn        rail.0.ecn"));
  CHECK(at(s, "FAIL        rail.1.trust") < at(s, "warn        rail.0.ecn"));
  // A passing check is only counted.
  CHECK(s.find("rail.0.mtu") == std::string::npos);
  CHECK(s.find("  1 of 5 checks passed\n") != std::string::npos);
  CHECK(s.find("  phases: apply 812 ms verify 2301 ms\n") != std::string::npos);
}

TEST_CASE("summary_text: a passing node without node identity, and planning problems") {
  Report r = report_of({check("a", CheckStatus::pass)});
  r.node.clear();
  std::string s = summary_text(r);
  CHECK(s.rfind("railyard self-test for this node (recipe hgx): PASS\n", 0) == 0);
  CHECK(s.find("FAIL") == std::string::npos);
  CHECK(s.find("  1 of 1 checks passed\n") != std::string::npos);

  r.problems = {"hardware.rails names 'ens9', which is not on this node"};
  s = summary_text(r);
  CHECK(s.find("): FAIL\n") != std::string::npos);
  CHECK(s.find("  PROBLEM     hardware.rails names 'ens9', which is not on this node\n") != std::string::npos);
}

TEST_CASE("summary_text: a best-effort check that is unsupported is listed, not failed") {
  std::string s = summary_text(report_of({check("rail.0.ecn", CheckStatus::unsupported, false, "x", "unsupported")}));
  CAPTURE(s);
  CHECK(s.find("PASS") != std::string::npos);
  CHECK(s.find("rail.0.ecn: unsupported\n") != std::string::npos);
  CHECK(s.find("FAIL ") == std::string::npos);
}

// The status column fits "unsupported": a space always separates it from the check name.
TEST_CASE("summary_text: a status longer than the column is still separated from the name") {
  std::string s = summary_text(report_of({check("rail.0.ecn", CheckStatus::unsupported, false, "x", "unsupported")}));
  CAPTURE(s);
  CHECK(s.find("  unsupported rail.0.ecn: unsupported\n") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The node_exporter textfile

TEST_CASE("prometheus_text: the exact textfile of a small report") {
  Report r = report_of({check("rail.0.mtu", CheckStatus::pass), check("rail.0.pfc", CheckStatus::fail),
                        check("rail.0.ecn", CheckStatus::warn, false)});
  r.host.kernel = "6.8.0-49-generic";
  r.host.drivers = {"doca-ofed-2.10.0", "cuda-13.0"};
  r.phases = {{"verify", 1500}, {"join", 12.3456}};
  r.join = {{"gate", "/run/railyard/joined"}, {"joined", false}, {"posted", true}};
  CHECK(
      prometheus_text(r) ==
      "# HELP railyard_info The railyard that ran the first boot, and the node's kernel, drivers and recipe.\n"
      "# TYPE railyard_info gauge\n"
      "railyard_info{version=\"0.1.0\",kernel=\"6.8.0-49-generic\",drivers=\"doca-ofed-2.10.0,cuda-13.0\","
      "recipe=\"hgx\"} 1\n"
      "# HELP railyard_report_timestamp_seconds When the first-boot run this report is of started.\n"
      "# TYPE railyard_report_timestamp_seconds gauge\n"
      "railyard_report_timestamp_seconds 1714557600\n"
      "# HELP railyard_selftest_pass 1 when every required first-boot check passed.\n"
      "# TYPE railyard_selftest_pass gauge\n"
      "railyard_selftest_pass{node=\"gpu-a01\",recipe=\"hgx\"} 0\n"
      "# HELP railyard_selftest_check Status of each first-boot check (1 for the status it has).\n"
      "# TYPE railyard_selftest_check gauge\n"
      "railyard_selftest_check{check=\"rail.0.mtu\",status=\"pass\",required=\"true\"} 1\n"
      "railyard_selftest_check{check=\"rail.0.pfc\",status=\"fail\",required=\"true\"} 1\n"
      "railyard_selftest_check{check=\"rail.0.ecn\",status=\"warn\",required=\"false\"} 1\n"
      "# HELP railyard_joined 1 when the node joined: the self-test passed and every join unit is active.\n"
      "# TYPE railyard_joined gauge\n"
      "railyard_joined 0\n"
      "# HELP railyard_report_posted 1 when the report reached the recipe's report URL, 0 when every attempt failed.\n"
      "# TYPE railyard_report_posted gauge\n"
      "railyard_report_posted 1\n"
      "# HELP railyard_phase_seconds Duration of each first-boot phase.\n"
      "# TYPE railyard_phase_seconds gauge\n"
      "railyard_phase_seconds{phase=\"verify\"} 1.500\n"
      "railyard_phase_seconds{phase=\"join\"} 0.012\n");
}

TEST_CASE("prometheus_text: no join record yet (the copy before joining), no joined or posted series") {
  std::string s = prometheus_text(report_of({check("a", CheckStatus::pass)}));
  CHECK(s.find("railyard_joined") == std::string::npos);
  CHECK(s.find("railyard_report_posted") == std::string::npos);
  Report r = report_of({});
  r.started_at = "not a time";
  CHECK(prometheus_text(r).find("railyard_report_timestamp_seconds") == std::string::npos);
}

TEST_CASE("prometheus_text: railyard_selftest_pass is 1 on a passing node") {
  std::string s = prometheus_text(report_of({check("a", CheckStatus::pass), check("b", CheckStatus::warn, false)}));
  CHECK(s.find("railyard_selftest_pass{node=\"gpu-a01\",recipe=\"hgx\"} 1\n") != std::string::npos);
  CHECK(s.find("railyard_selftest_check{check=\"b\",status=\"warn\",required=\"false\"} 1\n") != std::string::npos);
}

TEST_CASE("prometheus_text: label values escape backslashes, quotes and newlines") {
  Report r = report_of({check("odd \"name\"\\x\ny", CheckStatus::skip)});
  r.node = "n\"1\\";
  r.recipe = "line\nbreak";
  r.phases = {{"ph\"ase", 0}};
  std::string s = prometheus_text(r);
  CAPTURE(s);
  CHECK(s.find("railyard_selftest_pass{node=\"n\\\"1\\\\\",recipe=\"line\\nbreak\"} 1\n") != std::string::npos);
  CHECK(s.find("railyard_selftest_check{check=\"odd \\\"name\\\"\\\\x\\ny\",status=\"skip\",required=\"true\"} 1\n") !=
        std::string::npos);
  CHECK(s.find("railyard_phase_seconds{phase=\"ph\\\"ase\"} 0.000\n") != std::string::npos);
  // No raw newline inside any sample line: every line is a comment or a whole sample.
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t end = s.find('\n', start);
    REQUIRE(end != std::string::npos);
    std::string line = s.substr(start, end - start);
    CAPTURE(line);
    CHECK((line.rfind("# ", 0) == 0 || line.rfind("railyard_", 0) == 0));
    start = end + 1;
  }
}

TEST_CASE("prometheus_text: no checks and no phases still give every HELP and TYPE line") {
  Report r = report_of({});
  std::string s = prometheus_text(r);
  for (const char* metric : {"railyard_selftest_pass", "railyard_selftest_check", "railyard_phase_seconds"}) {
    CAPTURE(metric);
    CHECK(s.find(std::string("# HELP ") + metric + " ") != std::string::npos);
    CHECK(s.find(std::string("# TYPE ") + metric + " gauge\n") != std::string::npos);
  }
  CHECK(s.find("railyard_selftest_check{") == std::string::npos);
  CHECK(s.find("railyard_phase_seconds{") == std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// What a failing node's on-fail command and drain are given

TEST_CASE("failing_checks: the checks counting against the node, plan first, each once") {
  Report r = report_of({check("rail.0.mtu", CheckStatus::pass), check("rail.1.link", CheckStatus::fail),
                        check("rail.1.pfc", CheckStatus::unsupported, true),
                        check("rail.1.ecn", CheckStatus::unsupported, false), check("rail.1.link", CheckStatus::fail)});
  CHECK(failing_checks(r) == std::vector<std::string>{"rail.1.link", "rail.1.pfc"});
  r.problems = {"no RDMA NIC"};
  CHECK(failing_checks(r) == std::vector<std::string>{"plan", "rail.1.link", "rail.1.pfc"});
  CHECK(drain_reason(r) == "railyard: plan, rail.1.link, rail.1.pfc");
}

TEST_CASE("drain_reason: the railyard: prefix and as many checks as fit in 128 bytes, then how many more") {
  std::vector<CheckResult> checks;
  for (int i = 0; i < 16; ++i) checks.push_back(check("rail." + std::to_string(i) + ".link", CheckStatus::fail));
  std::string reason = drain_reason(report_of(checks));
  CAPTURE(reason);
  CHECK(reason.size() <= kDrainReasonLimit);
  CHECK(reason.rfind("railyard: rail.0.link, rail.1.link, ", 0) == 0);
  CHECK(reason.ends_with(" more)"));
  // Every check named or counted.
  std::size_t named = 0;
  for (std::size_t at = reason.find(".link"); at != std::string::npos; at = reason.find(".link", at + 1)) ++named;
  std::size_t more = std::stoul(reason.substr(reason.rfind("(+") + 2));
  CHECK(named + more == 16);
  CHECK(drain_reason(report_of({})) == "railyard: self-test failed");
  CHECK(drain_reason(report_of({check("rail.0.mtu", CheckStatus::fail)})) == "railyard: rail.0.mtu");
}

TEST_CASE("nfd_features_text: the result, joined, the recipe, the rails and their RDMA devices as label values") {
  Report r = report_of({check("rail.0.mtu", CheckStatus::pass)});
  r.recipe = "hgx h100/8x400g";  // not a label value as it is
  r.plan = nlohmann::ordered_json::parse(R"({"rails": [{"rdma_device": "mlx5_0"}, {"rdma_device": "mlx5_1"}, {}]})");
  r.join = {{"joined", true}};
  CHECK(nfd_features_text(r) ==
        "# railyard-firstboot's self-test, for node-feature-discovery's local source (labels\n"
        "# feature.node.kubernetes.io/NAME); rewritten at every run.\n"
        "railyard-selftest=pass\n"
        "railyard-joined=true\n"
        "railyard-recipe=hgx_h100_8x400g\n"
        "railyard-rails=3\n"
        "railyard-rdma-devices=2\n"
        "railyard-rail-0-rdma=mlx5_0\n"
        "railyard-rail-1-rdma=mlx5_1\n");
  CHECK(nfd_features_text(r).find("railyard.io/") == std::string::npos);  // no LLDP heard: no unit

  // Every rail's leaf heard: the unit and each rail's leaf, as report topology's labels.
  r.lldp = nlohmann::ordered_json::parse(R"([
    {"rail": 1, "neighbor": {"system_name": "su7-leaf1", "port_id": "swp3"}},
    {"rail": 0, "neighbor": {"system_name": "su7-leaf0", "port_id": "swp3"}},
    {"rail": 2, "neighbor": {"system_name": "", "chassis_id": "0c:42:a1:00:00:02", "port_id": "swp3"}}])");
  // A chassis ID is no label value: no unit labels rather than mangled ones.
  std::string unit = nfd_features_text(r);
  CHECK(unit.find("railyard.io/") == std::string::npos);
  r.lldp[2]["neighbor"]["system_name"] = "su7-leaf2";
  unit = nfd_features_text(r);
  CHECK(unit.find("# The scalable unit its rails reach (nfd-master -extra-label-ns=railyard.io):\n"
                  "railyard.io/unit=su-su7-leaf0\nrailyard.io/rail0-leaf=su7-leaf0\nrailyard.io/rail1-leaf=su7-leaf1\n"
                  "railyard.io/rail2-leaf=su7-leaf2\n") != std::string::npos);
  // A rail unheard, or a node that failed: none.
  r.lldp[1]["neighbor"] = nullptr;
  CHECK(nfd_features_text(r).find("railyard.io/") == std::string::npos);
  r.lldp[1]["neighbor"] = {{"system_name", "su7-leaf1"}};
  Report failed = r;
  failed.checks[0].status = CheckStatus::fail;
  CHECK(nfd_features_text(failed).find("railyard.io/") == std::string::npos);

  Report bare = report_of({check("x", CheckStatus::fail)});
  std::string s = nfd_features_text(bare);
  CHECK(s.find("railyard-selftest=fail\nrailyard-joined=false\n") != std::string::npos);
  CHECK(s.find("railyard-rails=0\n") != std::string::npos);
}

TEST_CASE("prometheus_text: each rail's peer bandwidth and latency, for the probes that completed") {
  Report r = report_of({check("rail.0.peer_write", CheckStatus::pass)});
  r.peers = nlohmann::ordered_json::parse(R"([
    {"rail": 0, "reference": "198.18.0.100:18515", "completed": true, "gbps": 97.25, "latency_us": 3.5},
    {"rail": 1, "reference": "198.18.1.100:18515", "completed": false}])");
  std::string text = prometheus_text(r);
  CHECK(text.find("# TYPE railyard_rail_peer_bandwidth_gbps gauge\n"
                  "railyard_rail_peer_bandwidth_gbps{rail=\"0\",reference=\"198.18.0.100:18515\"} 97.25\n") !=
        std::string::npos);
  CHECK(text.find("railyard_rail_peer_latency_seconds{rail=\"0\",reference=\"198.18.0.100:18515\"} 3.5e-06\n") !=
        std::string::npos);
  CHECK(text.find("rail=\"1\"") == std::string::npos);  // nothing measured, nothing published
}
