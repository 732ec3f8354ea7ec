#include "rootfs_file.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include "recipe_loader.h"
#include "source.h"
#include "text.h"

namespace railyard {

Outcome<std::optional<std::string>> read_rootfs_file(const std::vector<std::string>& parts, const std::string& path) {
  using Result = Outcome<std::optional<std::string>>;
  std::optional<std::string> found;
  for (const auto& part : parts) {
    std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), &archive_read_free);
    archive_read_support_filter_all(a.get());
    archive_read_support_format_cpio(a.get());
    if (archive_read_open_filename(a.get(), part.c_str(), 1 << 16) != ARCHIVE_OK)
      return Result::fail(part + ": " + archive_error_string(a.get()));
    archive_entry* e = nullptr;
    for (;;) {
      int rc = archive_read_next_header(a.get(), &e);
      if (rc == ARCHIVE_EOF) break;
      if (rc < ARCHIVE_WARN) return Result::fail(part + ": " + archive_error_string(a.get()));
      if (normalize_path(std::string("/") + archive_entry_pathname(e)) != path) continue;
      if (archive_entry_filetype(e) != AE_IFREG) {
        found.reset();
        continue;
      }
      std::string text(static_cast<std::size_t>(archive_entry_size(e)), '\0');
      la_ssize_t n = archive_read_data(a.get(), text.data(), text.size());
      if (n < 0) return Result::fail(part + ": " + path + ": " + archive_error_string(a.get()));
      text.resize(static_cast<std::size_t>(n));
      found = std::move(text);
    }
  }
  return found;
}

Outcome<Recipe> parse_image_recipe(const std::string& label, const std::string& text) {
  MemorySource inside;
  inside.add(label, text);
  Diagnostics diags;
  RecipeOptions opts;
  opts.check_references = false;  // the bundles and overlays are built in already
  auto lr = load_recipe(inside, label, opts, diags);
  if (!lr) return Outcome<Recipe>::fail(diags.empty() ? label + ": invalid" : format(diags.sorted().front()));
  return lr->recipe;
}

}  // namespace railyard
