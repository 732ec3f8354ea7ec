// FRR's neighbour JSON (kernel/bgp.cc), on answers captured from Debian's FRR
// (tests/fixtures/frr/).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel/bgp.h"

using namespace railyard;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(RAILYARD_SOURCE_DIR) + "/tests/fixtures/frr/" + name);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const BgpSession& on(const std::vector<BgpSession>& sessions, const std::string& ifname) {
  for (const auto& s : sessions)
    if (s.interface == ifname) return s;
  FAIL("no session on " << ifname);
  return sessions.front();
}

}  // namespace

TEST_CASE("bgpd's neighbours: two unnumbered sessions Established, with the leaf and its routes") {
  auto s = parse_frr_neighbors(fixture("neighbors-established.json"));
  REQUIRE(s.ok());
  REQUIRE(s->size() == 2);
  const BgpSession& r0 = on(*s, "rail0");
  CHECK(r0.established());
  CHECK(r0.remote_as == 65100);
  CHECK(r0.peer == "fe80::3ce2:8eff:fe05:4a5");
  CHECK(r0.prefixes == 3);
  CHECK(r0.up_ms == 11000);
}

TEST_CASE("bgpd's neighbours: a leaf that refuses the node's AS says so") {
  auto s = parse_frr_neighbors(fixture("neighbors-bad-peer-as.json"));
  REQUIRE(s.ok());
  const BgpSession& r1 = on(*s, "rail1");
  CHECK(r1.state == "Idle");
  CHECK_FALSE(r1.established());
  CHECK(r1.notification == "OPEN Message Error/Bad Peer AS");
  CHECK(r1.last_error == "BGP Notification received");
  CHECK(r1.prefixes == 0);
  CHECK(r1.up_ms == -1);
  CHECK(on(*s, "rail0").established());
}

TEST_CASE("bgpd's neighbours: a NOTIFICATION the node sent is not the leaf's") {
  // Both ends open a connection; while the leaf refuses the node's AS, the node may answer an
  // OPEN in the wrong state itself, and FRR then keeps only that one.
  auto s = parse_frr_neighbors(R"({"rail0":{"bgpState":"Idle","hostForeign":"fe80::1","remoteAs":65100,
    "lastResetDueTo":"BGP Notification send",
    "lastNotificationReason":"Neighbor Events Error\/Receive Unexpected Message in OpenSent State"}})");
  REQUIRE(s.ok());
  const BgpSession& r0 = on(*s, "rail0");
  CHECK(r0.notification == "");
  CHECK(r0.last_error == "BGP Notification send: Neighbor Events Error/Receive Unexpected Message in OpenSent State");
}

TEST_CASE("bgpd's neighbours: a leaf without a neighbour on the port leaves the session Active") {
  auto s = parse_frr_neighbors(fixture("neighbors-leaf-down.json"));
  REQUIRE(s.ok());
  const BgpSession& r1 = on(*s, "rail1");
  CHECK(r1.state == "Active");
  CHECK(r1.peer == "fe80::c042:38ff:fe35:7979");
  CHECK(r1.last_error == "Waiting for peer OPEN");
}

TEST_CASE("bgpd's neighbours: a far end that never speaks has no address, whatever words FRR puts there") {
  auto s = parse_frr_neighbors(fixture("neighbors-no-lla.json"));
  REQUIRE(s.ok());
  const BgpSession& r1 = on(*s, "rail1");
  CHECK(r1.state == "Idle");
  CHECK(r1.peer.empty());  // FRR: hostForeign "Unknown", bgpNeighborAddr "none"
  CHECK(r1.last_error == "Waiting for Peer IPv6 LLA");
}

TEST_CASE("bgpd's neighbours: what is not FRR's JSON is an error quoting it; no neighbours is none") {
  auto bad = parse_frr_neighbors("% Unknown command: show bgp vrf default neighbors json\n");
  CHECK_FALSE(bad.ok());
  CHECK(bad.error().find("Unknown command") != std::string::npos);
  auto none = parse_frr_neighbors("{}");
  REQUIRE(none.ok());
  CHECK(none->empty());
  // An interface neighbour whose leaf never spoke: no AS, no address, nothing accepted.
  auto quiet = parse_frr_neighbors(R"({"rail2":{"remoteAs":"external","bgpState":"Idle"}})");
  REQUIRE(quiet.ok());
  CHECK((*quiet)[0].remote_as == 0);
  CHECK((*quiet)[0].peer.empty());
  CHECK((*quiet)[0].prefixes == -1);
}

// frr.service through systemctl (a stand-in on PATH that logs its arguments and says the
// unit is in the state given): a restart never cuts a start still in progress short.
TEST_CASE("NativeBgp: a restart waits for a start of frr.service in progress first") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("railyard-bgp-test." + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path log = dir / "calls", state = dir / "state";
  {
    std::ofstream script(dir / "systemctl");
    script << "#!/bin/sh\necho \"$*\" >> '" << log.string() << "'\n"
           << "[ \"$1\" = is-active ] && { cat '" << state.string() << "'; exit 3; }\nexit 0\n";
  }
  fs::permissions(dir / "systemctl", fs::perms::owner_all);
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  ::setenv("PATH", (dir.string() + ":" + path).c_str(), 1);
  auto calls = [&](const std::string& unit_state, bool restart) {
    std::ofstream(state) << unit_state << "\n";
    fs::remove(log);
    CHECK(NativeBgp().start(restart).ok());
    std::ifstream in(log);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  CHECK(calls("activating", true) == "is-active frr.service\nstart frr.service\nrestart frr.service\n");
  CHECK(calls("active", true) == "is-active frr.service\nrestart frr.service\n");
  CHECK(calls("inactive", true) == "is-active frr.service\nrestart frr.service\n");
  CHECK(calls("activating", false) == "start frr.service\n");
  ::setenv("PATH", path.c_str(), 1);
  fs::remove_all(dir);
}
