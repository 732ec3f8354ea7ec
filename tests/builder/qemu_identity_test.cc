// builder/qemu/lab_identity.cc: the VM's MACs and UUID, and the overlay initrd that gives
// it its host name and node identity.
#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>

#include <map>

#include "builder/temp_dir.h"
#include "pxe/pxe_plan.h"
#include "qemu/lab_identity.h"

using namespace railyard;
using railyard::test::TempDir;

namespace {

// path → content (directories: "<dir>") of a zstd cpio.
std::map<std::string, std::string> unpack(const std::string& path) {
  std::map<std::string, std::string> out;
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_cpio(a);
  REQUIRE(archive_read_open_filename(a, path.c_str(), 65536) == ARCHIVE_OK);
  archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    std::string content;
    if (archive_entry_filetype(e) == AE_IFDIR) content = "<dir>";
    char buf[4096];
    la_ssize_t n = 0;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) content.append(buf, static_cast<std::size_t>(n));
    out[archive_entry_pathname(e)] = content;
  }
  archive_read_free(a);
  return out;
}

NodeEntry lab_node01() {
  return {"lab-node01", "52:54:00:00:00:01", {"198.18.0.11", "198.18.1.11", "198.18.2.11", "198.18.3.11"}, "", ""};
}

}  // namespace

TEST_CASE("rail MACs and the SMBIOS UUID follow the management MAC") {
  CHECK(rail_macs("52:54:00:00:00:01", 3) ==
        std::vector<std::string>{"52:54:00:10:00:01", "52:54:00:11:00:01", "52:54:00:12:00:01"});
  CHECK(rail_macs("52:54:00:AB:00:02", 8)[7] == "52:54:00:17:00:02");
  CHECK(smbios_uuid("52:54:00:00:00:01") == "00000000-0000-4000-8000-525400000001");
  CHECK(smbios_uuid("52:54:00:00:00:01") != smbios_uuid("52:54:00:00:00:02"));
}

TEST_CASE("the node identity file reads back as the same node") {
  MemorySource files;
  files.add("node.toml", render_node_identity(lab_node01()));
  Diagnostics diags;
  auto back = parse_node_identity(files, "node.toml", nullptr, diags);
  REQUIRE(diags.empty());
  REQUIRE(back);
  CHECK(back->hostname == "lab-node01");
  CHECK(back->mac == "52:54:00:00:00:01");
  CHECK(back->rails == lab_node01().rails);
}

TEST_CASE("the identity initrd holds the host name and node.toml under etc/ only") {
  TempDir tmp;
  LabIdentity id{"lab-node01", "52:54:00:00:00:01", lab_node01(), {}};
  REQUIRE(write_identity_initrd(id, tmp.path(), tmp / "id.cpio.zst").ok());
  auto files = unpack(tmp / "id.cpio.zst");
  CHECK(files["etc/hostname"] == "lab-node01\n");
  CHECK(files["etc/railyard/node.toml"] == render_node_identity(lab_node01()));
  for (const auto& [path, content] : files) CHECK_MESSAGE(path.rfind("etc", 0) == 0, path);

  LabIdentity anonymous{"railyard-lab", "52:54:00:00:00:01", std::nullopt, {}};
  REQUIRE(write_identity_initrd(anonymous, tmp.path(), tmp / "anon.cpio.zst").ok());
  auto anon = unpack(tmp / "anon.cpio.zst");
  CHECK(anon["etc/hostname"] == "railyard-lab\n");
  CHECK(anon.count("etc/railyard/node.toml") == 0);  // the agent then plans without rail addresses
}
