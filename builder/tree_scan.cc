#include "tree_scan.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace railyard {

namespace fs = std::filesystem;

namespace {

TreeEntry::Type type_of(fs::file_type t) {
  switch (t) {
    case fs::file_type::regular: return TreeEntry::Type::file;
    case fs::file_type::directory: return TreeEntry::Type::directory;
    case fs::file_type::symlink: return TreeEntry::Type::symlink;
    default: return TreeEntry::Type::other;
  }
}

std::string escape(const std::string& s) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c <= 0x20 || c == 0x7f) {  // space too: " -> " separates a link from its target
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string octal(unsigned mode) {
  std::string out = "0000";
  for (int i = 3; i >= 0; --i, mode >>= 3) out[static_cast<std::size_t>(i)] = static_cast<char>('0' + (mode & 7));
  return out;
}

}  // namespace

char type_letter(TreeEntry::Type t) {
  switch (t) {
    case TreeEntry::Type::file: return 'f';
    case TreeEntry::Type::directory: return 'd';
    case TreeEntry::Type::symlink: return 'l';
    case TreeEntry::Type::other: return 'o';
  }
  return '?';
}

Outcome<std::vector<TreeEntry>> scan_tree(const std::string& root, OpenSslHasher& hasher) {
  using Result = Outcome<std::vector<TreeEntry>>;
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(root, ec))) return Result::fail(root + ": not a directory");
  std::vector<TreeEntry> out;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  if (ec) return Result::fail(root + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Result::fail(root + ": " + ec.message());
    const fs::path& p = it->path();
    fs::file_status st = fs::symlink_status(p, ec);
    if (ec) return Result::fail(p.string() + ": " + ec.message());
    TreeEntry e;
    e.path = p.lexically_relative(root).generic_string();
    e.type = type_of(st.type());
    e.mode = static_cast<unsigned>(st.permissions()) & 07777;
    if (e.type == TreeEntry::Type::file) {
      e.size = fs::file_size(p, ec);
      if (ec) return Result::fail(p.string() + ": " + ec.message());
      auto digest = hasher.sha256_file(p.string());
      if (!digest.ok()) return Result::fail(digest.error());
      e.sha256 = *digest;
    } else if (e.type == TreeEntry::Type::symlink) {
      e.mode = 0777;  // meaningless on Linux, and umask-dependent on some filesystems
      e.target = fs::read_symlink(p, ec).string();
      if (ec) return Result::fail(p.string() + ": " + ec.message());
    }
    out.push_back(std::move(e));
  }
  // Byte order, not locale order: the same on every build host.
  std::sort(out.begin(), out.end(), [](const TreeEntry& a, const TreeEntry& b) { return a.path < b.path; });
  return out;
}

std::string tree_listing(const std::vector<TreeEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    out += type_letter(e.type);
    out += " " + octal(e.mode) + " " + escape(e.path);
    if (e.type == TreeEntry::Type::file) out += " " + std::to_string(e.size) + " " + e.sha256;
    if (e.type == TreeEntry::Type::symlink) out += " -> " + escape(e.target);
    out += "\n";
  }
  return out;
}

}  // namespace railyard
