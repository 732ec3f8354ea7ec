// NativeFiles: ordinary files are created whole, with or without a root prefix;
// kernel files are only ever written in place.
#include <doctest/doctest.h>

#include "builder/temp_dir.h"
#include <filesystem>

#include "kernel/files_native.h"
#include "kernel/root_files.h"

using namespace railyard;
using railyard::test::read_all;
using railyard::test::TempDir;

TEST_CASE("with root / an ordinary file is created, as /etc/nvme/hostnqn on a node") {
  TempDir tmp;
  NativeFiles host("/");
  std::string path = tmp / "etc/nvme/hostnqn";
  REQUIRE(host.write_file(path, "nqn.2014-08.org.nvmexpress:uuid:x").ok());
  CHECK(read_all(path) == "nqn.2014-08.org.nvmexpress:uuid:x\n");
  auto back = host.read_file(path);
  REQUIRE(back.ok());
  CHECK(*back == "nqn.2014-08.org.nvmexpress:uuid:x");
}

TEST_CASE("with a root prefix an ordinary file goes under it") {
  TempDir tmp;
  NativeFiles host(tmp.path());
  REQUIRE(host.write_file("/etc/nvme/hostid", "4c4c4544").ok());
  CHECK(read_all(tmp / "etc/nvme/hostid") == "4c4c4544\n");
}

TEST_CASE("a kernel file that does not exist is not created") {
  NativeFiles host("/");
  Status s = host.write_file("/proc/sys/net/ipv4/conf/railyard-no-such-if/arp_ignore", "1");
  CHECK(s.code() == ENOENT);
}

TEST_CASE("every write lands inside the root: no '..', and no symbolic link out of it") {
  TempDir tmp;
  tmp.write("root/etc/keep", "");
  tmp.write("outside/keep", "");
  std::string root = tmp / "root";
  NativeFiles host(root);
  // A path that climbs out, as a recipe's nccl.conf_path once could.
  Status up = host.write_file("/../../outside/nccl.conf", "NCCL_NET_PLUGIN=/srv/evil.so");
  CHECK(up.code() == EINVAL);
  CHECK(up.error().find("is not a plain path") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp / "outside/nccl.conf"));
  CHECK_FALSE(write_root_file(root, "/etc/../../outside/x", "x", 0644).empty());
  CHECK_FALSE(write_root_file(root, "/etc/nccl\nNCCL_X=1", "x", 0644).empty());
  // A directory inside the root that links out of it.
  std::filesystem::create_directory_symlink(tmp / "outside", tmp / "root/etc/nccl");
  std::string err = write_root_file(root, "/etc/nccl/topo.xml", "<system/>", 0644);
  CHECK(err.find("resolves to " + std::filesystem::canonical(tmp / "outside").string() +
                 "/topo.xml, outside the root") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp / "outside/topo.xml"));
  CHECK(host.write_file("/etc/nccl/gpu0.env", "x").code() == EXDEV);
  CHECK(host.make_directory("/etc/nccl/sub").code() == EXDEV);
  // Plain paths inside it are written as before.
  CHECK(write_root_file(root, "/etc/nccl.conf", "NCCL_IB_TC=106\n", 0644) == "");
  CHECK(read_all(tmp / "root/etc/nccl.conf") == "NCCL_IB_TC=106\n");
}

TEST_CASE("root_file_matches: the same bytes with the same mode, nothing else") {
  TempDir tmp;
  tmp.write("root/etc/keep", "");
  std::string root = tmp / "root";
  CHECK_FALSE(root_file_matches(root, "/etc/frr/frr.conf", "router bgp 65000\n", 0644));  // absent
  REQUIRE(write_root_file(root, "/etc/frr/frr.conf", "router bgp 65000\n", 0644) == "");
  CHECK(root_file_matches(root, "/etc/frr/frr.conf", "router bgp 65000\n", 0644));
  CHECK_FALSE(root_file_matches(root, "/etc/frr/frr.conf", "router bgp 65000", 0644));  // one byte less
  CHECK_FALSE(root_file_matches(root, "/etc/frr/frr.conf", "router bgp 65001\n", 0644));
  CHECK_FALSE(root_file_matches(root, "/etc/frr/frr.conf", "router bgp 65000\n", 0600));  // another mode
  CHECK_FALSE(root_file_matches(root, "/etc/../../outside/x", "", 0644));                 // never outside
}
