// The fleet page (fleet_page.cc): self-contained (no script, stylesheet, image or font from
// elsewhere), one table row and one section with a rails picture per node, failing nodes
// first, everything escaped.
#include <doctest/doctest.h>

#include <string>

#include "builder/temp_dir.h"
#include "report/fleet_page.h"

using namespace railyard;

namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

struct Page {
  FleetSummary summary;
  std::vector<LoadedReport> nodes;
  std::string html;
};

Page page_of_goldens() {
  test::TempDir dir;
  for (const char* name : {"hgx-pass", "hgx-pfc-link", "gpu4-downtrained-nvmeof", "lab-soft-roce", "storage-problem"})
    dir.write(std::string(name) + ".json",
              test::read_all(std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/" + name + ".json"));
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  Page p;
  p.summary = summarize(*fleet);
  for (const auto& d : fleet->nodes) {
    auto r = parse_report(test::read_all(d.path));
    REQUIRE(r.ok());
    p.nodes.push_back(*r);
  }
  p.html = fleet_page(p.summary, p.nodes);
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
  Page p = page_of_goldens();
  p.nodes[0].report.node = "<b>evil</b>";
  p.nodes[0].report.checks[0].status = CheckStatus::fail;
  p.nodes[0].report.checks[0].observed = "x < y & \"z\"";
  std::string h = fleet_page(p.summary, p.nodes);
  CHECK(h.find("<b>evil</b>") == std::string::npos);
  CHECK(h.find("&lt;b&gt;evil&lt;/b&gt;") != std::string::npos);
  CHECK(h.find("x &lt; y &amp; &quot;z&quot;") != std::string::npos);
}
