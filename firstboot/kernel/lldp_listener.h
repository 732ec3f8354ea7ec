// Listens for LLDP (ethertype 0x88CC, to the nearest-bridge group 01:80:C2:00:00:0E) on the
// rails with AF_PACKET sockets, one per interface, parsed by core's parser in a thread of
// its own: nothing an LLDP frame holds can block or crash the agent. Its own listener rather
// than lldpd: no daemon, no extra packages in the image (lldpd pulls in net-snmp, perl and
// ICU, some 80 MB unpacked into every node's RAM), and the frames are read whole, PFC and
// VLAN TLVs included. What a neighbour can make it do is bounded: at most
// kLldpFramesPerSecond frames a second are read on an interface, a few at each wake-up, and
// a flood past that is left to the kernel to drop, counted, and reported with its rate.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernel/lldp_neighbors.h"
#include "outcome.h"

namespace railyard {

class LldpListener : public LldpNeighbors {
 public:
  // Opens a socket on each interface at once (an interface that cannot be listened on is
  // reported by heard() with why); listens until destroyed.
  LldpListener(const std::vector<std::string>& ifnames, std::chrono::seconds wait);
  // Returns within a few frames' parsing, however many keep coming.
  ~LldpListener() override;
  LldpListener(const LldpListener&) = delete;
  LldpListener& operator=(const LldpListener&) = delete;

  LldpHeard heard(const std::string& ifname, std::chrono::steady_clock::time_point deadline) override;
  std::chrono::steady_clock::time_point deadline() const override { return deadline_; }

 private:
  void run();
  // Reads and parses what port `i` holds, at most `budget` frames; returns how many it read.
  int read_port(std::size_t i, int budget, std::vector<std::uint8_t>& buffer);
  // Adds what the kernel counted on each port since the last call, `elapsed` ago.
  void count_second(std::chrono::nanoseconds elapsed);

  struct Port {
    std::string ifname;
    int fd = -1;
    std::string error;  // why no socket listens here
    LldpHeard heard;
  };
  std::vector<Port> ports_;
  std::chrono::steady_clock::time_point deadline_;
  int wake_[2] = {-1, -1};         // a pipe that ends the thread
  std::atomic<bool> stop_{false};  // the same, looked at between frames
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread thread_;
};

}  // namespace railyard
