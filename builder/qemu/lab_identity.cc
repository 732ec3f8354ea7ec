#include "lab_identity.h"

#include <filesystem>
#include <fstream>

#include "image/cpio_writer.h"
#include "net.h"
#include "pxe/pxe_plan.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

std::string bare_mac(const std::string& mac) {
  std::string out;
  for (char c : normalize_mac(mac).value_or(mac))
    if (c != ':') out += c;
  return out;
}

Status write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::fail(path.string() + ": cannot be written");
  return success();
}

}  // namespace

std::vector<std::string> rail_macs(const std::string& management_mac, int rails) {
  std::string m = normalize_mac(management_mac).value_or(management_mac);
  std::vector<std::string> out;
  for (int k = 0; k < rails; ++k) out.push_back(m.substr(0, 9) + hex(static_cast<unsigned>(0x10 + k), 2).substr(2) + m.substr(11));
  return out;
}

std::string smbios_uuid(const std::string& management_mac) { return "00000000-0000-4000-8000-" + bare_mac(management_mac); }

Status write_identity_initrd(const LabIdentity& id, const std::string& scratch_dir, const std::string& out_path) {
  fs::path tree = fs::path(scratch_dir) / "identity";
  std::error_code ec;
  fs::remove_all(tree, ec);
  fs::create_directories(tree / "etc/railyard", ec);
  if (ec) return Status::fail((tree / "etc/railyard").string() + ": " + ec.message());
  if (auto s = write_text(tree / "etc/hostname", id.hostname + "\n"); !s.ok()) return s;
  if (id.node)
    if (auto s = write_text(tree / "etc/railyard/node.toml", render_node_identity(*id.node)); !s.ok()) return s;
  // The archive takes modes from disk: make them the image's, whatever the umask.
  for (const char* dir : {"etc", "etc/railyard"}) fs::permissions(tree / dir, fs::perms(0755), ec);
  for (const char* file : {"etc/hostname", "etc/railyard/node.toml"})
    if (fs::exists(tree / file)) fs::permissions(tree / file, fs::perms(0644), ec);
  CpioOptions options;
  options.zstd_threads = 1;
  auto written = write_cpio_zstd(tree.string(), out_path, options);
  if (!written.ok()) return Status::fail(written, "identity initrd " + out_path);
  return success();
}

}  // namespace railyard
