#include "lab_identity.h"

#include <filesystem>
#include <fstream>

#include "audit/rootfs_file.h"
#include "image/cpio_writer.h"
#include "image/image_manifest.h"
#include "recipe_loader.h"
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

namespace {

std::vector<std::string> macs_from(const std::string& management_mac, unsigned fourth_byte, int count) {
  std::string m = normalize_mac(management_mac).value_or(management_mac);
  std::vector<std::string> out;
  for (int k = 0; k < count; ++k)
    out.push_back(m.substr(0, 9) + hex(fourth_byte + static_cast<unsigned>(k), 2).substr(2) + m.substr(11));
  return out;
}

}  // namespace

std::vector<std::string> rail_macs(const std::string& management_mac, int rails) {
  return macs_from(management_mac, 0x10, rails);
}

std::vector<std::string> leaf_port_macs(const std::string& management_mac, int ports) {
  return macs_from(management_mac, 0x30, ports);
}

NodeEntry implied_identity(const Recipe& recipe, const std::string& hostname, const std::string& mac, LabRole role) {
  NodeEntry n{hostname, normalize_mac(mac).value_or(mac), {}, "", ""};
  const AddressingSpec& a = recipe.addressing;
  int rails = a.mode == AddressingMode::per_rail_subnet ? static_cast<int>(a.subnets.size()) : fixed_rail_count(recipe);
  for (int r = 0; r < rails; ++r) {
    auto net =
        parse_cidr(a.mode == AddressingMode::per_rail_subnet ? a.subnets[static_cast<std::size_t>(r)] : a.subnet);
    if (!net) return n;
    // In a shared subnet every rail needs its own host number.
    std::uint32_t host = (role == LabRole::node ? 11 : 100) + (a.mode == AddressingMode::shared_subnet ? r : 0);
    std::string address = Ipv4{net->network.value + host}.str();
    if (role == LabRole::storage_target)
      for (const auto& t : recipe.nvmeof)
        if (t.rail == r) address = t.address;
    n.rails.push_back(address);
  }
  return n;
}

Outcome<Recipe> read_image_recipe(const std::string& image_dir) {
  auto m = read_image_manifest(path_join(image_dir, kManifestFile));
  if (!m.ok()) return Outcome<Recipe>::fail(m.error());
  std::vector<std::string> parts;
  for (const auto& p : m->boot_initrds) parts.push_back(path_join(image_dir, p));
  auto text = read_rootfs_file(parts, kImageRecipe);
  std::string label = path_join(image_dir, m->boot_initrds.front()) + ":" + kImageRecipe;
  if (!text.ok()) return Outcome<Recipe>::fail(label + ": " + text.error());
  if (!*text) return Outcome<Recipe>::fail(label + ": not in the image");
  return parse_image_recipe(label, **text);
}

std::string smbios_uuid(const std::string& management_mac) {
  return "00000000-0000-4000-8000-" + bare_mac(management_mac);
}

Status write_identity_initrd(const LabIdentity& id, const std::string& scratch_dir, const std::string& out_path) {
  fs::path tree = fs::path(scratch_dir) / "identity";
  std::error_code ec;
  fs::remove_all(tree, ec);
  fs::create_directories(tree / "etc/railyard", ec);
  if (ec) return Status::fail((tree / "etc/railyard").string() + ": " + ec.message());
  if (auto s = write_text(tree / "etc/hostname", id.hostname + "\n"); !s.ok()) return s;
  if (id.node)
    if (auto s = write_text(tree / "etc/railyard/node.toml", render_node_identity(*id.node)); !s.ok()) return s;
  for (const auto& f : id.files) {
    fs::path file = tree / f.path;
    fs::create_directories(file.parent_path(), ec);
    for (fs::path d = fs::path(f.path).parent_path(); !d.empty(); d = d.parent_path())
      fs::permissions(tree / d, fs::perms(0755), ec);
    if (auto s = write_text(file, f.content); !s.ok()) return s;
    fs::permissions(file, static_cast<fs::perms>(f.mode), ec);
  }
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
