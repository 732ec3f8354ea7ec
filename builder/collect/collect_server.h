// `railyard collect`: a small receiver for the agent's report POSTs (cpp-httplib).
// POST /api/v1/reports stores each report (report_store.h); an optional bearer token is
// checked before the body is read; bodies over the limit get 413.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "outcome.h"

namespace railyard {

inline constexpr const char* kReportsPath = "/api/v1/reports";

struct CollectOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  std::string dir;
  std::string token;                // "" : no token required
  std::size_t max_body = 8u << 20;  // bytes
  std::function<void(const std::string&)> log;  // one line per request; may be empty
};

class CollectServer {
 public:
  explicit CollectServer(CollectOptions options);
  ~CollectServer();
  CollectServer(const CollectServer&) = delete;
  CollectServer& operator=(const CollectServer&) = delete;

  // Binds and listens; the port bound (the chosen one when options.port is 0).
  Outcome<int> bind();
  // Serves until stop(); false when serving failed.
  bool serve();
  // From any thread, once running() (stopping a server whose loop has not started does nothing).
  void stop();
  bool running() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "127.0.0.1:8080", "[::1]:0" → host and port; the error says what is allowed.
Outcome<std::pair<std::string, int>> parse_listen_address(const std::string& text);

}  // namespace railyard
