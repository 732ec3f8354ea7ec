#include "pxe_tree.h"
#include "slurm.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/cpio_writer.h"
#include "io/atomic_file.h"
#include "dnsmasq_conf.h"
#include "ipxe_script.h"
#include "image/openssl_hasher.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

Status write_text(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::fail(path + ": cannot be written");
  return success();
}

// A hard link costs nothing and keeps one copy of a multi-GiB image; a copy when TREE lies
// on another filesystem (or links are refused there). Either way the bytes that landed are
// checked against the manifest.
Status place_artifact(const std::string& from, const std::string& to, const std::string& sha256, PxeTreeResult& r) {
  std::error_code ec;
  fs::create_directories(fs::path(to).parent_path(), ec);
  if (::link(from.c_str(), to.c_str()) == 0) {
    ++r.linked;
  } else {
    if (!fs::copy_file(from, to, ec)) return Status::fail(from + ": cannot be copied into the tree: " + ec.message());
    ++r.copied;
  }
  OpenSslHasher hasher;
  auto got = hasher.sha256_file(to);
  if (!got.ok()) return Status::fail(got.error());
  if (*got != sha256)
    return Status::fail(from + ": sha256 " + *got + ", manifest.json says " + sha256 +
                        " (the image changed after it was built; run railyard audit on it)");
  return success();
}

// /etc/railyard/node.toml, /etc/hostname and the node's token, as an archive of their own.
// Staged in a directory of known modes, since the archive takes modes from disk: the token
// is the node's secret, readable by root alone once unpacked.
Status write_overlay(const std::string& staging, const PxeNode& node, const PxePlan& plan, const std::string& out,
                     std::int64_t epoch) {
  const std::string& token_file = plan.token_file;
  struct File {
    std::string path, text;
    unsigned mode;
  };
  std::vector<File> files{{"etc/railyard/node.toml", render_node_identity(node.node), 0644},
                          {"etc/hostname", node.node.hostname + "\n", 0644}};
  if (!node.token.empty()) files.push_back({token_file.substr(1), node.token + "\n", 0600});
  // root's here; the image's tmpfiles line makes it munge's at boot (core/slurm.h).
  if (!plan.munge_key.empty()) files.push_back({std::string(kMungeKey).substr(1), plan.munge_key, 0400});
  std::string root = staging + "/" + node.node.hostname;
  for (const auto& f : files) {
    if (auto s = write_text(root + "/" + f.path, f.text); !s.ok()) return s;
    ::chmod((root + "/" + f.path).c_str(), f.mode);
    for (fs::path dir = fs::path(f.path).parent_path(); !dir.empty(); dir = dir.parent_path())
      ::chmod((root + "/" + dir.string()).c_str(), 0755);
  }
  CpioOptions o;
  o.source_date_epoch = epoch;
  o.zstd_level = 19;  // a few hundred bytes: the level costs nothing
  auto written = write_cpio_zstd(root, out, o);
  if (!written.ok()) return Status::fail(node.overlay + ": " + written.error());
  return success();
}

}  // namespace

Outcome<std::string> read_munge_key(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Outcome<std::string>::fail(path + ": cannot be read: " + std::strerror(errno));
  std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Outcome<std::string>::fail(path + ": cannot be read");
  if (key.size() < 32 || key.size() > 1024)
    return Outcome<std::string>::fail(path +
                                      ": a munge key is 32 to 1024 bytes (mungekey -c -k FILE makes one); this "
                                      "is " +
                                      std::to_string(key.size()));
  return key;
}

Outcome<gid_t> find_group(const std::string& name) {
  errno = 0;
  if (const struct group* g = ::getgrnam(name.c_str())) return g->gr_gid;
  // getgrnam(3): errno 0, ENOENT, ESRCH, EBADF or EPERM all mean not found; these mean not read.
  if (errno == EIO || errno == EINTR || errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ERANGE)
    return Outcome<gid_t>::fail("group '" + name + "': " + std::strerror(errno));
  return Outcome<gid_t>::fail("no group '" + name +
                              "' on this host (getent group lists them); name the group "
                              "your TFTP or HTTP server runs as");
}

namespace {

// An overlay holding a secret, as it lies on this host: its owner's alone (0600), or also the
// serving group's (0640). Called while the tree is still mkdtemp's 0700, so no other user ever
// finds it readable, not even for a moment.
Status restrict_overlay(const std::string& path, const std::string& shown, const std::string& group) {
  if (!group.empty()) {
    auto gid = find_group(group);
    if (!gid.ok()) return Status::fail(gid.error());
    if (::chown(path.c_str(), static_cast<uid_t>(-1), *gid) != 0)
      return Status::fail(shown + ": cannot give it to group '" + group + "': " + std::strerror(errno) +
                          " (only root, or a member of the group, may)");
  }
  if (::chmod(path.c_str(), group.empty() ? 0600 : 0640) != 0)
    return Status::fail(shown + ": cannot set its mode: " + std::strerror(errno));
  return success();
}

Status check_replaceable(const std::string& tree) {
  std::error_code ec;
  auto st = fs::symlink_status(tree, ec);
  if (!fs::exists(st)) return success();
  if (!fs::is_directory(st)) return Status::fail(tree + ": exists and is not a directory; refusing to replace it");
  if (fs::is_empty(tree, ec) || fs::exists(tree + "/" + kPxeTreeFile, ec)) return success();
  return Status::fail(tree + ": exists and is not a railyard PXE tree (no " + kPxeTreeFile +
                      "); refusing to replace it. Choose another -o, or empty it first");
}

Status fill(const std::string& tmp, const std::string& final_dir, const PxePlan& plan, const ImageManifest& image,
            const PxeTreeOptions& opt, PxeTreeResult& r) {
  for (const auto& a : image.artifacts)
    if (auto s = place_artifact(opt.image_dir + "/" + a.path, tmp + "/" + kPxeImageDir + "/" + a.path, a.sha256, r);
        !s.ok())
      return s;
  std::error_code ec;
  fs::copy_file(opt.image_dir + "/" + kManifestFile, tmp + "/" + kPxeImageDir + "/" + kManifestFile, ec);
  if (ec) return Status::fail(opt.image_dir + "/" + kManifestFile + ": " + ec.message());

  std::string staging = tmp + "/.staging";
  std::set<std::string> secret;  // overlays holding a token or the munge key
  for (const auto& n : plan.nodes) {
    fs::create_directories(tmp + "/" + kPxeNodesDir, ec);
    if (auto s = write_overlay(staging, n, plan, tmp + "/" + n.overlay, opt.source_date_epoch); !s.ok()) return s;
    if (auto s = write_text(tmp + "/" + n.script, render_node_script(plan, n)); !s.ok()) return s;
    if (!n.token.empty() || !plan.munge_key.empty()) {
      std::string shown = final_dir + "/" + n.overlay;
      if (auto s = restrict_overlay(tmp + "/" + n.overlay, shown, opt.secret_group); !s.ok()) return s;
      secret.insert(tmp + "/" + n.overlay);
    }
  }
  // The staging directory holds the secrets unpacked: it must not be served with the tree.
  fs::remove_all(staging, ec);
  if (ec) return Status::fail(staging + ": cannot be removed: " + ec.message());
  if (auto s = write_text(tmp + "/" + kPxeBootScript, render_boot_script(plan)); !s.ok()) return s;
  if (auto s = write_text(tmp + "/" + kPxeDnsmasqFile, render_dnsmasq_conf(plan, final_dir)); !s.ok()) return s;
  if (auto s = write_text(tmp + "/" + kPxeTreeFile, render_tree_index(plan, image)); !s.ok()) return s;

  for (const char* name : {kIpxeBios, kIpxeUefi}) {
    std::string from = opt.ipxe_dir + "/" + name;
    if (!opt.ipxe_dir.empty() && fs::is_regular_file(from, ec)) {
      fs::copy_file(from, tmp + "/" + name, ec);
      if (ec) return Status::fail(from + ": " + ec.message());
    } else {
      r.notes.push_back(std::string(name) + " not found" + (opt.ipxe_dir.empty() ? "" : " in " + opt.ipxe_dir) +
                        ": firmware without iPXE cannot chainload from this tree (install Debian's package ipxe, "
                        "or copy it into the tree)");
    }
  }
  // mkdtemp made it 0700; TFTP and HTTP servers drop privileges and must read it all, but
  // for the overlays holding a secret (restrict_overlay). The image's files are links to the
  // image's own and keep their modes.
  ::chmod(tmp.c_str(), 0755);
  std::string image_prefix = tmp + "/" + kPxeImageDir + "/";
  for (auto it = fs::recursive_directory_iterator(tmp, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string path = it->path().string();
    if (it->is_directory()) ::chmod(path.c_str(), 0755);
    else if (path.rfind(image_prefix, 0) != 0 && !secret.count(path)) ::chmod(path.c_str(), 0644);
  }
  return success();
}

}  // namespace

Outcome<PxeTreeResult> write_pxe_tree(const PxePlan& plan, const ImageManifest& image, const PxeTreeOptions& opt) {
  using Result = Outcome<PxeTreeResult>;
  std::string tree = fs::absolute(opt.tree_dir).lexically_normal().string();
  while (tree.size() > 1 && tree.back() == '/') tree.pop_back();
  if (auto s = check_replaceable(tree); !s.ok()) return Result::fail(s.error());
  std::error_code ec;
  fs::path parent = fs::path(tree).parent_path();
  fs::create_directories(parent, ec);
  if (ec) return Result::fail(parent.string() + ": " + ec.message());
  std::string templ = (parent / ("." + fs::path(tree).filename().string() + ".tmp.XXXXXX")).string();
  if (!::mkdtemp(templ.data())) return Result::fail(templ + ": " + std::strerror(errno));
  PxeTreeResult r;
  Status s = fill(templ, tree, plan, image, opt, r);
  if (s.ok()) s = replace_directory(templ, tree, r.notes);
  if (!s.ok()) {
    fs::remove_all(templ, ec);
    return Result::fail(s.error());
  }
  return r;
}

}  // namespace railyard
