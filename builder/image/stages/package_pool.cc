#include "package_pool.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "image_files.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

constexpr const char* kArchives = "/var/cache/apt/archives";

void quote_into(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  for (unsigned char c : s) {
    if (c == '_' || c == ':' || c == '%' || c <= 0x20 || c >= 0x7f) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
}

std::string_view field(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || !line.starts_with(name) || line[name.size()] != ':') return {};
  std::string_view v = line.substr(name.size() + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.remove_suffix(1);
  return v;
}

std::vector<std::string> debs_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.starts_with(".") || !name.ends_with(".deb") || !e.is_regular_file(ec) || e.is_symlink(ec)) continue;
    out.push_back(std::move(name));
  }
  return out;
}

// A hard link where both sides share a filesystem, else a copy; never a half-written `to`.
Status place(const std::string& from, const std::string& to) {
  if (::link(from.c_str(), to.c_str()) == 0) return success();
  std::string tmp = fs::path(to).parent_path().string() + "/." + fs::path(to).filename().string() + ".tmp-" +
                    std::to_string(::getpid());
  std::error_code ec;
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Status::fail(to + ": " + ec.message());
  }
  fs::rename(tmp, to, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Status::fail(to + ": " + ec.message());
  }
  return success();
}

}  // namespace

std::string apt_archive_name(std::string_view package, std::string_view version, std::string_view arch) {
  std::string out;
  quote_into(out, package);
  out += '_';
  quote_into(out, version);
  out += '_';
  quote_into(out, arch);
  out += ".deb";
  return out;
}

void add_index_digests(std::string_view index, const std::set<std::string>& wanted,
                       std::map<std::string, std::set<std::string>>& out) {
  std::set<std::string_view> packages;  // names cannot hold '_' (Debian policy): the part before it
  for (const auto& w : wanted) packages.insert(std::string_view(w).substr(0, w.find('_')));
  std::string_view package, version, arch, sha256;
  auto flush = [&] {
    if (packages.contains(package) && !version.empty() && !arch.empty() && sha256.size() == 64)
      if (std::string name = apt_archive_name(package, version, arch); wanted.contains(name))
        out[name].insert(std::string(sha256));
    package = version = arch = sha256 = {};
  };
  while (!index.empty()) {
    std::size_t end = index.find('\n');
    std::string_view line = index.substr(0, end);
    index.remove_prefix(end == std::string_view::npos ? index.size() : end + 1);
    if (line.empty() || line == "\r") {
      flush();
      continue;
    }
    switch (line.front()) {  // most lines are none of these: skip them at the first byte
      case 'P':
        if (auto v = field(line, "Package"); !v.empty()) package = v;
        break;
      case 'V':
        if (auto v = field(line, "Version"); !v.empty()) version = v;
        break;
      case 'A':
        if (auto v = field(line, "Architecture"); !v.empty()) arch = v;
        break;
      case 'S':
        if (auto v = field(line, "SHA256"); !v.empty()) sha256 = v;
        break;
      default: break;
    }
  }
  flush();
}

const std::map<std::string, std::set<std::string>>& PackagePool::index_digests(const std::string& root,
                                                                               const std::set<std::string>& wanted) {
  std::vector<fs::path> lists;
  std::string signature;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root + "/var/lib/apt/lists", ec))
    if (e.path().filename().string().ends_with("_Packages"))
      lists.push_back(e.path());  // compressed ones: nothing lent
  std::sort(lists.begin(), lists.end());
  for (const auto& p : lists) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;
    signature += p.filename().string() + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) +
                 "." + std::to_string(st.st_mtim.tv_nsec) + "\n";
  }
  if (signature == memo_.lists && std::includes(memo_.wanted.begin(), memo_.wanted.end(), wanted.begin(), wanted.end()))
    return memo_.digests;
  memo_ = IndexMemo{signature, wanted, {}};
  for (const auto& p : lists) {
    auto text = read_whole_file(p.string());
    if (text.ok()) add_index_digests(*text, wanted, memo_.digests);
  }
  return memo_.digests;
}

Outcome<PoolLoan> PackagePool::lend(const std::string& root) {
  PoolLoan loan;
  std::vector<std::string> kept = debs_in(dir_);
  if (kept.empty()) return loan;
  const auto& digests = index_digests(root, std::set<std::string>(kept.begin(), kept.end()));
  std::error_code ec;
  const std::string archives = root + kArchives;
  for (const auto& name : kept) {
    auto want = digests.find(name);
    if (want == digests.end() || want->second.size() != 1) continue;  // not wanted, or ambiguous
    const std::string from = dir_ + "/" + name, to = archives + "/" + name;
    if (fs::exists(fs::symlink_status(to, ec))) continue;
    auto have = hasher_.sha256_file(from);
    if (!have.ok() || *have != *want->second.begin()) continue;  // damaged or replaced: apt fetches it
    fs::create_directories(archives, ec);
    if (auto s = place(from, to); !s.ok()) return Outcome<PoolLoan>::fail(s.error());
    loan.packages++;
    loan.bytes += fs::file_size(to, ec);
    loan.names.insert(name);
  }
  return loan;
}

Outcome<std::size_t> PackagePool::keep(const std::string& root, const PoolLoan& loan) {
  const std::string archives = root + kArchives;
  std::size_t added = 0;
  std::error_code ec;
  for (const auto& name : debs_in(archives)) {
    const std::string from = archives + "/" + name, to = dir_ + "/" + name;
    if (!loan.names.contains(name) && !fs::exists(fs::symlink_status(to, ec))) {
      fs::create_directories(dir_, ec);
      if (ec) return Outcome<std::size_t>::fail(dir_ + ": " + ec.message());
      if (auto s = place(from, to); !s.ok()) return Outcome<std::size_t>::fail(s.error());
      ++added;
    }
    fs::remove(from, ec);
    if (ec) return Outcome<std::size_t>::fail(from + ": " + ec.message());
  }
  return added;
}

}  // namespace railyard
