#include "collect/collect_server.h"

#include <httplib.h>

#include <charconv>

#include <nlohmann/json.hpp>

#include "collect/report_store.h"

namespace railyard {

namespace {

// Compares without stopping at the first difference, so timing does not reveal the token.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

void reply(httplib::Response& res, int status, const nlohmann::ordered_json& body) {
  res.status = status;
  res.set_content(body.dump() + "\n", "application/json");
}

void error(httplib::Response& res, int status, const std::string& message) { reply(res, status, {{"error", message}}); }

}  // namespace

struct CollectServer::Impl {
  CollectOptions opt;
  httplib::Server server;

  void log(const httplib::Request& req, const httplib::Response& res, const std::string& what) const {
    if (opt.log) opt.log(req.remote_addr + " " + req.method + " " + req.path + " " + std::to_string(res.status) + " " + what);
  }
};

CollectServer::CollectServer(CollectOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = std::move(options);
  Impl* self = impl_.get();
  httplib::Server& s = self->server;
  s.set_payload_max_length(self->opt.max_body);
  s.set_read_timeout(10, 0);
  s.set_write_timeout(10, 0);
  // Before the body is read: no token, no work.
  s.set_pre_routing_handler([self](const httplib::Request& req, httplib::Response& res) {
    if (self->opt.token.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string auth = req.get_header_value("Authorization");
    const std::string scheme = "Bearer ";
    if (auth.rfind(scheme, 0) == 0 && same_secret(auth.substr(scheme.size()), self->opt.token))
      return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("WWW-Authenticate", "Bearer");
    error(res, 401, auth.empty() ? "a bearer token is required (Authorization: Bearer TOKEN)" : "the bearer token is not accepted");
    self->log(req, res, "refused: token");
    return httplib::Server::HandlerResponse::Handled;
  });
  s.Post(kReportsPath, [self](const httplib::Request& req, httplib::Response& res) {
    StoreReply r = store_report(self->opt.dir, req.body);
    if (r.status == 201) reply(res, 201, {{"stored", r.stored}, {"node", r.node}, {"result", r.result}});
    else error(res, r.status, r.message);
    self->log(req, res, r.message + (r.result.empty() ? "" : " (" + r.result + ")"));
  });
  s.Get(kReportsPath, [self](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Allow", "POST");
    error(res, 405, std::string("only POST ") + kReportsPath + " is served");
    self->log(req, res, "refused: method");
  });
  // Statuses the library sets itself (404 unknown path, 413 body too large) get a message too.
  s.set_error_handler([self](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 413)
      error(res, 413, "the body is larger than " + std::to_string(self->opt.max_body) + " bytes (--max-body)");
    else if (res.status == 404)
      error(res, 404, "nothing here; reports are POSTed to " + std::string(kReportsPath));
    else error(res, res.status, "request refused");
    self->log(req, res, "refused");
  });
}

CollectServer::~CollectServer() = default;

Outcome<int> CollectServer::bind() {
  const std::string& host = impl_->opt.host;
  if (impl_->opt.port == 0) {
    int port = impl_->server.bind_to_any_port(host);
    if (port <= 0) return Outcome<int>::fail("cannot listen on " + host + " (any port)");
    return port;
  }
  if (!impl_->server.bind_to_port(host, impl_->opt.port))
    return Outcome<int>::fail("cannot listen on " + host + ":" + std::to_string(impl_->opt.port) +
                              " (in use, or not an address of this machine)");
  return impl_->opt.port;
}

bool CollectServer::serve() { return impl_->server.listen_after_bind(); }

void CollectServer::stop() { impl_->server.stop(); }

bool CollectServer::running() const { return impl_->server.is_running(); }

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
