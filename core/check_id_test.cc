#include <doctest/doctest.h>

#include "check_id.h"

using namespace railyard;

TEST_CASE("check ids: each kind renders today's name and parses back to itself") {
  const CheckId ids[] = {
      CheckId::node(CheckKind::gpu_count),
      CheckId::node(CheckKind::gpu_model),
      CheckId::gpu(CheckKind::gpu_pcie_link, 7),
      CheckId::node(CheckKind::rails_count),
      CheckId::rail(CheckKind::rail_pfc, 3),
      CheckId::rail(CheckKind::rail_no_default_route, 12),
      CheckId::rail(CheckKind::rail_pause_storm, 0),
      CheckId::node(CheckKind::rails_cross_rdma_write),
      CheckId::nvmeof(CheckKind::nvmeof_connected, 1),
      CheckId::nvmeof(CheckKind::nvmeof_namespace_read, 0),
      CheckId::node(CheckKind::gpudirect_peermem),
      CheckId::acs("0000:17:01.0"),
      CheckId::apply("rail 3 (ens3f0np0): MTU"),
  };
  const char* names[] = {"gpu.count",
                         "gpu.model",
                         "gpu.7.pcie_link",
                         "rails.count",
                         "rail.3.pfc",
                         "rail.12.no_default_route",
                         "rail.0.pause_storm",
                         "rails.cross_rdma_write",
                         "nvmeof.1.connected",
                         "nvmeof.0.namespace_read",
                         "gpudirect.peermem",
                         "gpudirect.acs.0000:17:01.0",
                         "apply.rail 3 (ens3f0np0): MTU"};
  for (std::size_t i = 0; i < std::size(ids); ++i) {
    CAPTURE(names[i]);
    CHECK(ids[i].name() == names[i]);
    CHECK(CheckId::parse(names[i]) == ids[i]);
  }
}

TEST_CASE("check ids: the scope follows the kind") {
  CHECK(CheckId::parse("rail.2.trust").scope() == CheckScope::rail);
  CHECK(CheckId::parse("rail.2.trust").index == 2);
  CHECK(CheckId::parse("gpu.1.pcie_link").scope() == CheckScope::gpu);
  CHECK(CheckId::parse("nvmeof.0.connected").scope() == CheckScope::nvmeof);
  CHECK(CheckId::parse("gpu.count").scope() == CheckScope::node);
  CHECK(CheckId::parse("gpudirect.acs.0000:00:01.0").scope() == CheckScope::bridge);
}

TEST_CASE("check ids: names this railyard does not know are kept whole as kind other") {
  for (const char* name : {"rail.3.lldp_ets", "rail.03.pfc", "rail.x.pfc", "rail.3", "gpu.0.sram_ecc",
                           "nvmeof.1234567.connected", "gpudirect.acs.", "apply.", "", "bgp.session"}) {
    CAPTURE(name);
    CheckId id = CheckId::parse(name);
    CHECK(id.kind == CheckKind::other);
    CHECK(id.name() == name);
  }
}

TEST_CASE("check ids: patterns put '*' for indices and PCI addresses, also in apply's objects and unknown names") {
  CHECK(CheckId::parse("rail.3.pfc").pattern() == "rail.*.pfc");
  CHECK(CheckId::parse("gpu.7.pcie_link").pattern() == "gpu.*.pcie_link");
  CHECK(CheckId::parse("nvmeof.2.namespace_read").pattern() == "nvmeof.*.namespace_read");
  CHECK(CheckId::parse("gpudirect.acs.0000:17:01.0").pattern() == "gpudirect.acs.*");
  CHECK(CheckId::parse("gpu.count").pattern() == "gpu.count");
  CHECK(CheckId::parse("apply.rail 3 (ens3f0np0): MTU").pattern() == "apply.rail *: MTU");
  CHECK(CheckId::parse("apply.ACS 0000:17:01.0").pattern() == "apply.ACS *");
  CHECK(CheckId::parse("rail.3.lldp").pattern() == "rail.*.lldp");
}
