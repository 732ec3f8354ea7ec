// NativeDcb and NativeEthtool on the build host's kernel, in the test's own namespace
// (run.sh). No software device implements DCB or ethtool tunables, but the kernel checks the
// envelope first: a well-formed request for a veth answers EOPNOTSUPP, an unknown name
// ENODEV. That proves the messages reach the DCB and ethtool code; the payloads themselves
// are checked byte by byte in dcb_message_test.cc.
#include <doctest/doctest.h>

#include <linux/rtnetlink.h>
#include <net/if.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "objects/dscp_app.h"
#include "objects/pfc.h"
#include "objects/storm.h"
#include "kernel/dcb_native.h"
#include "kernel/ethtool_native.h"
#include "support/fake_dcb.h"

using namespace railyard;

namespace {

// ry-a, from run.sh; the test fails (never passes) when run outside it.
std::string veth() {
  const char* name = std::getenv("RAILYARD_NETNS_VETH_A");
  REQUIRE_MESSAGE(name, "run under tests/netns/run.sh, which sets RAILYARD_NETNS_VETH_A");
  return name;
}

const std::string kMissing = "ry-nonexistent";

Plan plan_on(const std::string& ifname) {
  RailPlan r;
  r.index = 0;
  r.ifname = ifname;
  r.netdev = ifname;
  r.pfc_enable = 1 << 3;
  r.trust = Trust::dscp;
  r.pfc_priority = 3;
  r.roce_dscp = 26;
  r.dscp_to_priority.resize(64);
  for (int d = 0; d < 64; ++d) r.dscp_to_priority[static_cast<std::size_t>(d)] = d >> 3;
  r.storm_timeout_ms = 100;
  Plan p;
  p.rails = {r};
  return p;
}

std::string shell(const std::string& command) {
  std::string out;
  if (FILE* f = popen(command.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, f)) out += buf;
    pclose(f);
  }
  return out;
}

// RTM_GETLINK's payload for one interface by name: struct ifinfomsg, then IFLA_IFNAME.
Bytes getlink(const std::string& ifname) {
  rtattr a{static_cast<unsigned short>(RTA_LENGTH(ifname.size() + 1)), IFLA_IFNAME};
  Bytes b(RTA_ALIGN(sizeof(ifinfomsg) + sizeof a + ifname.size() + 1), 0);
  std::memcpy(b.data() + sizeof(ifinfomsg), &a, sizeof a);
  std::memcpy(b.data() + sizeof(ifinfomsg) + sizeof a, ifname.c_str(), ifname.size() + 1);
  return b;
}

}  // namespace

// No device answers a DCB request with a reply, so the reply-then-ack path is exercised with
// a request every device answers.
TEST_CASE("the route socket returns a reply and stays in step: RTM_GETLINK on the veth") {
  const std::string ifname = veth();
  RouteSocket sock;
  for (int round = 0; round < 2; ++round) {
    Outcome<Bytes> reply = sock.transact(RTM_GETLINK, RTM_NEWLINK, getlink(ifname), ifname + ": RTM_GETLINK");
    REQUIRE_MESSAGE(reply.ok(), reply.error());
    REQUIRE(reply->size() >= sizeof(ifinfomsg));
    ifinfomsg info;
    std::memcpy(&info, reply->data(), sizeof info);
    CHECK(info.ifi_index == static_cast<int>(if_nametoindex(ifname.c_str())));
  }
  Outcome<Bytes> missing = sock.transact(RTM_GETLINK, RTM_NEWLINK, getlink(kMissing), kMissing + ": RTM_GETLINK");
  CHECK(missing.code() == ENODEV);
  CHECK(missing.error() == kMissing + ": RTM_GETLINK: No such device");
  CHECK(sock.transact(RTM_GETLINK, RTM_NEWLINK, getlink(ifname), "again").ok());
}

TEST_CASE("DCB on a veth: GET and SET reach the kernel's DCB code and answer EOPNOTSUPP") {
  const std::string ifname = veth();
  NativeDcb dcb;

  Outcome<IeeePfc> pfc = dcb.pfc(ifname);
  REQUIRE(!pfc.ok());
  CHECK(pfc.code() == EOPNOTSUPP);
  CHECK(pfc.error() == ifname + ": RTM_GETDCB IEEE PFC: Operation not supported");

  Status set = dcb.set_pfc(ifname, IeeePfc{8, 0x08, 0, 0});
  CHECK(set.code() == EOPNOTSUPP);
  CHECK(set.error() == ifname + ": RTM_SETDCB IEEE PFC: Operation not supported");

  Outcome<std::vector<DcbApp>> apps = dcb.apps(ifname);
  REQUIRE(!apps.ok());
  CHECK(apps.code() == EOPNOTSUPP);
  CHECK(apps.error() == ifname + ": RTM_GETDCB IEEE APP: Operation not supported");
  CHECK(dcb.add_apps(ifname, {{5, 3, 26}}).code() == EOPNOTSUPP);

  // The socket stays usable after refusals: the same answer again.
  CHECK(dcb.pfc(ifname).code() == EOPNOTSUPP);
}

TEST_CASE("DCB on a name no device has: ENODEV") {
  veth();
  NativeDcb dcb;
  Outcome<IeeePfc> pfc = dcb.pfc(kMissing);
  REQUIRE(!pfc.ok());
  CHECK(pfc.code() == ENODEV);
  CHECK(pfc.error() == kMissing + ": RTM_GETDCB IEEE PFC: No such device");
  CHECK(dcb.set_pfc(kMissing, IeeePfc{8, 0x08, 0, 0}).code() == ENODEV);
}

TEST_CASE("ethtool tunables on a veth: EOPNOTSUPP; on a name no device has: ENODEV") {
  const std::string ifname = veth();
  NativeEthtool ethtool;
  Outcome<std::uint16_t> tout = ethtool.tunable_u16(ifname, kEthtoolPfcPreventionTout);
  REQUIRE(!tout.ok());
  CHECK(tout.code() == EOPNOTSUPP);
  CHECK(tout.error() == ifname + ": ETHTOOL_GTUNABLE pfc-prevention-tout: Operation not supported");
  Status set = ethtool.set_tunable_u16(ifname, kEthtoolPfcPreventionTout, 100);
  CHECK(set.code() == EOPNOTSUPP);
  CHECK(set.error() == ifname + ": ETHTOOL_STUNABLE pfc-prevention-tout: Operation not supported");

  CHECK(ethtool.tunable_u16(kMissing, kEthtoolPfcPreventionTout).code() == ENODEV);
}

TEST_CASE("the DCB and storm appliers on a veth report unsupported with the kernel's reason") {
  const std::string ifname = veth();
  NativeDcb dcb;
  NativeEthtool ethtool;
  test::DcbKernel k(dcb, ethtool);
  std::vector<Change> out;
  const Plan plan = plan_on(ifname);
  apply_pfc(plan, k.kernel, out);
  apply_dscp_app(plan, k.kernel, out);
  apply_storm(plan, k.kernel, out);
  REQUIRE(out.size() == 3);
  CHECK(out[0].object == "rail 0 (" + ifname + "): PFC");
  CHECK(out[0].outcome == ChangeOutcome::unsupported);
  CHECK(out[0].detail == ifname + ": RTM_GETDCB IEEE PFC: Operation not supported");
  CHECK(out[1].outcome == ChangeOutcome::unsupported);
  CHECK(out[1].detail == ifname + ": RTM_GETDCB IEEE APP: Operation not supported");
  CHECK(out[2].outcome == ChangeOutcome::unsupported);
  CHECK(out[2].detail == ifname + ": ETHTOOL_GTUNABLE pfc-prevention-tout: Operation not supported");
}

TEST_CASE("iproute2's dcb agrees (when installed)") {
  const std::string ifname = veth();
  if (access("/usr/sbin/dcb", X_OK) != 0 && access("/sbin/dcb", X_OK) != 0) {
    MESSAGE("skip: iproute2's dcb is not installed");
    return;
  }
  std::string out = shell("dcb pfc show dev " + ifname + " 2>&1");
  CHECK_MESSAGE(out.find("Operation not supported") != std::string::npos, "dcb said: " << out);
}
