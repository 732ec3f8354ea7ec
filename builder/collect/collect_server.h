// `railyard collect`: the receiver for the agents' report POSTs, on libmicrohttpd's
// event-driven server (a slow or idle client holds a socket, never a thread).
// POST /api/v1/reports stores each report (report_store.h); the bearer token is checked
// when the headers are in, before any of the body is read or 100 Continue sent; a body is
// bounded however it is framed (413); headers by the connection's memory (431); the bodies
// of all requests at once by a budget (503, Retry-After); every refusal closes the
// connection. GET /healthz, GET /metrics (Prometheus text) and GET /api/v1/topology (the
// fleet's scalable units from the reports held, as `railyard report topology` renders them,
// ?format= and ?spine= as its options) need no token.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "collect/report_store.h"
#include "outcome.h"

namespace railyard {

inline constexpr const char* kReportsPath = "/api/v1/reports";
inline constexpr const char* kTopologyPath = "/api/v1/topology";

struct CollectOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  std::string dir;
  std::string token;                // a fleet-wide bearer token; "" : none
  std::string node_secret;          // per-node tokens (node_token.h); "" : none
  std::size_t max_body = 8u << 20;  // bytes
  // The bodies of all requests in flight together, in bytes: past it a request is answered
  // 503 with Retry-After (a body with a Content-Length before any of it is read).
  std::size_t max_buffered = 64u << 20;
  StoreLimits limits;                        // what the store keeps (report_store.h)
  std::size_t max_header_bytes = 64u << 10;  // the request line and headers, per connection
  int idle_timeout_s = 10;                   // a connection that sends nothing for this long is closed
  int max_connections = 4096;
  int threads = 4;                              // event loops; reports are stored on them
  std::function<void(const std::string&)> log;  // one line per request, control characters escaped; may be empty
};

class CollectServer {
 public:
  explicit CollectServer(CollectOptions options);
  ~CollectServer();
  CollectServer(const CollectServer&) = delete;
  CollectServer& operator=(const CollectServer&) = delete;

  // Binds and listens; the port bound (the chosen one when options.port is 0).
  Outcome<int> bind();
  // Serves until stop(); false when serving failed. When it returns, every connection is
  // closed and no request is in flight.
  bool serve();
  // From any thread, once running() (stopping a server whose loop has not started does nothing).
  void stop();
  bool running() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// "127.0.0.1:8080", "[::1]:0" → host and port; the error says what is allowed.
Outcome<std::pair<std::string, int>> parse_listen_address(const std::string& text);

}  // namespace railyard
