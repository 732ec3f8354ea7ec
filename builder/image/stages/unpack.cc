#include "unpack.h"

#include <clocale>
#include <locale.h>
#include <memory>

#include <archive.h>
#include <archive_entry.h>

namespace railyard {

namespace {

// libarchive converts names from the archive's UTF-8 (pax) to the current locale, which is
// "C" in a build without LANG: a non-ASCII file name would then fail. Names are bytes on
// Linux; C.UTF-8 (always there on Debian) passes them through.
class Utf8Names {
 public:
  Utf8Names() : utf8_(::newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0))) {
    if (utf8_) previous_ = ::uselocale(utf8_);
  }
  ~Utf8Names() {
    if (!utf8_) return;
    ::uselocale(previous_);
    ::freelocale(utf8_);
  }
  Utf8Names(const Utf8Names&) = delete;
  Utf8Names& operator=(const Utf8Names&) = delete;

 private:
  locale_t utf8_;
  locale_t previous_ = static_cast<locale_t>(0);
};

}  // namespace

Outcome<UnpackResult> unpack_archive(const std::string& archive_path, const std::string& dir,
                                     const UnpackOptions& options) {
  using Result = Outcome<UnpackResult>;
  Utf8Names utf8;
  UnpackResult done;
  std::unique_ptr<struct archive, decltype(&archive_read_free)> in(archive_read_new(), &archive_read_free);
  std::unique_ptr<struct archive, decltype(&archive_write_free)> out(archive_write_disk_new(), &archive_write_free);
  archive_read_support_filter_all(in.get());
  archive_read_support_format_all(in.get());
  // Entries are re-rooted under `dir` below, after refusing absolute names and "..".
  int flags =
      ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS;
  if (options.root_filesystem) flags |= ARCHIVE_EXTRACT_OWNER | ARCHIVE_EXTRACT_ACL | ARCHIVE_EXTRACT_XATTR;
  archive_write_disk_set_options(out.get(), flags);
  // No user/group lookup is set: owners stay the archive's numbers, whatever the build
  // host's /etc/passwd calls them.
  if (archive_read_open_filename(in.get(), archive_path.c_str(), 1 << 16) != ARCHIVE_OK)
    return Result::fail(archive_path + ": " + archive_error_string(in.get()));
  for (;;) {
    struct archive_entry* e = nullptr;
    int r = archive_read_next_header(in.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) return Result::fail(archive_path + ": " + archive_error_string(in.get()));
    auto outside = [](const std::string& name) {
      return name.starts_with("/") || name == ".." || name.starts_with("../") ||
             name.find("/../") != std::string::npos || name.ends_with("/..");
    };
    std::string name = archive_entry_pathname(e);
    const char* hl = archive_entry_hardlink(e);
    if (outside(name) || (hl && outside(hl)))
      return Result::fail(archive_path + ": entry " + name + " would land outside the unpack directory");
    archive_entry_set_pathname(e, (dir + "/" + name).c_str());
    if (hl) archive_entry_set_hardlink(e, (dir + "/" + hl).c_str());
    if (archive_write_header(out.get(), e) != ARCHIVE_OK)
      return Result::fail(archive_path + ": " + archive_error_string(out.get()));
    const void* buf;
    size_t size;
    la_int64_t offset;
    while ((r = archive_read_data_block(in.get(), &buf, &size, &offset)) == ARCHIVE_OK)
      if (archive_write_data_block(out.get(), buf, size, offset) != ARCHIVE_OK)
        return Result::fail(archive_path + ": " + archive_error_string(out.get()));
    if (r != ARCHIVE_EOF) return Result::fail(archive_path + ": " + archive_error_string(in.get()));
    if (archive_write_finish_entry(out.get()) != ARCHIVE_OK)
      return Result::fail(archive_path + ": " + name + ": " + archive_error_string(out.get()));
    ++done.entries;
  }
  return done;
}

}  // namespace railyard
