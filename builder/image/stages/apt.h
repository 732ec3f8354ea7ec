// apt inside the image being built: a session that lends it the host's resolver and keeps
// services from starting, and package installation for the image's own kernel and epoch.
#pragma once

#include <string>
#include <vector>

#include "stage.h"

namespace railyard {

// Undone when it ends, whatever happened meanwhile.
class AptSession {
 public:
  explicit AptSession(std::string root);
  ~AptSession();
  AptSession(const AptSession&) = delete;
  AptSession& operator=(const AptSession&) = delete;

 private:
  std::string root_;
  bool had_resolv_ = false;
};

// apt-get install without recommends; packages may be names or paths to .deb files inside
// the image. Packages downloaded by earlier builds are lent to apt from the downloads'
// packages/ (package_pool.h) and what apt downloads is kept there; none stays in the image.
inline constexpr const char* kPackagePoolDir = "packages";
Status apt_install(StageContext& ctx, const std::vector<std::string>& packages, const std::string& why);

// Debian's own initramfs (/boot/initrd.img) is never booted, since the image is the
// initramfs, yet building one takes about 20 s at every kernel, DKMS or hook-carrying
// package install. While the image is built, update-initramfs is diverted (dpkg-divert,
// so that packages installing it land beside it) to a no-op; hygiene restores it.
inline constexpr const char* kInitramfsUpdater = "/usr/sbin/update-initramfs";
// sh commands taking the image root as $1: mmdebstrap's --essential-hook, or run on a root
// filesystem that exists.
std::string divert_initramfs_script();
// The diversion undone and the no-op removed, when the image has them; the /initrd.img
// links left pointing at nothing are removed too.
Status restore_initramfs(StageContext& ctx);

}  // namespace railyard
