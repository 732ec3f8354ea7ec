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
// the image.
Status apt_install(StageContext& ctx, const std::vector<std::string>& packages, const std::string& why);

}  // namespace railyard
