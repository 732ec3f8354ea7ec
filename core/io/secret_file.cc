#include "io/secret_file.h"

#include <sys/stat.h>

#include <cstdio>

namespace railyard {

std::optional<std::string> readable_by_others(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || (st.st_mode & 044) == 0) return std::nullopt;
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  return path + " is readable by " + ((st.st_mode & 004) ? "every user of this host" : "its group") + " (mode " + mode +
         "): whoever reads it holds the secret; chmod 600 " + path;
}

}  // namespace railyard
