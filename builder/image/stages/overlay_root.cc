#include "overlay_root.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <sched.h>
#include <sys/mount.h>

namespace railyard {

namespace fs = std::filesystem;

Status enter_private_mount_namespace() {
  if (::unshare(CLONE_NEWNS) != 0) return Status::fail(std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno));
  // Without this, mounts made here would still propagate to the host's shared mounts.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return Status::fail(std::string("making / private: ") + std::strerror(errno));
  return success();
}

std::string overlay_options(const std::string& lower, const std::string& upper, const std::string& work) {
  for (const std::string* p : {&lower, &upper, &work})
    if (p->find_first_of(",:\\") != std::string::npos) return "";
  return "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work;
}

Outcome<std::unique_ptr<OverlayRoot>> OverlayRoot::mount(const std::string& lower, const std::string& layers,
                                                         const std::string& merged) {
  using Result = Outcome<std::unique_ptr<OverlayRoot>>;
  std::error_code ec;
  const fs::path base = fs::absolute(layers, ec);
  const std::string upper = (base / "upper").string(), work = (base / "work").string();
  for (const auto& d : {upper, work, merged}) {
    fs::create_directories(d, ec);
    if (ec) return Result::fail(d + ": " + ec.message());
  }
  std::string options = overlay_options(fs::absolute(lower, ec).string(), upper, work);
  if (options.empty())
    return Result::fail(lower + " or " + layers +
                        ": a path holds ',', ':' or '\\', which overlayfs options cannot carry");
  // "volatile" (Linux 5.10+): the upper layer is thrown away with the work directory, so
  // nothing needs to reach the disk: dpkg's fsyncs become no-ops and unmounting does not
  // flush the whole upper filesystem (a quarter of a second after writing the image).
  if (::mount("overlay", merged.c_str(), "overlay", 0, (options + ",volatile").c_str()) != 0 &&
      ::mount("overlay", merged.c_str(), "overlay", 0, options.c_str()) != 0)
    return Result::fail("overlayfs on " + merged + ": " + std::strerror(errno));
  return std::unique_ptr<OverlayRoot>(new OverlayRoot(merged));
}

OverlayRoot::~OverlayRoot() { ::umount2(merged_.c_str(), MNT_DETACH); }

}  // namespace railyard
