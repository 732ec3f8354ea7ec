// ACS (objects/acs.cc): the control register cleared on the ports between GPU and NIC, and
// verified.
#include <doctest/doctest.h>

#include "support/host_rig.h"
#include "support/verify_node.h"

namespace {

// 4 KiB of config space with an extended capability chain: AER at 0x100, ACS at 0x148.
std::vector<std::uint8_t> config_with_acs(std::uint16_t ctrl) {
  std::vector<std::uint8_t> c(4096, 0);
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) c[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  put32(0x100, 0x0001 | (1u << 16) | (0x148u << 20));  // AER, next 0x148
  put32(0x148, 0x000d | (1u << 16) | (0u << 20));      // ACS, last
  c[0x14e] = static_cast<std::uint8_t>(ctrl & 0xff);
  c[0x14f] = static_cast<std::uint8_t>(ctrl >> 8);
  return c;
}

}  // namespace

TEST_CASE("acs: control register cleared where set; ports without ACS are left alone") {
  Rig rig;
  Plan p;
  p.acs_disable = {"0000:17:00.0", "0000:18:00.0", "0000:19:00.0"};
  rig.host.config["0000:17:00.0"] = config_with_acs(0x001d);
  rig.host.config["0000:18:00.0"] = config_with_acs(0);
  rig.host.config["0000:19:00.0"] = std::vector<std::uint8_t>(4096, 0);
  auto c = rig.run(apply_acs, p);
  CHECK(outcomes(c) ==
        "PCIe port 0000:17:00.0: ACS: changed\nPCIe port 0000:18:00.0: ACS: unchanged\n"
        "PCIe port 0000:19:00.0: ACS: unchanged\n");
  CHECK(c[0].before == "0x001d");
  CHECK(rig.host.config["0000:17:00.0"][0x14e] == 0);
  CHECK(c[2].before == "no ACS capability");
  CHECK(all_unchanged(rig.run(apply_acs, p)));
  rig.host.config["0000:17:00.0"].resize(64);  // not root: only the standard header is readable
  CHECK(rig.run(apply_acs, p)[0].outcome == ChangeOutcome::failed);
}

TEST_CASE("gpudirect.acs.BDF: one check per bridge between a GPU and its NIC, each with ACS redirect off") {
  Node n;
  std::vector<std::string> acs;
  for (const auto& c : n.plan.checks)
    if (c.id.kind == CheckKind::gpudirect_acs) acs.push_back(c.id.subject);
  CHECK(acs == n.plan.acs_disable);
  CHECK(acs == std::vector<std::string>{"0000:11:00.0", "0000:11:01.0", "0000:31:00.0", "0000:31:01.0", "0000:51:00.0",
                                        "0000:51:01.0"});

  auto r = n.check("gpudirect.acs.0000:31:01.0");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "ACS P2P redirect off");
  CHECK(r.observed == "0x0000");

  n.host.config["0000:31:01.0"] = config_space(true, 0x001d);
  r = n.check("gpudirect.acs.0000:31:01.0");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "0x001d");
  CHECK(contains(r.detail, "redirected to the root complex"));

  n.host.config["0000:31:01.0"] = config_space(false);  // a bridge without ACS
  r = n.check("gpudirect.acs.0000:31:01.0");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "no ACS capability");

  n.host.config.erase("0000:31:01.0");  // config space unreadable (ENODEV)
  r = n.check("gpudirect.acs.0000:31:01.0");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "error");
}
