// The agent's LLDP listener (kernel/lldp_listener.cc) on a real veth pair in the test's own
// namespace (run.sh): frames sent on one end with an AF_PACKET socket, as a switch would
// send them, heard on the other; an invalid frame is reported with why, never taken.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kernel/lldp_listener.h"
#include "lldp.h"
#include "text.h"

using namespace railyard;

namespace {

std::string veth(const char* which) {
  const char* name = std::getenv(which);
  REQUIRE_MESSAGE(name, "run under tests/netns/run.sh, which sets " << which);
  return name;
}

void link_up(const std::string& ifname) { REQUIRE(std::system(("ip link set " + ifname + " up").c_str()) == 0); }

// An Ethernet frame to the nearest-bridge group, from 02:00:00:00:00:01, padded to 60 bytes.
std::vector<std::uint8_t> ethernet(const std::vector<std::uint8_t>& payload, std::uint16_t ethertype = 0x88cc) {
  std::vector<std::uint8_t> f = {0x01,
                                 0x80,
                                 0xc2,
                                 0x00,
                                 0x00,
                                 0x0e,
                                 0x02,
                                 0x00,
                                 0x00,
                                 0x00,
                                 0x00,
                                 0x01,
                                 static_cast<std::uint8_t>(ethertype >> 8),
                                 static_cast<std::uint8_t>(ethertype)};
  f.insert(f.end(), payload.begin(), payload.end());
  while (f.size() < 60) f.push_back(0);
  return f;
}

// A raw socket that sends whole frames out of `ifname`.
struct Sender {
  int fd = -1;
  sockaddr_ll to{};
  explicit Sender(const std::string& ifname) {
    fd = ::socket(AF_PACKET, SOCK_RAW, 0);
    REQUIRE(fd >= 0);
    to.sll_family = AF_PACKET;
    to.sll_ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
    to.sll_halen = 6;
    const std::uint8_t group[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
    std::memcpy(to.sll_addr, group, 6);
  }
  ~Sender() { ::close(fd); }
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;
  bool send(const std::vector<std::uint8_t>& f) const {
    return ::sendto(fd, f.data(), f.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) ==
           static_cast<ssize_t>(f.size());
  }
};

// One frame out of `ifname`.
void send_frame(const std::string& ifname, const std::vector<std::uint8_t>& payload, std::uint16_t ethertype = 0x88cc) {
  CHECK(Sender(ifname).send(ethernet(payload, ethertype)));
}

// `frame` sent out of `ifname` `per_second` times a second from a thread of its own, until
// stop() or `longest` has passed: a flood that ends by itself even when what it floods hangs.
class Flood {
 public:
  Flood(const std::string& ifname, std::vector<std::uint8_t> frame, int per_second, std::chrono::milliseconds longest)
      : sender_(ifname), frame_(std::move(frame)) {
    thread_ = std::thread([this, per_second, longest] {
      const auto start = std::chrono::steady_clock::now();
      while (!stop_ && std::chrono::steady_clock::now() - start < longest) {
        std::this_thread::sleep_until(start + std::chrono::microseconds(1'000'000LL * sent_ / per_second));
        sent_ += sender_.send(frame_);
      }
      ended_ = true;
    });
  }
  ~Flood() { stop(); }
  Flood(const Flood&) = delete;
  Flood& operator=(const Flood&) = delete;

  // Whether the flood still ran when asked to stop; the frames it sent.
  bool running() const { return !ended_; }
  long stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return sent_;
  }

 private:
  Sender sender_;
  std::vector<std::uint8_t> frame_;
  std::atomic<bool> stop_{false}, ended_{false};
  std::atomic<long> sent_{0};
  std::thread thread_;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
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

// Issue 45: the latest frame from anyone once took the neighbour's place. A second chassis
// on the link (a hub, a loop, a spoofer) is kept beside the first, which stays.
TEST_CASE("the listener keeps the first neighbour and hears a second chassis beside it") {
  std::string a = veth("RAILYARD_NETNS_VETH_A"), b = veth("RAILYARD_NETNS_VETH_B");
  link_up(a);
  link_up(b);
  LldpListener listener({a}, std::chrono::seconds(5));
  LldpNeighbor leaf;
  leaf.chassis_id_subtype = 4;
  leaf.chassis_id = "0c:42:a1:00:00:07";
  leaf.port_id_subtype = 5;
  leaf.port_id = "swp7";
  leaf.ttl_s = 120;
  leaf.system_name = "leaf-r0";
  LldpNeighbor spoofer = leaf;
  spoofer.chassis_id = "02:00:00:00:00:66";
  spoofer.port_id = "eth0";
  send_frame(b, encode_lldpdu(leaf));
  REQUIRE(listener.heard(a, std::chrono::steady_clock::now() + std::chrono::seconds(5)).neighbor);
  send_frame(b, encode_lldpdu(spoofer));
  send_frame(b, encode_lldpdu(spoofer));
  LldpHeard heard;
  for (int i = 0; i < 50 && heard.frames < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    heard = listener.heard(a, std::chrono::steady_clock::now());
  }
  CHECK(heard.frames == 3);
  REQUIRE(heard.neighbor);
  CHECK(heard.neighbor->chassis_id == "0c:42:a1:00:00:07");
  REQUIRE(heard.others.size() == 1);
  CHECK(heard.others[0].chassis_id == "02:00:00:00:00:66");
  CHECK(heard.flood_per_s == 0);
}

// Issue 45: a neighbour sending 9,213-byte frames of 1,528 distinct organisational TLVs,
// thousands a second. The listener once read each socket until it was empty, parsing every
// frame: it never was, and its destructor, which first boot runs before writing the report,
// waited for the flood to end.
TEST_CASE("a rail flooded with LLDP: the listener stops within its bound and says the rate") {
  std::string a = veth("RAILYARD_NETNS_VETH_A"), b = veth("RAILYARD_NETNS_VETH_B");
  for (const auto& i : {a, b}) REQUIRE(std::system(("ip link set " + i + " mtu 9216 up").c_str()) == 0);
  LldpNeighbor flooder;
  flooder.chassis_id_subtype = 4;
  flooder.chassis_id = "02:00:00:00:00:01";
  flooder.port_id_subtype = 5;
  flooder.port_id = "eth0";
  flooder.ttl_s = 120;
  flooder.system_name = "leaf-r0";
  auto two_digits = [](unsigned v) { return hex(v, 2).substr(2); };
  for (unsigned i = 0; i < 1528; ++i)  // OUIs 10-00-00 to 10-05-f7
    flooder.other_tlvs.push_back("10-" + two_digits(i >> 8) + "-" + two_digits(i & 0xff) + "/1");
  const auto frame = ethernet(encode_lldpdu(flooder));
  REQUIRE(frame.size() == 9213);

  auto listener = std::make_unique<LldpListener>(std::vector<std::string>{a}, std::chrono::seconds(5));
  Flood flood(b, frame, 5000, std::chrono::seconds(6));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // two of the listener's seconds
  const auto heard = listener->heard(a, std::chrono::steady_clock::now());
  const auto t = std::chrono::steady_clock::now();
  listener.reset();
  const double stop_s = seconds_since(t);
  const bool flooding = flood.running();
  const long sent = flood.stop();
  MESSAGE("sent " << sent << " frames; the listener counted " << heard.frames << ", a flood of " << heard.flood_per_s
                  << " a second, and stopped in " << stop_s * 1000 << " ms");
  CHECK(flooding);  // the listener stopped during the flood, not after it
  CHECK(stop_s < 1.0);
  // The rate the kernel counted, dropped frames included: thousands, where a switch sends one
  // every 30 s. However slow this machine, far past the listener's limit.
  CHECK(heard.flood_per_s > 10 * kLldpFramesPerSecond);
  CHECK(heard.frames > 2 * kLldpFramesPerSecond);
  REQUIRE(heard.neighbor);
  CHECK(heard.neighbor->other_tlvs.size() == kLldpMaxOtherTlvs);
  REQUIRE(std::system(("ip link set " + a + " mtu 1500 && ip link set " + b + " mtu 1500").c_str()) == 0);
}
