// The report receiver (collect_server.cc, report_store.cc) on 127.0.0.1, any free port:
// reports stored whole, one file per node and boot; malformed, non-report, unsafe and
// oversized bodies and missing tokens refused with their status; concurrent posts; and
// the agent's own POST (join.cc + report_post.cc) accepted byte for byte.
#include <doctest/doctest.h>

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "builder/temp_dir.h"
#include "report/fleet.h"
#include "report/fleet_topology.h"
#include "join/join.h"
#include "collect/collect_server.h"
#include "report/report_reader.h"
#include "collect/node_token.h"
#include "collect/report_store.h"
#include "support/fake_join.h"
#include "text.h"

using namespace railyard;

namespace {

const std::string kGolden = std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/";

std::string golden(const std::string& name) { return test::read_all(kGolden + name + ".json"); }

// A receiver serving on its own thread for the life of the object.
class Receiver {
 public:
  explicit Receiver(const std::string& dir, const std::string& token = "", std::size_t max_body = 8u << 20,
                    const std::string& node_secret = "")
      : Receiver(options(dir, token, max_body, node_secret)) {}
  static CollectOptions options(const std::string& dir, const std::string& token = "", std::size_t max_body = 8u << 20,
                                const std::string& node_secret = "") {
    CollectOptions o;
    o.dir = dir;
    o.token = token;
    o.node_secret = node_secret;
    o.max_body = max_body;
    return o;
  }
  explicit Receiver(CollectOptions o) {
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      log_.push_back(line);
    };
    server_ = std::make_unique<CollectServer>(o);
    auto port = server_->bind();
    REQUIRE(port.ok());
    port_ = *port;
    thread_ = std::thread([this] { server_->serve(); });
    while (!server_->running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~Receiver() {
    server_->stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + kReportsPath; }
  httplib::Result post(const std::string& body, const std::string& token = "") const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    return c.Post(kReportsPath, h, body, "application/json");
  }
  std::vector<std::string> log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

 private:
  std::unique_ptr<CollectServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<std::string> log_;
};

std::string error_of(const httplib::Result& r) { return nlohmann::json::parse(r->body).value("error", ""); }

// What the store holds beside the receive times (DIR/<node>/<boot>.received).
std::vector<std::string> stored_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() != kReceivedSuffix)
      out.push_back(std::filesystem::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string boot_of(const std::string& report) { return nlohmann::json::parse(report)["host"]["boot_id"]; }

}  // namespace

TEST_CASE("collect: a report is stored whole as DIR/<node>/<boot>.json and answered 201") {
  test::TempDir dir;
  Receiver rx(dir.path());
  std::string body = golden("hgx-pfc-link");
  auto r = rx.post(body);
  REQUIRE(r);
  CHECK(r->status == 201);
  std::string rel = "hgx-r001-n02/" + boot_of(body) + ".json";
  auto reply = nlohmann::json::parse(r->body);
  CHECK(reply["stored"] == rel);
  CHECK(reply["node"] == "hgx-r001-n02");
  CHECK(reply["result"] == "fail");
  CHECK(test::read_all(dir / rel) == body);
  CHECK(stored_files(dir.path()) == std::vector<std::string>{rel});
  // Beside it, when this receiver took it: now, to the second, not the report's started_at.
  auto received = parse_rfc3339(test::read_all(dir / ("hgx-r001-n02/" + boot_of(body) + ".received")).substr(0, 20));
  REQUIRE(received);
  CHECK(std::abs(*received - std::time(nullptr)) < 60);
  auto log = rx.log();
  REQUIRE(log.size() == 1);
  CHECK(log[0].find("POST /api/v1/reports 201 stored " + rel + " (fail)") != std::string::npos);

  // The same boot again replaces its file; another boot of the node gets its own.
  REQUIRE(rx.post(body)->status == 201);
  std::string other = body;
  other.replace(other.find(boot_of(body)), 36, "00000000-0000-4000-8000-000000000001");
  REQUIRE(rx.post(other)->status == 201);
  CHECK(stored_files(dir.path()).size() == 2);
}

TEST_CASE("collect: malformed JSON is 400, a JSON that is not a report 422, each saying why") {
  test::TempDir dir;
  Receiver rx(dir.path());
  auto bad = rx.post(R"({"schema": 1, "node": )");
  REQUIRE(bad);
  CHECK(bad->status == 400);
  CHECK(error_of(bad) == "malformed JSON: line 1, column 23: unexpected end of input; expected '[', '{', or a literal");
  auto utf8 = rx.post("{\"schema\": 1, \"node\": \"n\xff\", \"result\": \"pass\", \"checks\": []}");
  CHECK(utf8->status == 400);
  CHECK(error_of(utf8) == "malformed JSON: line 1, column 25: invalid string: ill-formed UTF-8 byte");
  auto other = rx.post(R"({"hello": "world"})");
  CHECK(other->status == 422);
  CHECK(error_of(other) == "not a railyard report: no 'schema'");
  auto no_checks = rx.post(R"({"schema": 1, "node": "n1", "result": "pass"})");
  CHECK(no_checks->status == 422);
  CHECK(error_of(no_checks) == "not a railyard report: no 'checks'");
  CHECK(rx.post("")->status == 400);
  CHECK(stored_files(dir.path()).empty());
}

TEST_CASE("collect: unsafe node names are refused and nothing is written outside DIR") {
  test::TempDir dir;
  std::string inside = dir / "reports";
  Receiver rx(inside);
  for (const char* node : {"../escape", "a/b", "..", "", "-lead", "has space", "x\\u0000y"}) {
    CAPTURE(node);
    std::string body = std::string(R"({"schema":1,"node":")") + node +
                       R"(","result":"pass","started_at":"2026-03-10T08:00:00Z","checks":[]})";
    auto r = rx.post(body);
    REQUIRE(r);
    CHECK(r->status == 422);
    CHECK(error_of(r).find(std::string(node).empty() ? "names no node" : "unsafe node name") != std::string::npos);
  }
  // Without boot id and start time a boot cannot be told apart.
  auto r = rx.post(R"({"schema":1,"node":"n1","result":"pass","checks":[]})");
  CHECK(r->status == 422);
  CHECK(error_of(r).find("neither a host.boot_id nor a started_at") != std::string::npos);
  CHECK(stored_files(dir.path()).empty());
}

TEST_CASE("report store_path: the boot id, else the start time; file names stay plain") {
  std::string why;
  CHECK(store_path("gpu-a01", "0b5c3c2e-9d6f-4c57-8a57-3f7f0e3d2a11", "2026-03-10T08:00:00Z", why) ==
        "gpu-a01/0b5c3c2e-9d6f-4c57-8a57-3f7f0e3d2a11.json");
  CHECK(store_path("gpu-a01.lab", "", "2026-03-10T08:00:00Z", why) == "gpu-a01.lab/2026-03-10T08-00-00Z.json");
  CHECK(store_path("gpu-a01", "../../x", "2026-03-10T08:00:00Z", why) == "gpu-a01/2026-03-10T08-00-00Z.json");
  CHECK(store_path("gpu-a01", "", "../x", why) == "");
  CHECK(why.find("neither") != std::string::npos);
}

TEST_CASE("collect: a body over --max-body is 413, whatever it holds") {
  test::TempDir dir;
  Receiver rx(dir.path(), "", 4096);
  auto r = rx.post(golden("hgx-pass"));
  REQUIRE(r);
  CHECK(r->status == 413);
  CHECK(error_of(r) == "the body is larger than 4096 bytes (--max-body)");
  CHECK(stored_files(dir.path()).empty());
  auto small = rx.post(R"({"schema":1,"node":"n1","result":"pass","started_at":"2026-03-10T08:00:00Z","checks":[]})");
  CHECK(small->status == 201);
}

TEST_CASE("collect: with a token, none or a wrong one is 401; the right one is stored") {
  test::TempDir dir;
  Receiver rx(dir.path(), "s3cret-token");
  std::string body = golden("hgx-pass");
  auto none = rx.post(body);
  REQUIRE(none);
  CHECK(none->status == 401);
  CHECK(none->get_header_value("WWW-Authenticate") == "Bearer");
  CHECK(error_of(none) == "a bearer token is required (Authorization: Bearer TOKEN)");
  auto wrong = rx.post(body, "s3cret-tokem");
  CHECK(wrong->status == 401);
  CHECK(error_of(wrong) == "the bearer token is not accepted");
  CHECK(rx.post(body, "s3cret-token-and-more")->status == 401);
  CHECK(stored_files(dir.path()).empty());
  CHECK(rx.post(body, "s3cret-token")->status == 201);
  CHECK(stored_files(dir.path()).size() == 1);
}

TEST_CASE("collect: other methods and paths") {
  test::TempDir dir;
  Receiver rx(dir.path());
  httplib::Client c("127.0.0.1", rx.port());
  auto get = c.Get(kReportsPath);
  REQUIRE(get);
  CHECK(get->status == 405);
  CHECK(get->get_header_value("Allow") == "POST");
  auto elsewhere = c.Post("/upload", "{}", "application/json");
  REQUIRE(elsewhere);
  CHECK(elsewhere->status == 404);
  CHECK(error_of(elsewhere) == "nothing here; reports are POSTed to /api/v1/reports");
}

TEST_CASE("collect: GET /api/v1/topology serves the reports' topology as `railyard report topology` renders it") {
  test::TempDir dir;
  Receiver rx(dir.path());
  httplib::Client c("127.0.0.1", rx.port());
  // No report yet: no units, a file slurmctld still reads.
  auto empty = c.Get(kTopologyPath);
  REQUIRE(empty);
  CHECK(empty->status == 200);
  CHECK(empty->get_header_value("X-Railyard-Left-Out") == "0");
  CHECK(empty->body.find("SwitchName=") == std::string::npos);
  // A passing node and a failing one on the same leaves.
  REQUIRE(rx.post(golden("hgx-pass"))->status == 201);
  REQUIRE(rx.post(golden("hgx-pfc-link"))->status == 201);
  auto fleet = read_fleet(dir.path());
  REQUIRE(fleet.ok());
  const Topology t = fleet_topology(*fleet);
  REQUIRE(t.units.size() == 1);
  CHECK(t.units[0].nodes == std::vector<std::string>{"hgx-r001-n01"});
  REQUIRE(t.left_out.size() == 1);
  auto tree = c.Get(kTopologyPath);
  REQUIRE(tree);
  CHECK(tree->status == 200);
  CHECK(tree->get_header_value("Content-Type") == "text/plain; charset=utf-8");
  CHECK(tree->get_header_value("X-Railyard-Left-Out") == "1");
  CHECK(tree->body == *render_topology(t, {}));
  CHECK(tree->body.find("SwitchName=su-leaf-r0 Nodes=hgx-r001-n01\n") != std::string::npos);
  auto json = c.Get(std::string(kTopologyPath) + "?format=json");
  REQUIRE(json);
  CHECK(json->get_header_value("Content-Type") == "application/json");
  CHECK(nlohmann::json::parse(json->body)["left_out"][0]["node"] == "hgx-r001-n02");
  auto spine = c.Get(std::string(kTopologyPath) + "?spine=core1");
  REQUIRE(spine);
  CHECK(spine->body.find("SwitchName=core1 Switches=su-leaf-r0") != std::string::npos);
  // What it cannot render is refused, saying what is allowed; only GET is served.
  auto yaml = c.Get(std::string(kTopologyPath) + "?format=yaml");
  REQUIRE(yaml);
  CHECK(yaml->status == 400);
  CHECK(error_of(yaml) == "unknown format 'yaml'; allowed: slurm-tree, slurm-block, json or k8s-labels");
  auto post = c.Post(kTopologyPath, "{}", "application/json");
  REQUIRE(post);
  CHECK(post->status == 405);
  CHECK(post->get_header_value("Allow") == "GET, HEAD");
}

TEST_CASE("collect: concurrent posts are each stored whole") {
  test::TempDir dir;
  Receiver rx(dir.path());
  const std::string base = golden("gpu8-nic4-no-gid");
  const std::string boot = boot_of(base);
  constexpr int kThreads = 8, kEach = 6;
  std::vector<std::thread> threads;
  std::atomic<int> created{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        std::string body = base;
        // Two writers per node: the same node and boot from two threads at once.
        std::string node = "g8-r003-n" + std::to_string(10 + t / 2);
        body.replace(body.find("g8-r003-n11"), 11, node);
        char id[40];
        std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
        body.replace(body.find(boot), 36, id);
        auto r = rx.post(body);
        if (r && r->status == 201) ++created;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(created == kThreads * kEach);
  auto files = stored_files(dir.path());
  CHECK(files.size() == kThreads / 2 * kEach);
  for (const auto& f : files) {
    CAPTURE(f);
    auto r = parse_report(test::read_all(dir / f));
    CHECK(r.ok());
  }
}

TEST_CASE("collect: what the agent POSTs (report_and_join over libcurl, with its token) is stored as its report.json") {
  test::TempDir dir;
  Receiver rx(dir.path(), "s3cret-token");
  auto loaded = parse_report(golden("gpu4-downtrained-nvmeof"));
  REQUIRE(loaded.ok());
  JoinSpec join;
  join.report_url = rx.url();
  join.token_file = "/etc/railyard/token";
  join.report_retries = 0;
  test::TempRoot root;
  test::TokenReader::reset();
  NativeJoinEffects agent;
  JoinOutcome out = report_and_join(loaded->report, join, root.str(), agent, &test::TokenReader::read);
  std::string log;
  for (const auto& l : out.log) log += l.text + "\n";
  CAPTURE(log);
  CHECK(log.find("report sent to " + rx.url()) != std::string::npos);
  std::string rel = "g4-r002-n07/" + loaded->report.host.boot_id + ".json";
  REQUIRE(stored_files(dir.path()) == std::vector<std::string>{rel});
  // The stored copy is what was sent; the node's own copy adds that attempt's outcome.
  auto stored = nlohmann::json::parse(test::read_all(dir / rel));
  auto kept = nlohmann::json::parse(root.read("/var/lib/railyard/report.json"));
  CHECK(stored["join"]["posts"] == nlohmann::json::array());
  CHECK(kept["join"]["posts"] == nlohmann::json::parse(R"([{"attempt": 1, "error": null}])"));
  CHECK(kept["join"]["posted"] == true);
  for (auto* j : {&stored, &kept}) {
    (*j)["join"].erase("posts");
    (*j)["join"].erase("posted");
  }
  CHECK(stored == kept);
}

TEST_CASE("collect: a report over 1 MiB, which libcurl sends with Expect: 100-continue, is stored") {
  test::TempDir dir;
  Receiver rx(dir.path());
  auto loaded = parse_report(golden("hgx-pfc-link"));
  REQUIRE(loaded.ok());
  loaded->report.checks[0].detail = std::string(1500000, 'x');  // a very long kernel message
  std::string body = to_json(loaded->report).dump(2) + "\n";
  REQUIRE(body.size() > (1u << 20));
  NativeJoinEffects agent;
  CHECK(agent.post(rx.url(), body, "", "", 10000) == "");
  CHECK(test::read_all(dir / ("hgx-r001-n02/" + loaded->report.host.boot_id + ".json")) == body);
}

// Hostile and careless clients, byte by byte over a raw socket (tests/report/collect_test.cc).
namespace {

class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  // False once the server has closed its side (EPIPE, reset).
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // Everything until the server closes the connection (or 5 s pass).
  std::string read_all() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

}  // namespace

TEST_CASE("collect: a chunked body is bounded like any other: 413, nothing stored, the connection closed") {
  test::TempDir dir;
  Receiver rx(dir.path(), "", 64u << 10);
  auto post_chunked = [&](int chunks) {
    RawClient c(rx.port());
    REQUIRE(c.connected());
    c.send(
        "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n");
    const std::string chunk(8192, ' ');
    bool open = true;
    for (int i = 0; i < chunks && open; ++i) open = c.send("2000\r\n" + chunk + "\r\n");
    if (open) c.send("0\r\n\r\n");
    return std::pair{open, c.read_all()};
  };
  // Over the limit: read to its end and refused.
  auto [sent, answer] = post_chunked(12);  // 96 KiB
  CHECK(sent);
  CHECK(answer.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(answer.find("larger than 65536 bytes (--max-body)") != std::string::npos);
  // Far over it (200 MiB offered): the connection is closed once past twice the limit.
  auto [all_sent, cut] = post_chunked(25600);
  CHECK_FALSE(all_sent);
  CHECK(cut.find("201") == std::string::npos);
  CHECK(stored_files(dir.path()).empty());
  auto log = rx.log();
  REQUIRE(log.size() >= 2);
  CHECK(log[1].find(" 413 closed: the body goes on past twice --max-body (65536 bytes)") != std::string::npos);
}

TEST_CASE("collect: 200 slow clients do not hold up a valid report") {
  test::TempDir dir;
  Receiver rx(dir.path());
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 200; ++i) {
    slow.push_back(std::make_unique<RawClient>(rx.port()));
    REQUIRE(slow.back()->connected());
    slow.back()->send("POST /api/v1/rep");  // and then nothing more, for now
  }
  auto start = std::chrono::steady_clock::now();
  httplib::Client c("127.0.0.1", rx.port());
  c.set_connection_timeout(1);
  c.set_read_timeout(1);
  auto r = c.Post(kReportsPath, golden("hgx-pass"), "application/json");
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(r);
  CHECK(r->status == 201);
  CHECK(ms < 1000);
  for (auto& s : slow) s->send("o");  // still served, one byte at a time
}

TEST_CASE("collect: request headers are bounded (431), in count and in size") {
  test::TempDir dir;
  Receiver rx(dir.path());
  RawClient c(rx.port());
  c.send("POST /api/v1/reports HTTP/1.1\r\nHost: x\r\n");
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";  // about 200 KiB
  c.send(many);
  std::string answer = c.read_all();
  CHECK(answer.rfind("HTTP/1.1 431", 0) == 0);
}

TEST_CASE("collect: after a refusal the connection is closed: an unread body is never a second request") {
  test::TempDir dir;
  Receiver rx(dir.path(), "s3cret-token");
  std::string smuggled = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  RawClient c(rx.port());
  c.send("POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(smuggled.size()) + "\r\n\r\n" + smuggled);
  std::string answer = c.read_all();
  CHECK(answer.rfind("HTTP/1.1 401", 0) == 0);
  CHECK(count_of(answer, "HTTP/1.1 ") == 1);
  CHECK(answer.find("Connection: close") != std::string::npos);

  // No 100 Continue for a client without the token: the refusal comes first, and alone.
  RawClient e(rx.port());
  e.send("POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n");
  std::string refused = e.read_all();
  CHECK(refused.rfind("HTTP/1.1 401", 0) == 0);
  CHECK(refused.find("100 Continue") == std::string::npos);
}

TEST_CASE("collect: what the client sends reaches the log escaped: no forged lines, no terminal sequences") {
  test::TempDir dir;
  Receiver rx(dir.path());
  httplib::Client c("127.0.0.1", rx.port());
  auto r =
      c.Post("/x%0d%0a127.0.0.1%20POST%20/api/v1/reports%20201%20stored%20evil/1.json%1b[2J", "{}", "application/json");
  REQUIRE(r);
  CHECK(r->status == 404);
  auto log = rx.log();
  REQUIRE(log.size() == 1);
  CHECK(log[0].find_first_of("\r\n\x1b") == std::string::npos);
  CHECK(log[0].find("/x\\x0d\\x0a127.0.0.1 POST /api/v1/reports 201 stored evil/1.json\\x1b[2J 404 refused:") !=
        std::string::npos);
}

TEST_CASE("collect: a report is accepted whatever its content type says, beyond 8 KiB too") {
  test::TempDir dir;
  Receiver rx(dir.path());
  std::string body = golden("hgx-pfc-link");
  REQUIRE(body.size() > 8192);
  httplib::Client c("127.0.0.1", rx.port());
  for (const char* type : {"application/x-www-form-urlencoded", "text/plain", "multipart/form-data"}) {
    CAPTURE(type);
    auto r = c.Post(kReportsPath, body, type);
    REQUIRE(r);
    CHECK(r->status == 201);
  }
}

TEST_CASE("collect: other methods get 405 with Allow; /healthz and /metrics answer without a token") {
  test::TempDir dir;
  Receiver rx(dir.path(), "s3cret-token");
  httplib::Client c("127.0.0.1", rx.port());
  auto put = c.Put(kReportsPath, "{}", "application/json");
  REQUIRE(put);
  CHECK(put->status == 405);
  CHECK(put->get_header_value("Allow") == "POST");
  auto del = c.Delete(kReportsPath);
  REQUIRE(del);
  CHECK(del->status == 405);
  auto health = c.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  CHECK(health->body == "{\"status\":\"ok\"}\n");
  CHECK(rx.post(golden("hgx-pass"), "s3cret-token")->status == 201);
  CHECK(rx.post("{", "s3cret-token")->status == 400);
  CHECK(rx.post(golden("hgx-pass"))->status == 401);
  auto metrics = c.Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->status == 200);
  CHECK(metrics->get_header_value("Content-Type").rfind("text/plain", 0) == 0);
  const std::string& m = metrics->body;
  CHECK(m.find("\nrailyard_collect_reports_stored_total 1\n") != std::string::npos);
  CHECK(m.find("railyard_collect_report_bytes_total " + std::to_string(golden("hgx-pass").size()) + "\n") !=
        std::string::npos);
  CHECK(m.find("railyard_collect_requests_refused_total{reason=\"malformed\"} 1\n") != std::string::npos);
  CHECK(m.find("railyard_collect_requests_refused_total{reason=\"token\"} 1\n") != std::string::npos);
  CHECK(m.find("railyard_collect_requests_refused_total{reason=\"method\"} 2\n") != std::string::npos);
  CHECK(m.find("railyard_collect_report_seconds_count 2\n") != std::string::npos);
}

// What a report claims, checked against the receiver's clock and its own checks.
namespace {

constexpr std::int64_t kNow = 1773129660;  // 2026-03-10T08:01:00Z, the goldens' start

std::string edited(const std::string& name, const std::function<void(nlohmann::ordered_json&)>& edit) {
  auto j = nlohmann::ordered_json::parse(golden(name));
  edit(j);
  return j.dump(2) + "\n";
}

}  // namespace

TEST_CASE("report store: started_at must be RFC 3339 and not more than a day ahead of the receiver's clock") {
  test::TempDir dir;
  auto at = [&](const std::string& started) {
    return store_report(dir.path(), edited("hgx-pass", [&](auto& j) { j["started_at"] = started; }), kNow);
  };
  CHECK(at("2026-03-10T08:01:00Z").status == 201);
  CHECK(at("2026-03-11T08:00:00Z").status == 201);  // a clock a little ahead is tolerated
  auto future = at("9999-12-31T23:59:59Z");
  CHECK(future.status == 422);
  CHECK(future.message == "started_at 9999-12-31T23:59:59Z is more than a day ahead of this receiver's clock");
  auto junk = at("not a date");
  CHECK(junk.status == 422);
  CHECK(junk.message == "started_at 'not a date' is not an RFC 3339 date-time (e.g. 2026-03-10T08:01:00Z)");
}

TEST_CASE("report store: no stored name starts with a dot; node names are kept in lower case") {
  test::TempDir dir;
  auto hidden = store_report(dir.path(),
                             edited("hgx-pass",
                                    [](auto& j) {
                                      j["host"]["boot_id"] = "";
                                      j["started_at"] = ".hidden";
                                    }),
                             kNow);
  CHECK(hidden.status == 422);
  std::string why;
  CHECK(store_path("n1", ".x", ".y", why) == "");
  CHECK(store_path("n1", ".x", "2026-03-10T08:01:00Z", why) == "n1/2026-03-10T08-01-00Z.json");
  CHECK(store_path("OK1", "b1", "", why) == "ok1/b1.json");
  auto upper = store_report(dir.path(), edited("hgx-pass", [](auto& j) { j["node"] = "HGX-R001-N01"; }), kNow);
  REQUIRE(upper.status == 201);
  CHECK(upper.node == "hgx-r001-n01");
  CHECK(store_report(dir.path(), golden("hgx-pass"), kNow).stored == upper.stored);
  CHECK(stored_files(dir.path()).size() == 1);
}

TEST_CASE("report store: a result that contradicts the report's own checks is refused, saying which") {
  test::TempDir dir;
  auto green = store_report(dir.path(), edited("hgx-pfc-link", [](auto& j) { j["result"] = "pass"; }), kNow);
  CHECK(green.status == 422);
  CHECK(green.message.rfind("'result' is \"pass\" but ", 0) == 0);
  CHECK(green.message.find("rail.5.pfc (fail)") != std::string::npos);
  CHECK(green.message.find(" count against the node") != std::string::npos);
  auto red = store_report(dir.path(), edited("hgx-pass", [](auto& j) { j["result"] = "fail"; }), kNow);
  CHECK(red.status == 422);
  CHECK(red.message == "'result' is \"fail\" but no check counts against the node and planning found no problem");
  CHECK(stored_files(dir.path()).empty());
}

TEST_CASE("report store: temporaries a killed receiver left are removed, reports kept") {
  test::TempDir dir;
  dir.write("n1/b1.json", golden("hgx-pass"));
  dir.write("n1/.b2.json.Ab3dE9", "{\"half\": ");
  dir.write("n2/.b1.json.zzzzzz", "");
  dir.write("n2/.notes", "kept: not a temporary");
  dir.write("n2/.b1.received.k2Lm0q", "");
  CHECK(remove_leftover_temporaries(dir.path()) == 3);
  CHECK(stored_files(dir.path()) == std::vector<std::string>{"n1/b1.json", "n2/.notes"});
}

TEST_CASE("node_token: HMAC-SHA256 of the lower-cased host name, in hex") {
  // python3 -c "import hmac,hashlib; print(hmac.new(b'0123456789abcdef-fleet', b'gpu-a01',
  // hashlib.sha256).hexdigest())"
  const std::string want = "a7a3b512bbff859207b5641f505be8dca70b90a34d44c754e73d14b044e2fad3";
  CHECK(node_token("0123456789abcdef-fleet", "gpu-a01") == want);
  CHECK(node_token("0123456789abcdef-fleet", "GPU-A01") == want);
  CHECK(node_token("0123456789abcdef-fleeT", "gpu-a01") != want);
  test::TempDir dir;
  dir.write("short", "too short\n");
  dir.write("good", "0123456789abcdef-fleet\n");
  CHECK(read_node_secret(dir / "good").ok());
  CHECK(*read_node_secret(dir / "good") == "0123456789abcdef-fleet");
  auto bad = read_node_secret(dir / "short");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("the node secret is 9 bytes; at least 16 are needed") != std::string::npos);
}

TEST_CASE("collect --node-secret: a node posts its own report only; the fleet token still works beside it") {
  test::TempDir dir;
  const std::string secret = "0123456789abcdef-fleet";
  Receiver rx(dir.path(), "fleet-token", 8u << 20, secret);
  const std::string body = golden("hgx-pass");  // node hgx-r001-n01
  CHECK(rx.post(body, node_token(secret, "hgx-r001-n01"))->status == 201);
  CHECK(rx.post(body, node_token(secret, "HGX-R001-N01"))->status == 201);  // names without case
  auto other = rx.post(body, node_token(secret, "hgx-r001-n02"));
  REQUIRE(other);
  CHECK(other->status == 403);
  CHECK(error_of(other) == "the bearer token is not hgx-r001-n01's (each node posts with its own token)");
  auto none = rx.post(body);
  REQUIRE(none);
  CHECK(none->status == 401);
  CHECK(rx.post(body, "fleet-token")->status == 201);
  CHECK(stored_files(dir.path()).size() == 1);
}

namespace {

// A report of node `node`, boot `boot`, passing, with `extra` members added at the top.
std::string small_report(const std::string& node, const std::string& boot, const std::string& extra = "") {
  return R"({"schema":1,"node":")" + node + R"(","result":"pass","host":{"boot_id":")" + boot +
         R"("},"started_at":"2026-03-10T08:00:00Z","checks":[])" + extra + "}";
}

std::string metric(const std::string& text, const std::string& line_start) {
  for (const auto& line : split(text, '\n'))
    if (line.rfind(line_start + " ", 0) == 0) return line.substr(line_start.size() + 1);
  return "";
}

}  // namespace

TEST_CASE("collect: a number no double holds is a 400 naming its place, and the receiver keeps serving") {
  test::TempDir dir;
  const std::string secret = "0123456789abcdef-fleet";
  Receiver rx(dir.path(), "", 8u << 20, secret);
  const std::string token = node_token(secret, "n1");
  for (const std::string& body :
       {small_report("n1", "b1", R"(,"plan":{"rails":[1e999]})"), small_report("n1", "b1", R"(,"future":-1e999)"),
        std::string(R"({"schema":1e999,"node":"n1","result":"pass","checks":[]})"),
        small_report("n1", "b1", R"(,"phases":[{"phase":"apply","ms":1e999}])")}) {
    CAPTURE(body);
    auto r = rx.post(body, token);
    REQUIRE(r);
    CHECK(r->status == 400);
    CHECK(error_of(r).find("number out of range") != std::string::npos);
    CHECK(error_of(r).find("line 1, column ") != std::string::npos);
  }
  // Without a valid token too: the token is checked before the body is read whole.
  CHECK(rx.post(small_report("n1", "b1", R"(,"x":1e999)"), "junk")->status == 403);
  CHECK(rx.post(small_report("n1", "b1"), token)->status == 201);
  CHECK(rx.post("{}", "")->status == 401);
}

TEST_CASE("collect --node-secret: another node's token is refused before the body is parsed whole") {
  test::TempDir dir;
  const std::string secret = "0123456789abcdef-fleet";
  Receiver rx(dir.path(), "", 8u << 20, secret);
  // The body is not JSON past its node: a body parsed first would be a 400.
  auto r = rx.post(R"({"node":"n1","plan":[{},{},,{}]})", node_token(secret, "n2"));
  REQUIRE(r);
  CHECK(r->status == 403);
  CHECK(error_of(r) == "the bearer token is not n1's (each node posts with its own token)");
  // A body that names no node is read whole, and refused for what it is.
  CHECK(rx.post(R"({"plan":[{},{)", node_token(secret, "n2"))->status == 400);
  CHECK(stored_files(dir.path()).empty());
}

TEST_CASE("collect: the bodies of all requests at once are bounded; past the budget 503 with Retry-After") {
  test::TempDir dir;
  CollectOptions o = Receiver::options(dir.path());
  o.max_body = 64u << 10;
  o.max_buffered = 100u << 10;  // one 64 KiB body at a time
  Receiver rx(o);
  // A client that declares 60 KiB and sends half holds its share of the budget.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(rx.port()));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  std::string head = std::string("POST ") + kReportsPath + " HTTP/1.1\r\nHost: x\r\nContent-Length: 61440\r\n\r\n" +
                     std::string(30000, ' ');
  REQUIRE(::send(fd, head.data(), head.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // A second of that size does not fit beside it: refused before its body is read.
  httplib::Client c("127.0.0.1", rx.port());
  auto busy = c.Post(kReportsPath, std::string(61440, ' '), "application/json");
  REQUIRE(busy);
  CHECK(busy->status == 503);
  CHECK(busy->get_header_value("Retry-After") == "5");
  CHECK(error_of(busy).find("--max-buffered") != std::string::npos);
  // A small report still fits.
  CHECK(rx.post(small_report("n1", "b1"))->status == 201);
  ::close(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Once the first client is gone its share is given back.
  CHECK(c.Post(kReportsPath, small_report("n1", "b2") + std::string(61000, ' '), "application/json")->status == 201);
  auto m = c.Get("/metrics");
  REQUIRE(m);
  CHECK(metric(m->body, "railyard_collect_requests_refused_total{reason=\"busy\"}") == "1");
  // Each request's share is given back when the server has done with its connection.
  std::string held;
  for (int i = 0; i < 100 && (held = metric(c.Get("/metrics")->body, "railyard_collect_buffered_bytes")) != "0"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(held == "0");
}

TEST_CASE("collect: each node keeps its newest --keep-boots reports; pruned ones are counted") {
  test::TempDir dir;
  CollectOptions o = Receiver::options(dir.path());
  o.limits.keep_boots = 3;
  Receiver rx(o);
  for (int i = 0; i < 5; ++i) {
    REQUIRE(rx.post(small_report("n1", "boot" + std::to_string(i)))->status == 201);
    std::this_thread::sleep_for(std::chrono::milliseconds(15));  // modification times apart
  }
  REQUIRE(rx.post(small_report("n2", "only"))->status == 201);
  CHECK(stored_files(dir.path()) ==
        std::vector<std::string>{"n1/boot2.json", "n1/boot3.json", "n1/boot4.json", "n2/only.json"});
  CHECK_FALSE(std::filesystem::exists(dir / "n1/boot0.received"));
  httplib::Client c("127.0.0.1", rx.port());
  CHECK(metric(c.Get("/metrics")->body, "railyard_collect_reports_pruned_total") == "2");
}

TEST_CASE("collect --nodes: a node the inventory does not name is refused (403) and counted") {
  test::TempDir dir;
  CollectOptions o = Receiver::options(dir.path());
  o.limits.known = [](const std::string& node) { return node == "gpu-a01"; };
  Receiver rx(o);
  CHECK(rx.post(small_report("GPU-A01", "b1"))->status == 201);
  auto other = rx.post(small_report("gpu-z99", "b1"));
  REQUIRE(other);
  CHECK(other->status == 403);
  CHECK(error_of(other) == "node gpu-z99 is not in this receiver's inventory (--nodes)");
  httplib::Client c("127.0.0.1", rx.port());
  CHECK(metric(c.Get("/metrics")->body, "railyard_collect_requests_refused_total{reason=\"unknown_node\"}") == "1");
  CHECK(stored_files(dir.path()) == std::vector<std::string>{"gpu-a01/b1.json"});
}

TEST_CASE("collect: the store is bounded in bytes (507), and a replaced report gives its bytes back") {
  test::TempDir dir;
  CollectOptions o = Receiver::options(dir.path());
  std::string a = small_report("n1", "b1"), b = small_report("n2", "b1");
  std::size_t each = a.size() + std::string("2026-03-10T08:00:00Z\n").size();
  o.limits.max_bytes = 2 * each + 10;
  Receiver rx(o);
  CHECK(rx.post(a)->status == 201);
  CHECK(rx.post(a)->status == 201);  // the same boot again: replaced, not added
  CHECK(rx.post(b)->status == 201);
  auto full = rx.post(small_report("n3", "b1"));
  REQUIRE(full);
  CHECK(full->status == 507);
  CHECK(error_of(full).find("--max-store-bytes") != std::string::npos);
  httplib::Client c("127.0.0.1", rx.port());
  std::string m = c.Get("/metrics")->body;
  CHECK(metric(m, "railyard_collect_requests_refused_total{reason=\"store_full\"}") == "1");
  CHECK(metric(m, "railyard_collect_store_bytes") == std::to_string(2 * each));
  // A receiver started on the same directory counts what is there.
  CHECK(ReportStore(dir.path(), {0, 1, {}}).bytes() == 2 * each);
}

TEST_CASE("collect: a store that cannot write tells the client what, never the receiver's paths") {
  // A file where the node's directory goes stops the write, even for root.
  test::TempDir dir;
  std::string store = dir / "secret-store-path";
  dir.write("secret-store-path/n1", "not a directory");
  Receiver rx(store);
  auto r = rx.post(small_report("n1", "b1"));
  REQUIRE(r);
  CHECK(r->status == 500);
  CHECK(error_of(r) == "the receiver could not store n1/b1.json (its log says why)");
  bool logged = false;
  for (const auto& line : rx.log()) logged |= line.find("secret-store-path") != std::string::npos;
  CHECK(logged);
}
