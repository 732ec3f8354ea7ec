// Test helpers: the probe responder's slices in memory (MemorySlices) and a responder on
// 127.0.0.1 served on a thread of its own (Running), for the responder's and the client's tests.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "probe/responder.h"

namespace railyard::test {

// Slices in memory; a "write" is the test copying into one. Every open and close is recorded.
struct MemorySlices : ProbeSlices {
  std::size_t slices = 2;
  std::size_t bytes = 4096;
  std::vector<std::vector<std::uint8_t>> memory = std::vector<std::vector<std::uint8_t>>(8);
  std::vector<std::string> log;
  std::atomic<bool> fail_open = false;

  std::size_t count() const override { return slices; }
  std::size_t slice_bytes() const override { return bytes; }
  Outcome<ProbeAccept> open(std::size_t rail, std::size_t slice, const ProbeHello& hello) override {
    log.push_back("open rail " + std::to_string(rail) + " slice " + std::to_string(slice));
    if (fail_open) return Outcome<ProbeAccept>::fail("no device");
    memory[slice].assign(bytes, 0);
    ProbeAccept a;
    a.qp = {static_cast<std::uint32_t>(100 + slice), 7, {}};
    a.rkey = static_cast<std::uint32_t>(slice + 1);
    a.length = hello.bytes;
    a.address = slice * bytes;
    return a;
  }
  std::span<const std::uint8_t> contents(std::size_t slice, std::size_t length) override {
    return std::span<const std::uint8_t>(memory[slice]).first(length);
  }
  void close(std::size_t slice) override { log.push_back("close slice " + std::to_string(slice)); }
};

// A responder on 127.0.0.1 (rail 0, peers from `allowed`) served on a thread of its own.
struct Running {
  MemorySlices slices;
  std::optional<Responder> responder;
  int stop = ::eventfd(0, EFD_CLOEXEC);
  std::thread thread;
  Status served = success();

  explicit Running(const std::string& allowed = "127.0.0.0/8",
                   std::chrono::milliseconds peer_time = std::chrono::milliseconds(2000),
                   std::size_t slices_count = 2) {
    slices.slices = slices_count;
    ResponderRail rail{0, *parse_ipv4("127.0.0.1"), {*parse_cidr(allowed)}};
    responder.emplace(std::vector<ResponderRail>{rail}, 0, ResponderLimits{peer_time}, slices);
    REQUIRE(responder->listen().ok());
    thread = std::thread([this] { served = responder->serve(stop); });
  }
  ~Running() {
    finish();
    ::close(stop);
  }
  // Stops the responder and waits for it: its counts are final then.
  void finish() {
    if (!thread.joinable()) return;
    std::uint64_t one = 1;
    (void)!::write(stop, &one, sizeof one);
    thread.join();
  }
  std::uint16_t port() const { return responder->port(0); }
};

}  // namespace railyard::test
