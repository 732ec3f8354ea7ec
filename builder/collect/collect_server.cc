#include "collect/collect_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "collect/node_token.h"
#include "collect/report_store.h"
#include "report/fleet.h"
#include "report/fleet_topology.h"
#include "text.h"

namespace railyard {

namespace {

using Clock = std::chrono::steady_clock;

// A body's first buffer, in bytes: a report is about 100 KiB.
constexpr std::size_t kFirstBuffer = 64u << 10;

// Seconds a client told 503 waits before it tries again.
constexpr const char* kRetryAfter = "5";

// Compares without stopping at the first difference, so timing does not reveal the token.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

std::string client_address(MHD_Connection* c) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (!info || !info->client_addr) return "?";
  char host[INET6_ADDRSTRLEN] = "?";
  const sockaddr* sa = info->client_addr;
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, host, sizeof host);
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, host, sizeof host);
  return host;
}

std::string header(MHD_Connection* c, const char* name) {
  const char* v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
  return v ? v : "";
}

}  // namespace

struct CollectServer::Impl {
  // One request's state, from its headers to its answer.
  struct Request {
    explicit Request(std::atomic<std::size_t>& b) : budget(b) {}
    ~Request() { budget -= reserved; }
    Request(const Request&) = delete;
    Request& operator=(const Request&) = delete;
    // Bytes more of the budget for the body, or false when the budget has not got them.
    bool reserve(std::size_t n, std::size_t max) {
      std::size_t held = budget.load();
      do {
        if (held + n > max) return false;
      } while (!budget.compare_exchange_weak(held, held + n));
      reserved += n;
      return true;
    }
    Clock::time_point start = Clock::now();
    std::string body;
    bool too_large = false;   // over max_body: the rest is dropped as it comes
    bool busy = false;        // over the budget: likewise, and answered 503
    bool any_node = true;     // the fleet token, or no token needed
    std::string token;        // else the bearer token, to check against the report's node
    std::size_t dropped = 0;  // bytes of it dropped
    std::atomic<std::size_t>& budget;
    std::size_t reserved = 0;  // of the budget, given back when the request ends
    std::size_t declared = 0;  // its Content-Length, or 0
  };

  explicit Impl(CollectOptions o) : opt(std::move(o)), store(opt.dir, opt.limits) {}

  CollectOptions opt;
  ReportStore store;
  std::atomic<std::size_t> buffered{0};  // the bodies held, against opt.max_buffered
  MHD_Daemon* daemon = nullptr;
  std::mutex mutex;
  std::condition_variable stopped_cv;
  bool stopped = false;

  // For GET /metrics.
  std::atomic<std::uint64_t> stored{0}, bytes{0}, requests{0}, pruned{0};
  std::atomic<std::uint64_t> latency_us{0};
  std::mutex refused_mutex;
  std::map<std::string, std::uint64_t> refused;  // by reason

  void log(MHD_Connection* c, const char* method, const char* url, int status, const std::string& what) const {
    if (!opt.log) return;
    // Every part the client chose is escaped: no forged lines, no terminal sequences.
    opt.log(client_address(c) + " " + escape_control(method) + " " + escape_control(url) + " " +
            std::to_string(status) + " " + escape_control(what));
  }

  MHD_Result send(MHD_Connection* c, int status, const std::string& body, const char* type, bool close,
                  const char* allow = nullptr) {
    MHD_Response* r =
        MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (close) MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    if (status == 503) MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, kRetryAfter);
    if (allow) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    if (status == 401) MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    MHD_Result ok = MHD_queue_response(c, static_cast<unsigned>(status), r);
    MHD_destroy_response(r);
    return ok;
  }
  MHD_Result json(MHD_Connection* c, int status, const nlohmann::ordered_json& body, bool close = false,
                  const char* allow = nullptr) {
    return send(c, status, body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n",
                "application/json", close, allow);
  }
  // A refusal: counted by reason, logged, and the connection closed after it so that an
  // unread body is never taken for the next request.
  MHD_Result refuse(MHD_Connection* c, const char* method, const char* url, int status, const std::string& reason,
                    const std::string& message, const char* allow = nullptr) {
    count_refusal(reason);
    log(c, method, url, status, "refused: " + message);
    return json(c, status, {{"error", message}}, true, allow);
  }

  void count_refusal(const std::string& reason) {
    std::lock_guard lock(refused_mutex);
    ++refused[reason];
  }

  std::string metrics() {
    std::string m;
    auto counter = [&](const char* name, const char* help, const std::string& labels, std::uint64_t v, bool head) {
      if (head) m += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n";
      m += std::string(name) + labels + " " + std::to_string(v) + "\n";
    };
    counter("railyard_collect_reports_stored_total", "Reports stored.", "", stored, true);
    counter("railyard_collect_report_bytes_total", "Bytes of the reports stored.", "", bytes, true);
    {
      std::lock_guard lock(refused_mutex);
      bool head = true;
      for (const char* reason : {"token", "too_large", "malformed", "not_a_report", "disk", "method", "not_found",
                                 "busy", "unknown_node", "store_full"}) {
        auto it = refused.find(reason);
        counter("railyard_collect_requests_refused_total", "Requests refused, by reason.",
                std::string("{reason=\"") + reason + "\"}", it == refused.end() ? 0 : it->second, head);
        head = false;
      }
    }
    counter("railyard_collect_reports_pruned_total", "Older reports removed to keep each node's newest --keep-boots.",
            "", pruned, true);
    m += "# HELP railyard_collect_store_bytes Bytes of reports the receiver holds (counted when --max-store-bytes is "
         "set).\n"
         "# TYPE railyard_collect_store_bytes gauge\n";
    m += "railyard_collect_store_bytes " + std::to_string(store.bytes()) + "\n";
    m += "# HELP railyard_collect_buffered_bytes Bytes of request bodies held now.\n"
         "# TYPE railyard_collect_buffered_bytes gauge\n";
    m += "railyard_collect_buffered_bytes " + std::to_string(buffered.load()) + "\n";
    m += "# HELP railyard_collect_report_seconds Time from a report's headers to its answer.\n"
         "# TYPE railyard_collect_report_seconds summary\n";
    m += "railyard_collect_report_seconds_sum " + std::to_string(static_cast<double>(latency_us) / 1e6) + "\n";
    m += "railyard_collect_report_seconds_count " + std::to_string(requests.load()) + "\n";
    return m;
  }

  // GET /api/v1/topology[?format=F&spine=S]: the fleet's topology from the reports held now,
  // as `railyard report topology` renders it; how many nodes were left out in a header.
  MHD_Result topology(MHD_Connection* c, const char* method, const char* url) {
    TopologyFormat f;
    if (const char* v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format")) f.format = v;
    if (const char* v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "spine")) f.spine = v;
    auto fleet = read_fleet(opt.dir, 1);
    if (!fleet.ok()) return refuse(c, method, url, 500, "disk", fleet.error());
    Topology t = fleet_topology(*fleet);
    auto text = render_topology(t, f);
    if (!text.ok()) return refuse(c, method, url, 400, "malformed", text.error());
    MHD_Response* r =
        MHD_create_response_from_buffer(text->size(), const_cast<char*>(text->data()), MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            f.format == "json" ? "application/json" : "text/plain; charset=utf-8");
    const std::string left_out = std::to_string(t.left_out.size());
    MHD_add_response_header(r, "X-Railyard-Left-Out", left_out.c_str());
    MHD_Result ok = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    log(c, method, url, 200, std::to_string(t.units.size()) + " units, " + left_out + " left out");
    return ok;
  }

  MHD_Result handle(MHD_Connection* c, const char* url, const char* method, const char* upload,
                    std::size_t* upload_size, void** state) {
    std::string path = url;
    bool post = std::strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    bool get = std::strcmp(method, MHD_HTTP_METHOD_GET) == 0 || std::strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    auto* req = static_cast<Request*>(*state);
    if (!req) {
      // The headers are in; nothing of the body has been read (and no 100 Continue sent).
      if (path == "/healthz") {
        if (!get) return refuse(c, method, url, 405, "method", "only GET /healthz is served", "GET, HEAD");
        return json(c, 200, {{"status", "ok"}});
      }
      if (path == "/metrics") {
        if (!get) return refuse(c, method, url, 405, "method", "only GET /metrics is served", "GET, HEAD");
        return send(c, 200, metrics(), "text/plain; version=0.0.4", false);
      }
      if (path == kTopologyPath) {
        if (!get)
          return refuse(c, method, url, 405, "method", std::string("only GET ") + kTopologyPath + " is served",
                        "GET, HEAD");
        return topology(c, method, url);
      }
      if (path != kReportsPath)
        return refuse(c, method, url, 404, "not_found",
                      std::string("nothing here; reports are POSTed to ") + kReportsPath);
      if (!post)
        return refuse(c, method, url, 405, "method", std::string("only POST ") + kReportsPath + " is served", "POST");
      std::string presented;
      bool any_node = true;
      if (!opt.token.empty() || !opt.node_secret.empty()) {
        std::string auth = header(c, MHD_HTTP_HEADER_AUTHORIZATION);
        const std::string scheme = "Bearer ";
        if (auth.rfind(scheme, 0) != 0 || auth.size() == scheme.size())
          return refuse(c, method, url, 401, "token", "a bearer token is required (Authorization: Bearer TOKEN)");
        presented = auth.substr(scheme.size());
        any_node = !opt.token.empty() && same_secret(presented, opt.token);
        // A per-node token is checked against the report's node, once the body is in.
        if (!any_node && opt.node_secret.empty())
          return refuse(c, method, url, 401, "token", "the bearer token is not accepted");
      }
      std::string length = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
      std::size_t declared = 0;
      auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), declared);
      if (!length.empty() && (ec != std::errc() || end != length.data() + length.size() || declared > opt.max_body))
        return refuse(c, method, url, 413, "too_large", too_large());
      *state = req = new Request(buffered);
      req->any_node = any_node;
      req->token = std::move(presented);
      req->declared = declared;
      // A declared body the budget has no room for now is refused before any of it is read.
      if (buffered.load() + declared > opt.max_buffered) return refuse(c, method, url, 503, "busy", busy());
      return MHD_YES;
    }
    if (*upload_size > 0) {
      // However the body is framed (Content-Length or chunked), no more than max_body is
      // kept. A chunked body over it is read on and dropped, to answer 413 at its end (the
      // server library answers only between requests); one that goes on past twice the
      // limit has its connection closed unanswered.
      if (!req->too_large && req->body.size() + *upload_size > opt.max_body) {
        req->too_large = true;
        req->dropped = req->body.size();
        std::string().swap(req->body);
      }
      // The budget counts the memory a body holds, taken as its bytes arrive (doubling,
      // up to its Content-Length): a sender holds only as much of it as it has sent.
      if (!req->too_large && !req->busy && req->body.size() + *upload_size > req->body.capacity()) {
        std::size_t want = std::max({2 * req->body.capacity(), req->body.size() + *upload_size, kFirstBuffer});
        want = std::min(want, req->declared ? std::max(req->declared, req->body.size() + *upload_size) : opt.max_body);
        if (req->reserve(want - req->reserved, opt.max_buffered)) {
          req->body.reserve(want);
        } else {
          req->busy = true;  // past the budget: read on, dropped, answered 503
          req->dropped = req->body.size();
          std::string().swap(req->body);
        }
      }
      if (req->too_large || req->busy) {
        req->dropped += *upload_size;
        *upload_size = 0;
        if (req->dropped <= 2 * opt.max_body) return MHD_YES;
        count_refusal("too_large");
        log(c, method, url, 413,
            "closed: the body goes on past twice --max-body (" + std::to_string(opt.max_body) + " bytes)");
        return MHD_NO;
      }
      req->body.append(upload, *upload_size);
      *upload_size = 0;
      return MHD_YES;
    }
    if (req->too_large) return refuse(c, method, url, 413, "too_large", too_large());
    if (req->busy) return refuse(c, method, url, 503, "busy", busy());
    auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
    auto authorize = [&](const std::string& node) -> std::string {
      if (req->any_node || same_secret(req->token, node_token(opt.node_secret, node))) return "";
      return "the bearer token is not " + node + "'s (each node posts with its own token)";
    };
    StoreReply r = store.store(req->body, now.count(), authorize);
    requests++;
    latency_us += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - req->start).count());
    if (r.status != 201) {
      if (!r.log.empty()) log(c, method, url, r.status, r.log);
      return refuse(c, method, url, r.status, r.reason, r.message);
    }
    stored++;
    pruned += static_cast<std::uint64_t>(r.pruned);
    bytes += req->body.size();
    log(c, method, url, 201, r.message + " (" + r.result + ")");
    return json(c, 201, {{"stored", r.stored}, {"node", r.node}, {"result", r.result}});
  }

  std::string busy() const {
    return "the receiver holds " + std::to_string(opt.max_buffered) +
           " bytes of report bodies in flight (--max-buffered); try again shortly";
  }
  std::string too_large() const {
    return "the body is larger than " + std::to_string(opt.max_body) + " bytes (--max-body)";
  }
};

namespace {

MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method, const char*,
                      const char* upload, std::size_t* upload_size, void** state) {
  return static_cast<CollectServer::Impl*>(cls)->handle(c, url, method, upload, upload_size, state);
}

// The server library's own complaints, into the same log, escaped like the rest.
void on_library_log(void* cls, const char* format, va_list args) {
  const CollectOptions& opt = static_cast<CollectServer::Impl*>(cls)->opt;
  if (!opt.log) return;
  char line[512];
  std::vsnprintf(line, sizeof line, format, args);
  std::string text = line;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  opt.log("libmicrohttpd: " + escape_control(text));
}

void on_completed(void*, MHD_Connection*, void** state, MHD_RequestTerminationCode) {
  delete static_cast<CollectServer::Impl::Request*>(*state);
  *state = nullptr;
}

}  // namespace

CollectServer::CollectServer(CollectOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

CollectServer::~CollectServer() {
  if (impl_->daemon) MHD_stop_daemon(impl_->daemon);
}

Outcome<int> CollectServer::bind() {
  const CollectOptions& o = impl_->opt;
  std::string where = o.host + ":" + std::to_string(o.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(o.port);
  if (int rc = getaddrinfo(o.host.c_str(), port_text.c_str(), &hints, &found); rc != 0)
    return Outcome<int>::fail("cannot listen on " + where + ": " + gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found, freeaddrinfo);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
  if (found->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
  // Event-driven: a slow or idle client holds a socket, not a thread.
  impl_->daemon = MHD_start_daemon(
      flags, static_cast<std::uint16_t>(o.port), nullptr, nullptr, &on_request, impl_.get(), MHD_OPTION_EXTERNAL_LOGGER,
      &on_library_log, impl_.get(),  // first, so that it takes every message
      MHD_OPTION_SOCK_ADDR, found->ai_addr, MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(o.threads),
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(o.max_connections), MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned>(o.idle_timeout_s), MHD_OPTION_CONNECTION_MEMORY_LIMIT, o.max_header_bytes,
      MHD_OPTION_NOTIFY_COMPLETED, &on_completed, nullptr, MHD_OPTION_END);
  if (!impl_->daemon)
    return Outcome<int>::fail("cannot listen on " + where + " (in use, or not an address of this machine)");
  const MHD_DaemonInfo* info = MHD_get_daemon_info(impl_->daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info ? static_cast<int>(info->port) : o.port;
}

bool CollectServer::serve() {
  MHD_Daemon* daemon = nullptr;
  {
    std::unique_lock lock(impl_->mutex);
    if (!impl_->daemon) return false;
    impl_->stopped_cv.wait(lock, [&] { return impl_->stopped; });
    std::swap(daemon, impl_->daemon);
  }
  // Once serve() returns, no request is in flight and no callback will run.
  MHD_stop_daemon(daemon);
  return true;
}

void CollectServer::stop() {
  std::lock_guard lock(impl_->mutex);
  impl_->stopped = true;
  impl_->stopped_cv.notify_all();
}

bool CollectServer::running() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->daemon != nullptr && !impl_->stopped;
}

Outcome<std::pair<std::string, int>> parse_listen_address(const std::string& text) {
  using Result = Outcome<std::pair<std::string, int>>;
  const std::string allowed = "; expected ADDRESS:PORT, e.g. 127.0.0.1:8080 or [::1]:0 (port 0: any free port)";
  std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return Result::fail("'" + text + "' has no port" + allowed);
  std::string host = text.substr(0, colon), port_text = text.substr(colon + 1);
  if (host.front() == '[') {
    if (host.back() != ']' || host.size() < 3) return Result::fail("'" + text + "': unbalanced brackets" + allowed);
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return Result::fail("'" + text + "': an IPv6 address goes in brackets" + allowed);
  }
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535)
    return Result::fail("'" + text + "': port '" + port_text + "' is not 0 to 65535" + allowed);
  return std::pair{host, port};
}

}  // namespace railyard
