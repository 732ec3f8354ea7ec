// `railyard report show` (builder/report/node_view.cc): each golden report's text against
// tests/report/golden/<name>.show.txt (UPDATE_GOLDEN=1 rewrites them: review the diff),
// failures before everything else, colour only when asked, and the JSON view.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "builder/temp_dir.h"
#include "report/node_view.h"

using namespace railyard;

namespace {

const std::string kGolden = std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/";

LoadedReport load(const std::string& name) {
  auto r = parse_report(test::read_all(kGolden + name + ".json"));
  REQUIRE(r.ok());
  return *r;
}

std::size_t at(const std::string& hay, const std::string& needle) {
  std::size_t p = hay.find(needle);
  REQUIRE_MESSAGE(p != std::string::npos, needle);
  return p;
}

}  // namespace

TEST_CASE("node_text: every golden report's text is as recorded") {
  bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kGolden)) {
    if (entry.path().extension() != ".json") continue;
    ++seen;
    std::string name = entry.path().stem().string();
    CAPTURE(name);
    std::string text = node_text(load(name), TextStyle(false));
    std::string expected_path = kGolden + name + ".show.txt";
    if (update) std::ofstream(expected_path, std::ios::binary | std::ios::trunc) << text;
    CHECK(text == test::read_all(expected_path));
  }
  CHECK(seen >= 7);
}

TEST_CASE("report node_text: failures (with expected, observed and a hint) before other results and phases") {
  std::string s = node_text(load("gpu8-nic4-no-gid"), TextStyle(false));
  CAPTURE(s);
  CHECK(s.rfind("g8-r003-n11  FAIL  recipe gpu8-nic4", 0) == 0);
  std::size_t failures = at(s, "\nFailures\n");
  std::size_t gid = at(s, "FAIL  rail.");
  CHECK(failures < gid);
  CHECK(at(s, "roce_v2_gid\n           expected  RoCE v2 IPv4 GID on ") > failures);
  CHECK(at(s, "observed  none\n") > failures);
  CHECK(at(s, "hint      no RoCE v2 GID for the rail address") > failures);
  CHECK(at(s, "pause_storm\n") > failures);
  CHECK(at(s, "\nPhases\n") > at(s, "hint      this NIC sends pause frames"));
  CHECK(s.find("\033[") == std::string::npos);
}

TEST_CASE("report node_text: a required unsupported check is a failure; a passing node lists no failures") {
  LoadedReport r = load("hgx-pass");
  std::string pass = node_text(r, TextStyle(false));
  CHECK(pass.find("Failures") == std::string::npos);
  CHECK(pass.find("  PASS  ") != std::string::npos);
  r.report.checks[5].status = CheckStatus::unsupported;
  r.report.checks[5].observed = "unsupported";
  r.passed = false;
  std::string s = node_text(r, TextStyle(false));
  CHECK(s.find("  UNSUPPORTED  " + r.report.checks[5].name() + " (required)\n") != std::string::npos);
}

TEST_CASE("report node_text: colour codes only when colour is on") {
  LoadedReport r = load("hgx-pfc-link");
  std::string plain = node_text(r, TextStyle(false));
  std::string colour = node_text(r, TextStyle(true));
  CHECK(plain.find('\033') == std::string::npos);
  CHECK(colour.find("\033[1;31mFAIL\033[0m") != std::string::npos);
  // The same text once the codes are stripped.
  std::string stripped;
  for (std::size_t i = 0; i < colour.size(); ++i) {
    if (colour[i] == '\033') {
      i = colour.find('m', i);
      continue;
    }
    stripped += colour[i];
  }
  CHECK(stripped == plain);
}

TEST_CASE("report node_json: counts, failures with kind and hint, problems, phases with results") {
  auto j = node_json(load("gpu4-downtrained-nvmeof"));
  CHECK(j["node"] == "g4-r002-n07");
  CHECK(j["result"] == "fail");
  CHECK(j["counts"]["fail"] == 3);
  CHECK(j["counts"]["pass"].get<int>() + j["counts"]["skip"].get<int>() + 3 == 150);  // 4 rails: 4 GPUDirect writes
  CHECK(j["counts"]["skip"] == 4);  // gpu.N.nvlink: an L40S has no NVLink
  REQUIRE(j["failures"].size() == 3);
  CHECK(j["failures"][0]["kind"] == "gpu.*.pcie_link");
  CHECK(j["failures"][0]["observed"] == "16.0 GT/s PCIe x8");
  CHECK(j["failures"][0]["hint"].get<std::string>().find("reseat") != std::string::npos);
  CHECK(j["failures"][1]["name"] == "nvmeof.0.connected");
  REQUIRE(j["phases"].size() == 4);
  CHECK(j["phases"][2]["phase"] == "apply");
  CHECK(j["phases"][2]["result"].get<std::string>().find("changed") != std::string::npos);
  CHECK(j["phases"][3]["result"] == "143 pass, 3 fail, 4 skip");

  auto p = node_json(load("storage-problem"));
  REQUIRE(p["problems"].size() == 1);
  CHECK(p["problems"][0]["hint"].get<std::string>().find("RDMA NICs are missing") != std::string::npos);
  CHECK(p["phases"][1]["result"] == "1 problem: nothing applied");
}

TEST_CASE("phase_summaries: what each phase came to, from the report's own data") {
  auto r = load("lab-soft-roce");
  auto phases = phase_summaries(r.report);
  REQUIRE(phases.size() == 4);
  CHECK(phases[0].result == "0 GPUs, 5 NICs, 4 RDMA devices, 2 NUMA nodes");
  CHECK(phases[1].result == "4 rails, 81 checks planned");
  CHECK(phases[3].result == "81 pass");  // the DCB stand-in answers what plain virtio cannot
}

TEST_CASE("report show: a report whose result contradicts its checks is flagged, in text and JSON") {
  LoadedReport r = load("hgx-pfc-link");
  r.passed = true;  // as a forged or broken file would say
  std::string text = node_text(r, TextStyle(false));
  at(text, "CONTRADICTS ITSELF  'result' is \"pass\" but ");
  at(text, "; the checks are what counts");
  CHECK(node_json(r)["contradiction"].get<std::string>().rfind("'result' is \"pass\" but ", 0) == 0);
  CHECK(node_json(load("hgx-pfc-link"))["contradiction"].is_null());
}

TEST_CASE("report show: terminal control characters in a report's fields are escaped") {
  LoadedReport r = load("hgx-pfc-link");
  r.report.node = "n1\x1b]0;owned\x07";
  for (auto& c : r.report.checks)
    if (c.failing()) c.observed = "x\r\x1b[2Jy";
  std::string text = node_text(r, TextStyle(false));
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\r') == std::string::npos);
  at(text, "n1\\x1b]0;owned\\x07");
  at(text, "observed  x\\x0d\\x1b[2Jy");
}

TEST_CASE("report show: phase names and the check names of a contradiction are escaped too") {
  LoadedReport r = load("hgx-pfc-link");
  r.passed = true;
  for (auto& c : r.report.checks)
    if (c.failing()) c.id = CheckId::parse("x\x1b]0;owned\x07\u202e");
  r.report.phases[0].phase = "disc\x1b[2Jover\u2028";
  std::string text = node_text(r, TextStyle(false));
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("\u202e") == std::string::npos);
  CHECK(text.find("\u2028") == std::string::npos);
  at(text, "x\\x1b]0;owned\\x07\\u202e (fail)");
  at(text, "disc\\x1b[2Jover\\u2028");
}

TEST_CASE("report show: one verdict: a report that contradicts itself is FAIL, in text and JSON") {
  LoadedReport r = load("hgx-pfc-link");
  r.passed = true;  // 'result' says pass; seven checks fail
  CHECK_FALSE(r.verdict());
  std::string text = node_text(r, TextStyle(false));
  CHECK(text.rfind("hgx-r001-n02  FAIL  ", 0) == 0);
  CHECK(node_json(r)["result"] == "fail");
  LoadedReport pass = load("hgx-pass");
  CHECK(pass.verdict());
  CHECK(node_json(pass)["result"] == "pass");
}

TEST_CASE("report show: the driver bundles' modules as the node's kernel had them") {
  LoadedReport r = load("hgx-pass");
  r.report.modules = nlohmann::ordered_json::parse(R"([
    {"name": "labofed", "bundle": "labofed-1.1", "bundle_version": "1.1", "built": "1.1", "loaded": true,
     "version": "1.1", "srcversion": "0F1E2D3C4B5A69788796A5B"},
    {"name": "mlx5_core", "bundle": "debian12-inbox", "bundle_version": "44.0-2", "built": null, "loaded": false,
     "version": null, "srcversion": null},
    {"name": "evil", "bundle": "x\u001b[2J", "bundle_version": "1", "built": null, "loaded": true, "version": null,
     "srcversion": null}])");
  std::string text = node_text(r, TextStyle(false));
  std::size_t section = at(text, "\nDriver modules\n");
  CHECK(at(text,
           "  labofed             1.1           loaded      labofed-1.1, DKMS 1.1, srcversion "
           "0F1E2D3C4B5A69788796A5B\n") > section);
  CHECK(at(text, "  mlx5_core                         not loaded  debian12-inbox\n") > section);
  CHECK(text.find("\x1b[2J") == std::string::npos);
  r.report.modules = nlohmann::ordered_json::parse(R"([{"error": "drivers.json: not a drivers record"}])");
  CHECK(node_text(r, TextStyle(false)).find("the build's record of the bundles: drivers.json: not a drivers record") !=
        std::string::npos);
}

TEST_CASE("report show: a rail's far end says what else was heard on it, and a flood") {
  LoadedReport r = load("hgx-pass");
  r.report.lldp = nlohmann::ordered_json::parse(R"([
    {"rail": 0, "ifname": "ens1", "neighbor": {"system_name": "leaf0", "port_id": "swp1"},
     "other_neighbors": [{"system_name": "rogue\u202e", "port_id": "eth0"}], "flood_per_s": 4987,
     "expected": {"system": "leaf0", "port": "swp1"}}])");
  std::string text = node_text(r, TextStyle(false));
  at(text,
     "rail 0  ens1 → leaf0 port swp1; also heard rogue\\u202e port eth0; FLOODED, 4987 frames a second; "
     "expected leaf0 port swp1\n");
}

TEST_CASE("report peer_lines: each rail's probe across its leaf, its figures and the counters that moved") {
  Report r;
  r.peers = nlohmann::ordered_json::parse(R"([
    {"rail": 0, "reference": "198.18.0.100:18515", "completed": true, "match": true, "gbps": 12.5,
     "latency_us": 8.04, "violations": [], "congestion": [{"name": "np_cnp_sent", "delta": 3}]},
    {"rail": 1, "reference": "198.18.1.100:18515", "completed": true, "match": true, "gbps": 97.25,
     "latency_us": 3.5, "violations": [{"name": "packet_seq_err", "delta": 12}], "congestion": []},
    {"rail": 2, "reference": "198.18.2.100:18515", "completed": false, "tried": ["attempt 1: x", "attempt 2: y"]}])");
  CHECK(peer_lines(r) ==
        std::vector<std::string>{"rail 0  → 198.18.0.100:18515  12.50 Gb/s, 8.0 µs, np_cnp_sent +3",
                                 "rail 1  → 198.18.1.100:18515  97.25 Gb/s, 3.5 µs, packet_seq_err +12",
                                 "rail 2  → 198.18.2.100:18515  no exchange (2 attempts failed first)"});
  r.peers = nullptr;
  CHECK(peer_lines(r).empty());
}
