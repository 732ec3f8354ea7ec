// Rail sysctls (objects/sysctl.cc): only the difference written, with a VLAN's name verbatim.
#include <doctest/doctest.h>

#include "support/rtnl_rig.h"

TEST_CASE("sysctls: read, compare, write only the difference, with a VLAN's name verbatim") {
  FakeKernel f;
  add_conf(f.host, "ens1f0np0.200");
  f.host.files["/proc/sys/net/ipv4/conf/ens1f0np0.200/arp_announce"] = "2";
  Plan plan = plan_of({rail(0, "ens1f0np0", 200, "198.18.0.11/24", 100)});
  auto out = run(apply_sysctls, plan, f.kernel);
  CHECK(out.size() == 3);
  Change ignore = find(out, "rail 0 (ens1f0np0): sysctl net/ipv4/conf/ens1f0np0.200/arp_ignore");
  CHECK(ignore.outcome == ChangeOutcome::changed);
  CHECK(ignore.before == "0");
  CHECK(ignore.after == "1");
  CHECK(find(out, "rail 0 (ens1f0np0): sysctl net/ipv4/conf/ens1f0np0.200/arp_announce").outcome ==
        ChangeOutcome::unchanged);
  CHECK(f.host.writes == std::vector<std::string>{"/proc/sys/net/ipv4/conf/ens1f0np0.200/arp_ignore=1",
                                                  "/proc/sys/net/ipv4/conf/ens1f0np0.200/rp_filter=2"});
  f.host.writes.clear();
  CHECK(not_unchanged(run(apply_sysctls, plan, f.kernel)) == "");
  CHECK(f.host.writes.empty());
}

TEST_CASE("sysctls: a missing netdev's files fail; a refused write carries the reason") {
  FakeKernel f;
  add_conf(f.host, "ens2f0np0");
  f.host.write_errors["/proc/sys/net/ipv4/conf/ens2f0np0/arp_ignore"] = EACCES;
  auto out = run(apply_sysctls, plan_of({rail(0, "ens1f0np0"), rail(1, "ens2f0np0")}), f.kernel);
  Change missing = find(out, "rail 0 (ens1f0np0): sysctl net/ipv4/conf/ens1f0np0/arp_ignore");
  CHECK(missing.outcome == ChangeOutcome::failed);
  CHECK(missing.detail == "read /proc/sys/net/ipv4/conf/ens1f0np0/arp_ignore: No such file or directory");
  Change refused = find(out, "rail 1 (ens2f0np0): sysctl net/ipv4/conf/ens2f0np0/arp_ignore");
  CHECK(refused.outcome == ChangeOutcome::failed);
  CHECK(refused.detail == "write /proc/sys/net/ipv4/conf/ens2f0np0/arp_ignore = 1: Permission denied");
}
