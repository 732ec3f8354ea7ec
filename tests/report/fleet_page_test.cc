// The fleet page (fleet_page.cc): self-contained (no script, stylesheet, image or font from
// elsewhere), one table row and one section with a rails picture per node, failing nodes
// first, everything escaped.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "builder/temp_dir.h"
#include "report/fleet_page.h"
#include "report/fleet_topology.h"

using namespace railyard;

namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

struct Page {
  FleetSummary summary;
  std::vector<ReportDigest> nodes;
  std::vector<UnreadableReport> unreadable;
  std::string html;
};

Outcome<LoadedReport> load_file(const ReportDigest& d) { return parse_report(test::read_all(d.path)); }

Page page_of_goldens(const ReportLoader& load = load_file) {
  test::TempDir dir;
  for (const char* name : {"hgx-pass", "hgx-pfc-link", "gpu4-downtrained-nvmeof", "lab-soft-roce", "storage-problem"})
    dir.write(std::string(name) + ".json",
              test::read_all(std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/" + name + ".json"));
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  Page p;
  p.summary = summarize(*fleet);
  p.nodes = fleet->nodes;
  p.html = fleet_page(p.summary, p.nodes, fleet_topology(*fleet), load, p.unreadable);
  return p;
}

}  // namespace

TEST_CASE("report fleet_page: a table row, a section and a rails picture per node") {
  Page p = page_of_goldens();
  const std::string& h = p.html;
  CHECK(h.rfind("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">", 0) == 0);
  CHECK(h.find("<title>railyard fleet: 5 nodes, 3 failing</title>") != std::string::npos);
  CHECK(count(h, "<tr class=\"node-row ") == 5);
  CHECK(count(h, "<tr class=\"node-row fail\">") == 3);
  CHECK(count(h, "<section class=\"node\"") == 5);
  CHECK(count(h, "<svg class=\"rails\"") == 5);
  CHECK(count(h, "<g class=\"rail\"") == 8 + 8 + 4 + 4 + 3);
  // Failing nodes first in the table.
  CHECK(h.find("node-row fail") < h.find("node-row pass"));
  // Every link in the table leads to a section.
  CHECK(h.find("<a href=\"#node-hgx-r001-n02\">") != std::string::npos);
  CHECK(h.find("<section class=\"node\" id=\"node-hgx-r001-n02\">") != std::string::npos);
  CHECK(h.find("RDMA NICs are missing") != std::string::npos);
  CHECK(h.find("class=\"failures\"") != std::string::npos);
  CHECK(h.substr(h.size() - 15) == "</body></html>\n");
}

TEST_CASE(
    "report fleet_page: the first screen names each failed node with its first root cause, then every check kind") {
  Page p = page_of_goldens();
  const std::string& h = p.html;
  auto failed = h.find("<h2>Failed nodes</h2>");
  auto kinds = h.find("<h2>Checks by kind</h2>");
  auto symptoms = h.find("<h2>Failures by check</h2>");
  REQUIRE(failed != std::string::npos);
  REQUIRE(kinds != std::string::npos);
  CHECK(failed < kinds);
  CHECK(kinds < symptoms);
  std::string first = h.substr(failed, kinds - failed);
  CAPTURE(first);
  CHECK(count(first, "<li>") == 3);
  // hgx-pfc-link: rail 7's link is down; its speed, port and RDMA test follow from it, so
  // the link leads, before rail 5's PFC and not the speed.
  CHECK(first.find("<a href=\"#node-hgx-r001-n02\">hgx-r001-n02</a>: rail.7.link fail: observed down, expected up "
                   "(and 1 more)") != std::string::npos);
  CHECK(first.find("rail.7.speed") == std::string::npos);
  CHECK(first.find("reseat or swap the cable") != std::string::npos);
  // A planning problem comes before any check.
  CHECK(first.find(": plan: ") != std::string::npos);
  // Every kind with its counts; a kind short of proof says how.
  std::string table = h.substr(kinds, symptoms - kinds);
  CHECK(table.find("<tr class=\"fail\"><td>rail.*.link</td>") != std::string::npos);
  CHECK(table.find("<tr class=\"verified\"><td>gpu.count</td>") != std::string::npos);
}

TEST_CASE("report fleet_page: self-contained: nothing is loaded from anywhere") {
  std::string h = page_of_goldens().html;
  for (const char* outside : {"<script", "<link", "<img", "@import", "url(", "src=", "//fonts", "https://"}) {
    CAPTURE(outside);
    CHECK(h.find(outside) == std::string::npos);
  }
  // The only URL is the SVG namespace name, which is never fetched.
  CHECK(count(h, "http://") == count(h, "xmlns=\"http://www.w3.org/2000/svg\""));
}

TEST_CASE("report fleet_page: names and messages are escaped") {
  Page p = page_of_goldens([](const ReportDigest& d) {
    auto r = load_file(d);
    if (r.ok() && r->report.node == "hgx-r001-n01") {
      r->report.node = "<b>evil</b>";
      r->report.checks[0].status = CheckStatus::fail;
      r->report.checks[0].observed = "x < y & \"z\"";
    }
    return r;
  });
  CHECK(p.html.find("<b>evil</b>") == std::string::npos);
  CHECK(p.html.find("&lt;b&gt;evil&lt;/b&gt;") != std::string::npos);
  CHECK(p.html.find("x &lt; y &amp; &quot;z&quot;") != std::string::npos);
}

TEST_CASE("report fleet_page: a report that cannot be loaded for its section is named, and returned") {
  Page p = page_of_goldens([](const ReportDigest& d) {
    if (d.node == "lab-node01") return Outcome<LoadedReport>::fail(d.path + ": vanished");
    return load_file(d);
  });
  REQUIRE(p.unreadable.size() == 1);
  CHECK(p.unreadable[0].error.find(": vanished") != std::string::npos);
  CHECK(p.html.find("<span class=\"fail\">unreadable</span>") != std::string::npos);
  CHECK(count(p.html, "<section class=\"node\"") == 5);
  CHECK(count(p.html, "<svg class=\"rails\"") == 4);
}

TEST_CASE("report fleet_page: the fabric view, a unit per set of leaves, the nodes left out named first") {
  // The goldens' nodes reach leaf-rN on their rails, each on a port of its own but the two
  // HGX nodes; the lab node heard its leaves on four rails, the HGX nodes on eight.
  Page p = page_of_goldens();
  const std::string& h = p.html;
  REQUIRE(h.find("<h2>Fabric</h2>") != std::string::npos);
  CHECK(h.find("<h2>Fabric</h2>") < h.find("<h2>Nodes</h2>"));
  CHECK(h.find("<ul class=\"failed left-out\">") < h.find("<div class=\"units\">"));
  // One unit: the passing HGX node and the lab node, whose four rails reach its first four
  // leaves (another SKU of the unit: its other four cells grey).
  REQUIRE(count(h, "<table class=\"unit\"") == 1);
  CHECK(h.find("<caption>su-leaf-r0 · 2 nodes</caption>") != std::string::npos);
  CHECK(h.find("<th>leaf-r0</th><th>leaf-r1</th>") != std::string::npos);
  auto row = [&](const std::string& node) {
    auto at = h.find("<tr><th><a href=\"#node-" + node + "\">");
    return at == std::string::npos ? std::string() : h.substr(at, h.find("</tr>", at) - at);
  };
  CHECK(count(row("hgx-r001-n01"), "<td class=\"p\">") == 8);
  CHECK(count(row("lab-node01"), "<td class=\"p\">") == 4);
  CHECK(count(row("lab-node01"), "<td class=\"n\" title=\"no rail ") == 4);
  // The nodes left out come first, each named with why and its likely unit: a node that never
  // passed, one whose rail heard nothing, one with no rails.
  const auto left = h.substr(h.find("<ul class=\"failed left-out\">"),
                             h.find("<div class=\"units\">") - h.find("<ul class=\"failed left-out\">"));
  CAPTURE(left);
  CHECK(count(left, "<li>") == 3);
  CHECK(left.find("hgx-r001-n02</a>: rail 7 heard no LLDP neighbour (and it has no passing report) "
                  "<span class=\"hint\">likely su-leaf-r0</span>") != std::string::npos);
  CHECK(left.find("stor-r005-n03</a>: its report names no rails</li>") != std::string::npos);
}

TEST_CASE("report fleet_page: past 256 nodes only the failing and the left-out are drawn, every link still lands") {
  // 300 copies of the passing HGX report, on leaf ports of their own, and one failing report.
  test::TempDir dir;
  const std::string pass = test::read_all(std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/hgx-pass.json");
  for (int i = 0; i < 300; ++i) {
    auto j = nlohmann::ordered_json::parse(pass);
    j["node"] = "hgx-n" + std::to_string(1000 + i);
    for (auto& rail : j["lldp"])
      if (rail["neighbor"].is_object()) rail["neighbor"]["port_id"] = "swp" + std::to_string(i);
    if (i == 7) j["lldp"][3]["neighbor"] = nullptr;  // left out: a rail unheard
    dir.write("n" + std::to_string(i) + ".json", j.dump());
  }
  dir.write("fail.json", test::read_all(std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/hgx-pfc-link.json"));
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  REQUIRE(fleet->nodes.size() == 301);
  std::vector<std::string> loaded;
  std::vector<UnreadableReport> unreadable;
  std::string h = fleet_page(
      summarize(*fleet), fleet->nodes, fleet_topology(*fleet),
      [&](const ReportDigest& d) {
        loaded.push_back(d.node);
        return load_file(d);
      },
      unreadable);
  // The failing node and the one left out are loaded and drawn; the others are not loaded.
  std::sort(loaded.begin(), loaded.end());
  CHECK(loaded == std::vector<std::string>{"hgx-n1007", "hgx-r001-n02"});
  CHECK(count(h, "<svg class=\"rails\"") == 2);
  CHECK(count(h, "<section class=\"node\"") == 301);
  CHECK(count(h, " · not drawn in a fleet of 301 nodes: <code>railyard report show ") == 299);
  CHECK(h.find("In a fleet of more than 256 nodes only the failing nodes and those left out of the topology are "
               "drawn.") != std::string::npos);
}
