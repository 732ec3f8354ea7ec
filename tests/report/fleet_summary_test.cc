// The fleet (fleet.cc, fleet_summary.cc): every report under a directory read in parallel,
// the newest report of each node, unreadable files listed, and the summary's groupings.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <string>

#include "builder/temp_dir.h"
#include "report/fleet_summary.h"

using namespace railyard;

namespace {

const std::string kGolden = std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/";

std::string golden(const std::string& name) { return test::read_all(kGolden + name + ".json"); }

// A report of `node` with one failing check (or none), at `started_at`.
std::string small(const std::string& node, const std::string& started_at, const std::string& failing,
                  const std::string& recipe = "r1", const std::string& kernel = "6.8.0-49-generic",
                  double verify_ms = 1000) {
  std::string checks = R"({"name":"rail.0.mtu","status":"pass","expected":"9000","observed":"9000","detail":""})";
  if (!failing.empty())
    checks += R"(,{"name":")" + failing + R"(","status":"fail","expected":"x","observed":"y","detail":""})";
  return R"({"schema":1,"node":")" + node + R"(","recipe":")" + recipe + R"(","result":")" +
         (failing.empty() ? "pass" : "fail") + R"(","started_at":")" + started_at + R"(","host":{"hostname":")" + node +
         R"(","kernel":")" + kernel + R"(","boot_id":"","drivers":["doca-ofed-2.10.0","cuda-13.0"]},"checks":[)" +
         checks + R"(],"phases":[{"phase":"discover","ms":100},{"phase":"verify","ms":)" + std::to_string(verify_ms) +
         "}]}";
}

// A passing report of `node` whose checks are `checks` (name, status), none of them required.
std::string with_checks(const std::string& node, const std::vector<std::pair<std::string, std::string>>& checks,
                        const std::string& result = "pass", bool required = false) {
  std::string list;
  for (const auto& [name, status] : checks)
    list += std::string(list.empty() ? "" : ",") + R"({"name":")" + name + R"(","status":")" + status +
            R"(","required":)" + (required ? "true" : "false") + R"(,"expected":"x","observed":"y","detail":""})";
  return R"({"schema":1,"node":")" + node + R"(","recipe":"r1","result":")" + result +
         R"(","started_at":"2026-03-10T08:00:00Z","host":{"hostname":")" + node +
         R"(","kernel":"k","boot_id":"","drivers":[]},)" + R"("checks":[)" + list + "]}";
}

}  // namespace

TEST_CASE("report summarize: a fleet that passes without proving lossless says so, per check kind") {
  test::TempDir dir;
  // Seven green nodes whose driver cannot set PFC, trust or ECN (Soft-RoCE, upstream mlx5).
  for (int i = 0; i < 7; ++i) {
    std::string n = "n" + std::to_string(i);
    dir.write(n + ".json", with_checks(n, {{"rail.0.link", "pass"},
                                           {"rail.0.pfc", "unsupported"},
                                           {"rail.1.pfc", i < 2 ? "pass" : "unsupported"},
                                           {"rail.0.ecn", i == 6 ? "skip" : "pass"},
                                           {"rail.0.mtu", i == 3 ? "warn" : "pass"}}));
  }
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  FleetSummary s = summarize(*fleet);
  CHECK(s.passed == 7);
  CHECK(s.passed_unverified == 7);
  REQUIRE(s.checks.size() == 4);  // in the order of kinds: link, mtu, pfc, ecn
  CHECK(s.checks[0].check == "rail.*.link");
  CHECK(s.checks[0].verified() == 7);
  CHECK(s.checks[1].check == "rail.*.mtu");
  CHECK(s.checks[1].warn == 1);
  CHECK(s.checks[2].check == "rail.*.pfc");
  CHECK(s.checks[2].nodes == 7);  // each node once, by its worst rail
  CHECK(s.checks[2].unsupported == 7);
  CHECK(s.checks[2].pass == 0);
  CHECK(tally_text(s.checks[2]) == "verified on 0 of 7 nodes, unsupported by the driver on 7");
  CHECK(tally_text(s.checks[3]) == "verified on 6 of 7 nodes, skipped on 1");
  CHECK(tally_text(s.checks[1]) == "verified on 7 of 7 nodes (1 with a warning)");

  std::string text = to_text(s, TextStyle(false));
  CAPTURE(text);
  CHECK(
      text.find(
          "  pass 7 (100.0%)   fail 0 (0.0%)\n  7 of the 7 passing left a check unverified (unsupported or skipped)") !=
      std::string::npos);
  CHECK(text.find("\nnot verified everywhere\n  rail.*.pfc: verified on 0 of 7 nodes, unsupported by the driver on 7\n"
                  "  rail.*.ecn: verified on 6 of 7 nodes, skipped on 1\n") != std::string::npos);
  CHECK(text.find("rail.*.link:") == std::string::npos);

  auto j = to_json(s);
  CHECK(j["pass_unverified"] == 7);
  CHECK(j["checks"][2] == nlohmann::ordered_json{{"check", "rail.*.pfc"},
                                                 {"nodes", 7},
                                                 {"verified", 0},
                                                 {"pass", 0},
                                                 {"warn", 0},
                                                 {"fail", 0},
                                                 {"unsupported", 7},
                                                 {"skip", 0}});
}

TEST_CASE("report summarize: apply's outcomes and unknown names leave no planned check unverified") {
  test::TempDir dir;
  // Every planned check passed; apply could not set PFC (its own outcome, not a check of
  // the plan) and a newer agent sent a kind this version does not know.
  dir.write("a.json",
            with_checks("a", {{"rail.0.link", "pass"}, {"apply.pfc", "unsupported"}, {"rail.0.future", "skip"}}));
  dir.write("b.json", with_checks("b", {{"rail.0.link", "pass"}, {"rail.0.pfc", "unsupported"}}));
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  FleetSummary s = summarize(*fleet);
  CHECK(s.passed == 2);
  CHECK(s.passed_unverified == 1);  // b only
}

TEST_CASE(
    "report summarize: every kind verified everywhere is one line; a report that contradicts itself counts as fail") {
  test::TempDir dir;
  dir.write("a.json", with_checks("a", {{"rail.0.pfc", "pass"}, {"gpu.count", "pass"}}));
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  CHECK(to_text(summarize(*fleet), TextStyle(false))
            .find("  every check verified on every node that has it (2 kinds)\n") != std::string::npos);
  // Placed by hand (the receiver refuses it): "pass" with a required check failing.
  dir.write("b.json", with_checks("b", {{"rail.0.pfc", "fail"}}, "pass", true));
  fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  FleetSummary s = summarize(*fleet);
  CHECK(s.passed == 1);
  CHECK(s.contradictory == std::vector<std::string>{"b"});
  std::string text = to_text(s, TextStyle(false));
  CHECK(text.find("  1 report contradicts itself (counted as fail): b\n") != std::string::npos);
  CHECK(to_json(s)["contradictory"] == nlohmann::ordered_json::array({"b"}));
  CHECK(to_json(s)["fail"] == 1);
}

TEST_CASE("read_fleet: the newest report per node; earlier boots counted; hidden files skipped") {
  test::TempDir dir;
  dir.write("n1/boot-a.json", small("n1", "2026-03-10T08:00:00Z", "rail.0.pfc"));
  dir.write("n1/boot-b.json", small("n1", "2026-03-10T09:00:00Z", ""));  // rebooted, fixed
  dir.write("n2/boot-c.json", small("n2", "2026-03-10T08:30:00Z", "rail.1.link"));
  dir.write("flat.json", small("n3", "2026-03-10T07:00:00Z", ""));
  dir.write("n2/.boot-d.json.XXXXXX", "half a rep");  // a receiver's temporary file
  dir.write("n2/notes.txt", "not a report");
  dir.write(".hidden/x.json", "{");

  for (unsigned threads : {1u, 2u, 8u}) {
    CAPTURE(threads);
    auto fleet = read_fleet(dir.path(), threads);
    REQUIRE(fleet.ok());
    CHECK(fleet->reports == 4);
    REQUIRE(fleet->nodes.size() == 3);
    CHECK(fleet->nodes[0].node == "n1");
    CHECK(fleet->nodes[0].passed);
    CHECK(fleet->nodes[0].started_at == "2026-03-10T09:00:00Z");
    CHECK(fleet->nodes[1].node == "n2");
    CHECK_FALSE(fleet->nodes[1].passed);
    CHECK(fleet->nodes[2].node == "n3");
    CHECK(fleet->unreadable.empty());
  }
}

TEST_CASE("read_fleet: the latest report is the one the receiver took last, whatever the node claims") {
  test::TempDir dir;
  // boot-a claims a start a year later than boot-b, but the receiver took boot-b after it.
  dir.write("n1/boot-a.json", small("n1", "2027-03-10T08:00:00Z", "rail.0.pfc"));
  dir.write("n1/boot-a.received", "2026-03-10T08:05:00Z\n");
  dir.write("n1/boot-b.json", small("n1", "2026-03-10T09:00:00Z", ""));
  dir.write("n1/boot-b.received", "2026-03-10T09:05:00Z\n");
  // Without a record (a copy made by hand, a receiver killed between the two writes), the
  // file's modification time.
  dir.write("n2/boot-c.json", small("n2", "2027-01-01T00:00:00Z", "rail.1.link"));
  dir.write("n2/boot-d.json", small("n2", "2026-01-01T00:00:00Z", ""));
  struct timespec older[2] = {{1773100000, 0}, {1773100000, 0}}, later[2] = {{1773200000, 0}, {1773200000, 0}};
  REQUIRE(::utimensat(AT_FDCWD, (dir / "n2/boot-c.json").c_str(), older, 0) == 0);
  REQUIRE(::utimensat(AT_FDCWD, (dir / "n2/boot-d.json").c_str(), later, 0) == 0);
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  CHECK(fleet->reports == 4);
  REQUIRE(fleet->nodes.size() == 2);
  CHECK(fleet->nodes[0].path == dir / "n1/boot-b.json");
  CHECK(fleet->nodes[0].received_at == 1773133500);
  CHECK(fleet->nodes[0].received_recorded);
  CHECK(fleet->nodes[1].path == dir / "n2/boot-d.json");
  CHECK(fleet->nodes[1].received_at == 1773200000);
  CHECK_FALSE(fleet->nodes[1].received_recorded);
}

TEST_CASE("read_fleet: unreadable reports are listed with the reason; the rest still counted") {
  test::TempDir dir;
  dir.write("good.json", small("n1", "2026-03-10T08:00:00Z", ""));
  dir.write("bad/truncated.json", small("n2", "2026-03-10T08:00:00Z", "").substr(0, 60));
  dir.write("bad/other.json", R"({"hello": "world"})");
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  CHECK(fleet->nodes.size() == 1);
  REQUIRE(fleet->unreadable.size() == 2);
  CHECK(fleet->unreadable[0].path == dir / "bad/other.json");
  CHECK(fleet->unreadable[0].error == "not a railyard report: no 'schema'");
  CHECK(fleet->unreadable[1].path == dir / "bad/truncated.json");
  CHECK(fleet->unreadable[1].error ==
        "line 1, column 61: invalid string: missing closing quote; expected string literal");

  auto missing = read_fleet(dir / "nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error() == dir / "nope" + ": not a directory");
}

TEST_CASE("report summarize: pass/fail, failures by check kind, groups, slowest") {
  test::TempDir dir;
  dir.write("a.json", small("a", "2026-03-10T08:00:00Z", "rail.0.pfc", "hgx", "6.8.0-49-generic", 5000));
  dir.write("b.json", small("b", "2026-03-10T08:00:00Z", "rail.3.pfc", "hgx", "6.8.0-45-generic", 90000));
  dir.write("c.json", small("c", "2026-03-10T08:00:00Z", "gpudirect.acs.0000:19:00.0", "g4", "6.8.0-49-generic", 2000));
  dir.write("d.json", small("d", "2026-03-10T08:00:00Z", "", "g4", "6.8.0-49-generic", 70000));
  dir.write("e.json", small("e", "2026-03-10T08:00:00Z", "", "hgx", "6.8.0-49-generic", 1000));
  dir.write("storage-problem.json", golden("storage-problem"));
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  FleetSummary s = summarize(*fleet);
  CHECK(s.nodes == 6);
  CHECK(s.reports == 6);
  CHECK(s.passed == 2);
  REQUIRE(s.failures.size() == 3);
  CHECK(s.failures[0].kind == "rail.*.pfc");
  CHECK(s.failures[0].nodes == 2);
  CHECK(s.failures[0].examples == std::vector<std::string>{"a", "b"});
  CHECK(s.failures[1].kind == "(plan)");
  CHECK(s.failures[2].kind == "gpudirect.acs.*");

  REQUIRE(s.by_recipe.size() == 3);
  CHECK(s.by_recipe[0].name == "hgx");
  CHECK(s.by_recipe[0].nodes == 3);
  CHECK(s.by_recipe[0].passed == 1);
  CHECK(s.by_recipe[0].failed() == 2);
  REQUIRE(s.by_kernel.size() == 2);
  CHECK(s.by_kernel[0].name == "6.8.0-49-generic");
  CHECK(s.by_kernel[0].nodes == 5);
  REQUIRE(s.by_driver_release.size() == 2);
  CHECK(s.by_driver_release[0].name == "doca-ofed-2.10.0 + cuda-13.0");
  CHECK(s.by_driver_release[1].name == "doca-ofed-2.10.0");

  REQUIRE(s.slowest.size() == 6);
  CHECK(s.slowest[0].node == "b");
  CHECK(s.slowest[0].total_ms == 90100);
  CHECK(s.slowest[1].node == "d");

  std::string text = to_text(s, TextStyle(false));
  CAPTURE(text);
  CHECK(text.find(": 6 nodes (6 reports)\n") != std::string::npos);
  CHECK(text.find("  pass 2 (33.3%)   fail 4 (66.7%)\n") != std::string::npos);
  CHECK(text.find("  rail.*.pfc             2       2  a, b\n") != std::string::npos);
  CHECK(text.find("  b                    1 min 30 s   discover 100 ms, verify 1 min 30 s\n") != std::string::npos);

  auto j = to_json(s);
  CHECK(j["nodes"] == 6);
  CHECK(j["pass"] == 2);
  CHECK(j["fail"] == 4);
  CHECK(j["failures_by_check"][0]["check"] == "rail.*.pfc");
  CHECK(j["by_recipe"][0] == nlohmann::ordered_json{{"name", "hgx"}, {"nodes", 3}, {"pass", 1}, {"fail", 2}});
  CHECK(j["slowest"][0]["node"] == "b");
  CHECK(j["unreadable"].empty());
}

TEST_CASE("report summarize: an empty directory is an empty fleet") {
  test::TempDir dir;
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  FleetSummary s = summarize(*fleet);
  CHECK(s.nodes == 0);
  CHECK(to_text(s, TextStyle(false)).find("0 nodes (0 reports)") != std::string::npos);
}

TEST_CASE("report summary: check and phase names a report chose reach the terminal escaped") {
  test::TempDir dir;
  std::string evil = small("n1", "2026-03-10T08:00:00Z", "\\u001b]0;owned\\u0007\\u202e");
  std::size_t phase = evil.find("\"phase\":\"discover\"");
  REQUIRE(phase != std::string::npos);
  evil.replace(phase, 18, "\"phase\":\"disc\\u001b[2J\\u2028\"");
  dir.write("n1.json", evil);
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  REQUIRE(fleet->unreadable.empty());
  std::string text = to_text(summarize(*fleet), TextStyle(false));
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("\u202e") == std::string::npos);
  CHECK(text.find("\u2028") == std::string::npos);
  CHECK(text.find("\\x1b]0;owned\\x07\\u202e") != std::string::npos);  // failures by check
  CHECK(text.find("disc\\x1b[2J\\u2028 ") != std::string::npos);       // slowest first boots
}

TEST_CASE("read_fleet: one report with a number no double holds is listed, and the rest summarised") {
  test::TempDir dir;
  dir.write("n1.json", small("n1", "2026-03-10T08:00:00Z", ""));
  std::string huge = small("n2", "2026-03-10T08:00:00Z", "");
  huge.replace(huge.find("\"schema\":1"), 10, "\"schema\":1e999");
  dir.write("n2.json", huge);
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  CHECK(fleet->nodes.size() == 1);
  REQUIRE(fleet->unreadable.size() == 1);
  CHECK(fleet->unreadable[0].error == "line 1, column 11: number out of range (no double holds it)");
}
