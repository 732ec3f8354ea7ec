#include "image_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include "command.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

Outcome<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Outcome<std::string>::fail(path + ": " + std::strerror(errno));
  // Read in one piece where the size is known (package indexes are tens of MB); files that
  // report no size (/proc, pipes) are read to their end.
  std::error_code ec;
  std::uintmax_t size = fs::file_size(path, ec);
  std::string out;
  if (!ec && size > 0) {
    out.resize(size);
    in.read(out.data(), static_cast<std::streamsize>(size));
    out.resize(static_cast<std::size_t>(in.gcount()));
    if (in.gcount() < static_cast<std::streamsize>(size)) return out;
    in.clear();
  }
  std::ostringstream rest;
  rest << in.rdbuf();
  return out + rest.str();
}

Outcome<std::string> image_kernel_version(const std::string& root) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root + "/lib/modules", ec))
    if (e.is_directory(ec)) found.push_back(e.path().filename().string());
  if (found.size() != 1)
    return Outcome<std::string>::fail(root + "/lib/modules: expected one kernel, found " +
                                      (found.empty() ? std::string("none") : join(found, ", ")) +
                                      " (does the recipe's image.kernel install one?)");
  return found.front();
}

Status copy_tree(const std::string& src, const std::string& dst) {
  std::error_code ec;
  fs::create_directories(dst, ec);
  if (ec) return Status::fail(dst + ": " + ec.message());
  // GNU cp keeps hard links, sparse files, xattrs and device nodes exactly; nothing in the
  // standard library does all of that.
  ProcessRunner runner("/dev/null");
  return runner.run(Command{{"cp", "-a", "--reflink=auto", src + "/.", dst}, {}, "copy " + src});
}

}  // namespace railyard
