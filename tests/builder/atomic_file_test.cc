// core/io/atomic_file.cc: the one writer both programs use for files that must be whole.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "builder/temp_dir.h"
#include "io/atomic_file.h"

using namespace railyard;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("write_file_atomically: parents created, content and mode as asked, nothing left beside it") {
  test::TempDir dir;
  fs::path target = fs::path(dir.path()) / "a" / "b" / "report.json";
  REQUIRE(write_file_atomically(target.string(), "{\"x\": 1}\n", 0600).ok());
  CHECK(slurp(target) == "{\"x\": 1}\n");
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  REQUIRE(write_file_atomically(target.string(), "second").ok());
  CHECK(slurp(target) == "second");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(target.parent_path())) {
    CHECK(e.path() == target);
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("write_file_atomically: a failure names the file and keeps what was there") {
  test::TempDir dir;
  fs::path target = fs::path(dir.path()) / "kept.txt";
  REQUIRE(write_file_atomically(target.string(), "old").ok());
  fs::path blocked = fs::path(dir.path()) / "kept.txt" / "below";  // a file is no directory
  Status s = write_file_atomically(blocked.string(), "new");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().find(blocked.string()) != std::string::npos);
  CHECK(slurp(target) == "old");
}
