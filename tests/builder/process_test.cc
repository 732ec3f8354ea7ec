// The one fork/exec runner both programs use (core/io/process.h), against real children.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "io/process.h"
#include "temp_dir.h"

using namespace railyard;
using namespace std::chrono_literals;

namespace {

ProcessResult sh(const std::string& script, ProcessSpec spec = {}) {
  spec.argv = {"/bin/sh", "-c", script};
  return run_process(spec);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("run_process: the exit status and the captured standard output") {
  ProcessResult r = sh("echo out; exit 3", {.capture = true});
  CHECK(r.status == 3);
  CHECK(r.out == "out\n");
  CHECK(r.error.empty());
  CHECK(r.how() == "exit 3");
  CHECK(sh("true").ok());
}

TEST_CASE("run_process: a program that cannot be run is 127, named with why") {
  ProcessResult r = run_process({.argv = {"railyard-no-such-program"}});
  CHECK(r.status == 127);
  CHECK(r.error == "railyard-no-such-program: No such file or directory");
  CHECK(r.how() == r.error);
  CHECK(run_process({}).error == "no command");
}

TEST_CASE("run_process: the capture keeps its limit and still reads the child to its end") {
  // 1 MiB through a pipe that holds 64 KiB: a reader that stopped at the limit would hang it.
  ProcessResult r = sh("head -c 1048576 /dev/zero; echo done >&2; exit 0", {.capture = true, .capture_limit = 10});
  CHECK(r.ok());
  CHECK(r.out.size() == 10);
}

TEST_CASE("run_process: a deadline kills the child, status 124") {
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = sh("exec sleep 30", {.timeout = 200ms});
  CHECK(r.status == 124);
  CHECK(r.error == "timed out after 200 ms");
  CHECK(std::chrono::steady_clock::now() - t0 < 10s);
  // Also while the capture is still open. (`exec`: the deadline kills the child, not what the
  // child started; a shell's own `sleep` would outlive it and hold the test's output open.)
  auto t1 = std::chrono::steady_clock::now();
  r = sh("echo partial; exec sleep 30", {.capture = true, .timeout = 200ms});
  CHECK(r.status == 124);
  CHECK(r.out == "partial\n");
  CHECK(std::chrono::steady_clock::now() - t1 < 10s);
  // A quick one is not waited for to its deadline.
  t0 = std::chrono::steady_clock::now();
  CHECK(sh("exit 0", {.timeout = 30s}).ok());
  CHECK(std::chrono::steady_clock::now() - t0 < 10s);
}

TEST_CASE("run_process: a child killed by a signal says so") {
  ProcessResult r = sh("kill -9 $$");
  CHECK(r.status == 128 + 9);
  CHECK(r.error == "killed by signal 9");
}

TEST_CASE("run_process: the environment is the caller's with the spec's added or replacing") {
  ::setenv("RAILYARD_PROCESS_TEST_KEEP", "kept", 1);
  ::setenv("RAILYARD_PROCESS_TEST_SET", "old", 1);
  ProcessResult r = sh("echo $RAILYARD_PROCESS_TEST_KEEP $RAILYARD_PROCESS_TEST_SET $RAILYARD_PROCESS_TEST_NEW",
                       {.env = {"RAILYARD_PROCESS_TEST_SET=new", "RAILYARD_PROCESS_TEST_NEW=added"}, .capture = true});
  CHECK(r.out == "kept new added\n");
  ::unsetenv("RAILYARD_PROCESS_TEST_KEEP");
  ::unsetenv("RAILYARD_PROCESS_TEST_SET");
}

TEST_CASE("run_process: standard input is /dev/null and no descriptor of ours reaches the child") {
  CHECK(sh("cat", {.capture = true, .timeout = 10s}).out.empty());
  int fd = ::open("/dev/null", O_RDONLY);  // without O_CLOEXEC, as a careless library might
  REQUIRE(fd > 2);
  CHECK(sh("[ -e /dev/fd/" + std::to_string(fd) + " ]").status == 1);
  ::close(fd);
}

TEST_CASE("run_process: a descriptor handed to the child keeps its number there; others do not reach it") {
  int pair[2];
  REQUIRE(::pipe2(pair, O_CLOEXEC) == 0);
  ProcessSpec spec{.capture = true, .timeout = 10s};
  spec.pass_fds = {pair[1]};
  std::string w = std::to_string(pair[1]), r = std::to_string(pair[0]);
  ProcessResult res = sh("echo through >&" + w + "; [ -e /dev/fd/" + r + " ] && echo leaked; true", spec);
  CHECK(res.ok());
  CHECK(res.out.empty());
  ::close(pair[1]);
  char buf[16] = {};
  CHECK(::read(pair[0], buf, sizeof buf) == 8);
  CHECK(std::string(buf) == "through\n");
  ::close(pair[0]);
  spec.pass_fds = {1};
  CHECK(sh("true", spec).status == 127);
  spec.pass_fds = {pair[0]};  // closed now; no capture pipe, which would take its number again
  spec.capture = false;
  CHECK(sh("true", spec).error.find("cannot be handed") != std::string::npos);
}

TEST_CASE("run_process: with a log, standard error (and output unless captured) is appended to it") {
  test::TempDir dir;
  std::string log = dir / "run.log";
  std::ofstream(log) << "before\n";
  CHECK(sh("echo to-out; echo to-err >&2", {.log_path = log}).ok());
  ProcessResult r = sh("echo captured; echo again-err >&2", {.log_path = log, .capture = true});
  CHECK(r.out == "captured\n");
  CHECK(read_all(log) == "before\nto-out\nto-err\nagain-err\n");
  // A log that cannot be opened is the error.
  r = sh("true", {.log_path = dir / "no/such/dir/run.log"});
  CHECK(r.status == 127);
  CHECK(r.error == (dir / "no/such/dir/run.log") + ": No such file or directory");
}

TEST_CASE("Process: started in the background, waited for, stopped") {
  auto p = Process::start({.argv = {"sleep", "30"}, .die_with_caller = true});
  REQUIRE(p.ok());
  Process& child = **p;
  CHECK(child.running());
  CHECK(child.how_it_ended().empty());
  CHECK_FALSE(child.wait_until(Process::Clock::now() + 50ms));
  child.stop();
  CHECK_FALSE(child.running());
  CHECK(child.how_it_ended() == "killed by signal 15");
  CHECK(child.status() == 128 + 15);

  auto quick = Process::start({.argv = {"/bin/sh", "-c", "exit 4"}});
  REQUIRE(quick.ok());
  CHECK((*quick)->wait_until(Process::Clock::now() + 10s));
  CHECK((*quick)->how_it_ended() == "exited 4");

  auto missing = Process::start({.argv = {"railyard-no-such-program"}});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error() == "railyard-no-such-program: No such file or directory");
  // Capture and deadlines are run_process's: a started process would leave them unhonoured.
  CHECK_FALSE(Process::start({.argv = {"true"}, .capture = true}).ok());
}
