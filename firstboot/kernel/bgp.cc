#include "kernel/bgp.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <nlohmann/json.hpp>

#include "io/process.h"

namespace railyard {

namespace {

constexpr std::size_t kVtyshLimit = 4 * 1024 * 1024;  // about 4 KiB per session
// A wedged bgpd or systemd must not hold first boot: each call is bounded.
constexpr int kVtyshTimeoutMs = 10000;

std::string text_of(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

long long number_of(const nlohmann::json& j, const char* key, long long fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<long long>() : fallback;
}

std::string address_or_empty(const std::string& s) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET6, s.c_str(), buf) == 1 || inet_pton(AF_INET, s.c_str(), buf) == 1 ? s : "";
}

std::string first_line(std::string_view s) {
  std::string line(s.substr(0, s.find('\n')));
  return line.size() > 200 ? line.substr(0, 200) + "…" : line;
}

}  // namespace

Outcome<std::vector<BgpSession>> parse_frr_neighbors(std::string_view text) {
  using Result = Outcome<std::vector<BgpSession>>;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Result::fail(EPROTO, "bgpd's neighbours: not FRR's JSON: \"" + first_line(text) + "\"");
  std::vector<BgpSession> out;
  for (const auto& [name, n] : j.items()) {
    if (!n.is_object()) continue;
    BgpSession s;
    s.interface = name;
    s.state = text_of(n, "bgpState");
    // The peer's address, once bgpd knows it: before, FRR says "Unknown" or "none" there.
    s.peer = address_or_empty(text_of(n, "hostForeign"));
    if (s.peer.empty()) s.peer = address_or_empty(text_of(n, "bgpNeighborAddr"));
    // An interface peer whose AS is not known yet says "external" or nothing.
    s.remote_as = number_of(n, "remoteAs", 0);
    s.last_error = text_of(n, "lastResetDueTo");
    // FRR keeps one NOTIFICATION, the last sent or received: lastResetDueTo says which. Only a
    // received one is the leaf's word. The node's own (a collision resolved, an OPEN in the
    // wrong state while the leaf keeps refusing) goes with the reset's reason instead, so that
    // it neither poses as the leaf's nor hides the leaf's refusal kept from an earlier poll.
    std::string reason = text_of(n, "lastNotificationReason");
    if (s.last_error == "BGP Notification received") s.notification = reason;
    else if (s.last_error == "BGP Notification send" && !reason.empty()) s.last_error += ": " + reason;
    if (s.established()) s.up_ms = number_of(n, "bgpTimerUpMsec", -1);
    if (auto af = n.find("addressFamilyInfo"); af != n.end() && af->is_object())
      if (auto v4 = af->find("ipv4Unicast"); v4 != af->end() && v4->is_object())
        s.prefixes = number_of(*v4, "acceptedPrefixCounter", -1);
    out.push_back(std::move(s));
  }
  return Result(std::move(out));
}

Status NativeBgp::start(bool restart) {
  // `systemctl start` leaves a running unit as it is. A restart while the unit is still
  // starting (the image's own start at boot, beside first boot) cut frrinit.sh short and left
  // bgpd without the configuration just written, in the routed lab: the start in progress is
  // waited for first (`systemctl start` waits for the job already running).
  if (restart) {
    std::string state = run_process({.argv = {"systemctl", "is-active", "frr.service"},
                                     .capture = true,
                                     .capture_limit = 256,
                                     .timeout = std::chrono::milliseconds(kVtyshTimeoutMs)})
                            .out;
    if (state.rfind("activating", 0) == 0 || state.rfind("reloading", 0) == 0)
      run_process(
          {.argv = {"systemctl", "start", "frr.service"}, .timeout = std::chrono::milliseconds(start_timeout_ms_)});
  }
  std::string verb = restart ? "restart" : "start";
  ProcessResult r = run_process(
      {.argv = {"systemctl", verb, "frr.service"}, .timeout = std::chrono::milliseconds(start_timeout_ms_)});
  int rc = r.status;
  if (rc == 124)
    return Status::fail(ETIMEDOUT, "systemctl " + verb + " frr.service: no answer within " +
                                       std::to_string(start_timeout_ms_ / 1000) + " s");
  if (rc != 0)
    return Status::fail(EIO, "systemctl " + verb + " frr.service: " + r.how() +
                                 (rc == 5 ? " (no frr.service: is the frr package in the image?)" : ""));
  return success();
}

Outcome<std::vector<BgpSession>> NativeBgp::sessions() {
  std::vector<std::string> argv = {"vtysh"};
  if (!vty_socket_.empty()) argv.insert(argv.end(), {"--vty_socket", vty_socket_});
  argv.insert(argv.end(), {"-c", "show bgp vrf default neighbors json"});
  ProcessResult r = run_process({.argv = argv,
                                 .capture = true,
                                 .capture_limit = kVtyshLimit,
                                 .timeout = std::chrono::milliseconds(kVtyshTimeoutMs)});
  const std::string& out = r.out;
  int rc = r.status;
  if (rc == 124)
    return Outcome<std::vector<BgpSession>>::fail(
        ETIMEDOUT, "vtysh show bgp neighbors: no answer within " + std::to_string(kVtyshTimeoutMs / 1000) + " s");
  if (rc != 0)
    return Outcome<std::vector<BgpSession>>::fail(
        Status::fail(EIO, "vtysh show bgp neighbors: " + r.how() + (out.empty() ? "" : ": " + first_line(out))));
  return parse_frr_neighbors(out);
}

}  // namespace railyard
