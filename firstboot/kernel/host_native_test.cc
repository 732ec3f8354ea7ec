// NativeHost's files: ordinary files are created whole, with or without a root prefix;
// kernel files are only ever written in place.
#include <doctest/doctest.h>

#include "builder/temp_dir.h"
#include "kernel/host_native.h"

using namespace railyard;
using railyard::test::read_all;
using railyard::test::TempDir;

TEST_CASE("with root / an ordinary file is created, as /etc/nvme/hostnqn on a node") {
  TempDir tmp;
  NativeHost host("/");
  std::string path = tmp / "etc/nvme/hostnqn";
  REQUIRE(host.write_file(path, "nqn.2014-08.org.nvmexpress:uuid:x").ok());
  CHECK(read_all(path) == "nqn.2014-08.org.nvmexpress:uuid:x\n");
  auto back = host.read_file(path);
  REQUIRE(back.ok());
  CHECK(*back == "nqn.2014-08.org.nvmexpress:uuid:x");
}

TEST_CASE("with a root prefix an ordinary file goes under it") {
  TempDir tmp;
  NativeHost host(tmp.path());
  REQUIRE(host.write_file("/etc/nvme/hostid", "4c4c4544").ok());
  CHECK(read_all(tmp / "etc/nvme/hostid") == "4c4c4544\n");
}

TEST_CASE("a kernel file that does not exist is not created") {
  NativeHost host("/");
  Status s = host.write_file("/proc/sys/net/ipv4/conf/railyard-no-such-if/arp_ignore", "1");
  CHECK(s.code() == ENOENT);
}
