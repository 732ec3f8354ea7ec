// builder/image/fetch.cc: fetch_verified against an HTTP server of the test's own on 127.0.0.1 that
// answers each request as the case needs: whole, cut off, trickling, corrupt, missing.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include "builder/temp_dir.h"
#include "image/fetch.h"
#include "image/openssl_hasher.h"
#include "support/fake_clock.h"

using namespace railyard;
using namespace railyard::test;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct Request {
  std::string path;
  std::string range;  // the Range header's value, "" when none
};

// Serves one connection per request (Connection: close). The handler gets the request
// number (0 first) and writes a raw response; returning is closing the connection.
class TestServer {
 public:
  using Handler = std::function<void(int n, const Request&, int fd)>;
  explicit TestServer(Handler h) : handler_(std::move(h)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    REQUIRE(::listen(fd_, 8) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~TestServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::string url(const std::string& path = "/bundle.tar.zst") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::vector<Request> requests() {
    std::lock_guard<std::mutex> g(mu_);
    return requests_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      timeval tv{5, 0};
      ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::string req;
      char buf[4096];
      while (req.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        req.append(buf, static_cast<std::size_t>(n));
      }
      Request r;
      auto sp = req.find(' ');
      r.path = req.substr(sp + 1, req.find(' ', sp + 1) - sp - 1);
      auto range = req.find("\r\nRange: bytes=");
      if (range != std::string::npos) r.range = req.substr(range + 15, req.find("\r\n", range + 2) - range - 15);
      int n;
      {
        std::lock_guard<std::mutex> g(mu_);
        n = static_cast<int>(requests_.size());
        requests_.push_back(r);
      }
      handler_(n, r, c);
      ::close(c);
    }
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<Request> requests_;
};

bool send_all(int fd, const std::string& s) {
  return ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
}

const std::string kBody = [] {
  std::string s;
  for (int i = 0; i < 200000; ++i) s += static_cast<char>((i * 131) % 251);
  return s;
}();
const std::string kSha = OpenSslHasher().sha256_hex(kBody);

void ok_200(int fd, const std::string& body) {
  send_all(
      fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
}

// 206 for "START-", else 200.
void ranged(const Request& r, int fd, const std::string& body) {
  if (r.range.empty()) return ok_200(fd, body);
  std::size_t start = std::stoul(r.range);
  send_all(fd, "HTTP/1.1 206 Partial Content\r\nContent-Length: " + std::to_string(body.size() - start) +
                   "\r\nContent-Range: bytes " + std::to_string(start) + "-" + std::to_string(body.size() - 1) + "/" +
                   std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body.substr(start));
}

struct Recorder {
  test::FakeClock clock;
  std::vector<std::chrono::milliseconds>& sleeps = clock.sleeps;
  std::vector<std::string> lines;
  FetchOptions options() {
    FetchOptions o;
    o.clock = &clock;
    o.log = [this](const std::string& l) { lines.push_back(l); };
    return o;
  }
};

}  // namespace

TEST_CASE("a complete download lands under its name, verified, with nothing beside it") {
  TempDir tmp;
  TestServer server([](int, const Request&, int fd) { ok_200(fd, kBody); });
  auto r = fetch_verified(server.url(), kSha, tmp / "cache/bundle.tar.zst");
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->bytes == kBody.size());
  CHECK(r->attempts == 1);
  CHECK_FALSE(r->resumed);
  CHECK(read_all(tmp / "cache/bundle.tar.zst") == kBody);
  CHECK_FALSE(fs::exists(tmp / "cache/bundle.tar.zst.part"));
  // Already there: no request at all.
  r = fetch_verified(server.url(), kSha, tmp / "cache/bundle.tar.zst");
  REQUIRE(r.ok());
  CHECK(r->already_present);
  CHECK(r->attempts == 0);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("a transfer cut off halfway resumes with a Range request") {
  TempDir tmp;
  TestServer server([](int n, const Request& r, int fd) {
    if (n == 0) {  // promises everything, sends half, hangs up
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(kBody.size()) + "\r\n\r\n" +
                       kBody.substr(0, kBody.size() / 2));
      return;
    }
    ranged(r, fd, kBody);
  });
  Recorder rec;
  auto r = fetch_verified(server.url(), kSha, tmp / "b", rec.options());
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->attempts == 2);
  CHECK(r->resumed);
  CHECK(read_all(tmp / "b") == kBody);
  auto reqs = server.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].range.empty());
  CHECK(reqs[1].range == std::to_string(kBody.size() / 2) + "-");
  CHECK(rec.sleeps == std::vector<std::chrono::milliseconds>{1000ms});
}

TEST_CASE("a partial file left by an earlier run is resumed; a server ignoring Range starts it over") {
  TempDir tmp;
  tmp.write("b.part", kBody.substr(0, 1000));
  {
    TestServer server([](int, const Request& r, int fd) { ranged(r, fd, kBody); });
    auto r = fetch_verified(server.url(), kSha, tmp / "b");
    REQUIRE_MESSAGE(r.ok(), r.error());
    CHECK(r->resumed);
    CHECK(server.requests()[0].range == "1000-");
  }
  fs::remove(tmp / "b");
  tmp.write("b.part", "garbage that is no prefix of the file");
  TestServer server([](int, const Request&, int fd) { ok_200(fd, kBody); });
  auto r = fetch_verified(server.url(), kSha, tmp / "b");
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK_FALSE(r->resumed);
  CHECK(read_all(tmp / "b") == kBody);
}

TEST_CASE("a corrupt body is deleted and reported with expected and actual digests, without retrying") {
  TempDir tmp;
  std::string bad = kBody;
  bad[1234] ^= 0x20;
  TestServer server([&](int, const Request&, int fd) { ok_200(fd, bad); });
  auto r = fetch_verified(server.url(), kSha, tmp / "b");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == server.url() + ": sha256 mismatch: expected " + kSha + ", got " + OpenSslHasher().sha256_hex(bad) +
                         " (200000 bytes; deleted)");
  CHECK_FALSE(fs::exists(tmp / "b"));
  CHECK_FALSE(fs::exists(tmp / "b.part"));
  CHECK(server.requests().size() == 1);
}

TEST_CASE("a resumed transfer that comes out wrong is fetched whole once more") {
  TempDir tmp;
  tmp.write("b.part", std::string(1000, 'x'));  // not the file's first bytes
  TestServer server([](int, const Request& r, int fd) { ranged(r, fd, kBody); });
  Recorder rec;
  auto r = fetch_verified(server.url(), kSha, tmp / "b", rec.options());
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(read_all(tmp / "b") == kBody);
  auto reqs = server.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].range == "1000-");
  CHECK(reqs[1].range.empty());
}

TEST_CASE("a server too slow is abandoned, then the retry resumes") {
  TempDir tmp;
  std::atomic<std::size_t> trickled{0};
  TestServer server([&](int n, const Request& r, int fd) {
    if (n == 0) {
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(kBody.size()) + "\r\n\r\n");
      for (std::size_t i = 0; i < 100; ++i) {                 // 10 bytes per 100 ms: 100 B/s, for at most 10 s
        if (!send_all(fd, kBody.substr(i * 10, 10))) return;  // the client hung up
        trickled = (i + 1) * 10;
        std::this_thread::sleep_for(100ms);
      }
      return;
    }
    ranged(r, fd, kBody);
  });
  Recorder rec;
  FetchOptions o = rec.options();
  o.low_speed_bytes = 1000;
  o.low_speed_seconds = 1;
  auto start = std::chrono::steady_clock::now();
  auto r = fetch_verified(server.url(), kSha, tmp / "b", o);
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  CHECK(r->attempts == 2);
  CHECK(r->resumed);
  CHECK(read_all(tmp / "b") == kBody);
  REQUIRE(rec.lines.size() >= 2);
  CHECK(rec.lines[0].find("slower than 1000 bytes/s for 1 s") != std::string::npos);
  // The retry asked for the rest of what had trickled in.
  REQUIRE(server.requests().size() == 2);
  CHECK(std::stoul(server.requests()[1].range) > 0);
  CHECK(std::stoul(server.requests()[1].range) <= trickled);
}

TEST_CASE("404 fails at once with the status; 503 is retried with a growing backoff") {
  TempDir tmp;
  {
    TestServer server([](int, const Request&, int fd) {
      send_all(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot here\n");
    });
    Recorder rec;
    auto r = fetch_verified(server.url(), kSha, tmp / "b", rec.options());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == server.url() + ": HTTP 404 (not retried)");
    CHECK(server.requests().size() == 1);
    CHECK(rec.sleeps.empty());
    CHECK_FALSE(fs::exists(tmp / "b"));
  }
  TestServer server([](int n, const Request& r, int fd) {
    if (n < 3) send_all(fd, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n");
    else ranged(r, fd, kBody);
  });
  Recorder rec;
  auto r = fetch_verified(server.url(), kSha, tmp / "b", rec.options());
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->attempts == 4);
  CHECK(rec.sleeps == std::vector<std::chrono::milliseconds>{1000ms, 2000ms, 4000ms});
}

TEST_CASE("retries are bounded; refused connections; bad input") {
  TempDir tmp;
  int port;
  {
    TestServer gone([](int, const Request&, int) {});
    port = std::stoi(gone.url().substr(17));
  }
  Recorder rec;
  FetchOptions o = rec.options();
  o.attempts = 3;
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/x";
  auto r = fetch_verified(url, kSha, tmp / "b", o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().rfind(url + ": gave up after 3 attempts; last: ", 0) == 0);
  CHECK(rec.sleeps.size() == 2);
  CHECK_FALSE(fs::exists(tmp / "b"));

  r = fetch_verified("ftp://127.0.0.1/x", kSha, tmp / "b");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "ftp://127.0.0.1/x: only http:// and https:// URLs are fetched");
  r = fetch_verified(url, "abc", tmp / "b");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().rfind(url + ": expected sha256 'abc': ", 0) == 0);
}

TEST_CASE("https with a CA file that does not exist fails at once, naming the problem") {
  TempDir tmp;
  TestServer server([](int, const Request&, int) {});
  FetchOptions o;
  o.ca_file = tmp / "missing-ca.pem";
  std::string url = "https://127.0.0.1:" + server.url().substr(17);
  auto r = fetch_verified(url, kSha, tmp / "b", o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == url + ": error setting certificate file: " + tmp / "missing-ca.pem" + " (not retried)");
}
