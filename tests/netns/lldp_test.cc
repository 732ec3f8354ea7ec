// The agent's LLDP listener (kernel/lldp_listener.cc) on a real veth pair in the test's own
// namespace (run.sh): frames sent on one end with an AF_PACKET socket, as a switch would
// send them, heard on the other; an invalid frame is reported with why, never taken.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kernel/lldp_listener.h"
#include "lldp.h"

using namespace railyard;

namespace {

std::string veth(const char* which) {
  const char* name = std::getenv(which);
  REQUIRE_MESSAGE(name, "run under tests/netns/run.sh, which sets " << which);
  return name;
}

void link_up(const std::string& ifname) {
  REQUIRE(std::system(("ip link set " + ifname + " up").c_str()) == 0);
}

// One frame out of `ifname`: to the nearest-bridge group, from 02:00:00:00:00:01.
void send_frame(const std::string& ifname, const std::vector<std::uint8_t>& payload, std::uint16_t ethertype = 0x88cc) {
  int fd = ::socket(AF_PACKET, SOCK_RAW, 0);
  REQUIRE(fd >= 0);
  std::vector<std::uint8_t> f = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
                                 static_cast<std::uint8_t>(ethertype >> 8), static_cast<std::uint8_t>(ethertype)};
  f.insert(f.end(), payload.begin(), payload.end());
  while (f.size() < 60) f.push_back(0);
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
  to.sll_halen = 6;
  std::memcpy(to.sll_addr, f.data(), 6);
  CHECK(::sendto(fd, f.data(), f.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) == static_cast<ssize_t>(f.size()));
  ::close(fd);
}

}  // namespace

TEST_CASE("the listener hears a leaf's LLDPDU on its interface, after an invalid one") {
  std::string a = veth("RAILYARD_NETNS_VETH_A"), b = veth("RAILYARD_NETNS_VETH_B");
  link_up(a);
  link_up(b);
  LldpListener listener({a}, std::chrono::seconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // veth carrier

  // A TTL of 3 bytes: refused, and said why.
  send_frame(b, {0x02, 0x07, 0x04, 0, 0, 0, 0, 0, 1, 0x04, 0x03, 0x05, 's', 'w', 0x06, 0x03, 0, 0, 1, 0, 0});
  LldpNeighbor leaf;
  leaf.chassis_id_subtype = 4;
  leaf.chassis_id = "0c:42:a1:00:00:07";
  leaf.port_id_subtype = 5;
  leaf.port_id = "swp7";
  leaf.ttl_s = 120;
  leaf.system_name = "leaf-r0";
  leaf.pfc = LldpPfc{false, false, 8, 0x08};
  leaf.max_frame_size = 9216;
  leaf.vlan_names = {{100, "rail0"}};
  send_frame(b, encode_lldpdu(leaf));
  auto heard = listener.heard(a, std::chrono::steady_clock::now() + std::chrono::seconds(5));
  REQUIRE(heard.neighbor);
  CHECK(heard.frames == 2);
  CHECK(heard.invalid.find("TTL") != std::string::npos);
  CHECK(heard.neighbor->system_name == "leaf-r0");
  CHECK(heard.neighbor->port_id == "swp7");
  CHECK(heard.neighbor->source_mac == "02:00:00:00:00:01");
  CHECK(heard.neighbor->pfc->enabled == 0x08);
  CHECK(heard.neighbor->max_frame_size == 9216);
}

TEST_CASE("the listener ignores other ethertypes and reports an interface it cannot listen on") {
  std::string a = veth("RAILYARD_NETNS_VETH_A"), b = veth("RAILYARD_NETNS_VETH_B");
  link_up(a);
  link_up(b);
  LldpListener listener({a, "ry-nonexistent"}, std::chrono::seconds(1));
  send_frame(b, {0x45, 0, 0, 20}, 0x0800);
  auto heard = listener.heard(a, std::chrono::steady_clock::now() + std::chrono::milliseconds(300));
  CHECK_FALSE(heard.neighbor);
  CHECK(heard.frames == 0);
  auto missing = listener.heard("ry-nonexistent", std::chrono::steady_clock::now());
  CHECK(missing.invalid.starts_with("not listening: ry-nonexistent: "));
}
