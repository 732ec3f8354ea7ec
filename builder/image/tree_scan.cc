#include "tree_scan.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>

#include "content_digest.h"

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

// A cache entry is verified before every use, and a base image is hundreds of MiB: hash on
// every core (hashing is CPU-bound where the files are in the page cache).
Status hash_files(const std::string& root, std::vector<TreeEntry>& entries, OpenSslHasher& hasher, TreeDigest kind) {
  std::vector<TreeEntry*> files;
  std::uint64_t bytes = 0;
  for (auto& e : entries)
    if (e.type == TreeEntry::Type::file) {
      files.push_back(&e);
      bytes += e.size;
    }
  constexpr std::uint64_t kBytesPerThread = 32 << 20;
  std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  threads = std::min<std::size_t>(threads, 1 + bytes / kBytesPerThread);
  std::atomic<std::size_t> next{0};
  std::mutex failed_mutex;
  std::string failed;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < files.size();) {
      const std::string path = root + "/" + files[i]->path;
      auto digest = kind == TreeDigest::sha256 ? hasher.sha256_file(path) : xxh128_file(path);
      if (!digest.ok()) {
        std::lock_guard lock(failed_mutex);
        if (failed.empty()) failed = digest.error();
        next = files.size();
        return;
      }
      files[i]->digest = std::move(*digest);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (!failed.empty()) return Status::fail(failed);
  return success();
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

Outcome<std::vector<TreeEntry>> scan_tree(const std::string& root, OpenSslHasher& hasher, TreeDigest digest) {
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
    } else if (e.type == TreeEntry::Type::symlink) {
      e.mode = 0777;  // meaningless on Linux, and umask-dependent on some filesystems
      e.target = fs::read_symlink(p, ec).string();
      if (ec) return Result::fail(p.string() + ": " + ec.message());
    }
    out.push_back(std::move(e));
  }
  if (auto hashed = hash_files(root, out, hasher, digest); !hashed.ok()) return Result::fail(hashed.error());
  // Byte order, not locale order: the same on every build host.
  std::sort(out.begin(), out.end(), [](const TreeEntry& a, const TreeEntry& b) { return a.path < b.path; });
  return out;
}

std::string tree_listing(const std::vector<TreeEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    out += type_letter(e.type);
    out += " " + octal(e.mode) + " " + escape(e.path);
    if (e.type == TreeEntry::Type::file) out += " " + std::to_string(e.size) + " " + e.digest;
    if (e.type == TreeEntry::Type::symlink) out += " -> " + escape(e.target);
    out += "\n";
  }
  return out;
}

}  // namespace railyard
