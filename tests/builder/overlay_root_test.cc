// builder/image/stages/overlay_root.cc: a cache entry layered under the image root. The mounts are
// made in a child process with its own mount namespace, so the test runner's stays as it was.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "builder/temp_dir.h"
#include "image/stages/overlay_root.h"

using namespace railyard;
using railyard::test::read_all;
using railyard::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Runs `body` in a forked child; returns its exit status.
int in_child(const std::function<int()>& body) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) ::_exit(body());
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("overlayfs options name the three directories and refuse what the option parser would split") {
  CHECK(overlay_options("/c/base/k/output", "/w/layers/upper", "/w/layers/work") ==
        "lowerdir=/c/base/k/output,upperdir=/w/layers/upper,workdir=/w/layers/work");
  CHECK(overlay_options("/c/a,b", "/u", "/w").empty());
  CHECK(overlay_options("/c", "/u:1", "/w").empty());
  CHECK(overlay_options("/c", "/u", "/w\\x").empty());
}

TEST_CASE("stages write through the overlay and the cache entry stays as it was") {
  TempDir tmp;
  tmp.write("entry/etc/motd", "cached\n");
  tmp.write("entry/etc/hostname", "base\n");
  tmp.write("entry/lib/modules/6.1/sound/snd.ko", "module");
  const std::string merged = tmp / "work/root";
  if (::geteuid() != 0) {
    MESSAGE("mounting needs root (builds run as root); skipped");
    return;
  }
  int rc = in_child([&]() -> int {
    if (!enter_private_mount_namespace().ok()) return 2;
    auto mounted = OverlayRoot::mount(tmp / "entry", tmp / "work/layers", merged);
    if (!mounted.ok()) return 3;
    std::ofstream(merged + "/etc/motd", std::ios::trunc) << "built\n";
    std::ofstream(merged + "/etc/new") << "new\n";
    fs::remove_all(merged + "/lib/modules/6.1/sound");
    fs::remove(merged + "/etc/hostname");
    bool seen = read_all(merged + "/etc/motd") == "built\n" && read_all(merged + "/etc/new") == "new\n" &&
                !fs::exists(merged + "/lib/modules/6.1/sound") && !fs::exists(merged + "/etc/hostname");
    mounted->reset();  // unmounted: the root is an empty directory again
    bool gone = fs::is_empty(merged);
    return seen && gone ? 0 : 1;
  });
  INFO("child exit: 1 = wrong view through the overlay, 2 = no mount namespace, 3 = no overlayfs mount");
  CHECK(rc == 0);
  // The lower layer saw none of it; the upper layer holds the changes and the deletions.
  CHECK(read_all(tmp / "entry/etc/motd") == "cached\n");
  CHECK(read_all(tmp / "entry/etc/hostname") == "base\n");
  CHECK(fs::exists(tmp / "entry/lib/modules/6.1/sound/snd.ko"));
  CHECK_FALSE(fs::exists(tmp / "entry/etc/new"));
  CHECK(read_all(tmp / "work/layers/upper/etc/new") == "new\n");
  // The mount lived only in the child's namespace: the runner's never had it.
  CHECK(fs::is_empty(merged));
}
