// The shared logger's journal detection (core/io/log.cc): JOURNAL_STREAM names the stream
// systemd connected a unit's output to; standard output into it goes line by line.
#include <doctest/doctest.h>

#include <stdio_ext.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/log.h"

using namespace railyard;

namespace {

std::string stream_id(int fd) {
  struct stat st {};
  REQUIRE(::fstat(fd, &st) == 0);
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

// Standard output's buffering after logging::setup() in a child whose standard output is a
// pipe, with JOURNAL_STREAM naming that pipe (`journal`) or something else: 1 line-buffered,
// 0 not, 2 the child could not tell.
int child_buffering(bool journal) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::dup2(fds[1], STDOUT_FILENO) < 0) ::_exit(2);
    ::setenv("JOURNAL_STREAM", journal ? stream_id(STDOUT_FILENO).c_str() : "1:1", 1);
    logging::setup("railyard-test");
    ::_exit(__flbf(stdout) ? 1 : 0);
  }
  ::close(fds[0]);
  ::close(fds[1]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("is_journal: the stream JOURNAL_STREAM names, by device and inode") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const char* saved = std::getenv("JOURNAL_STREAM");
  std::string restore = saved ? saved : "";
  ::setenv("JOURNAL_STREAM", stream_id(fds[1]).c_str(), 1);
  CHECK(logging::is_journal(fds[1]));
  CHECK(logging::is_journal(fds[0]));  // both ends of a pipe are one inode
  ::setenv("JOURNAL_STREAM", "1:1", 1);
  CHECK_FALSE(logging::is_journal(fds[1]));
  ::setenv("JOURNAL_STREAM", "not a stream", 1);
  CHECK_FALSE(logging::is_journal(fds[1]));
  ::unsetenv("JOURNAL_STREAM");
  CHECK_FALSE(logging::is_journal(fds[1]));
  if (saved) ::setenv("JOURNAL_STREAM", restore.c_str(), 1);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_CASE("setup: standard output into the journal is line-buffered, elsewhere as the C library has it") {
  CHECK(child_buffering(true) == 1);
  CHECK(child_buffering(false) == 0);  // a pipe that is not the journal: fully buffered, as ever
}
