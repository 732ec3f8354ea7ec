// builder/pxe/: the tree's layout, its iPXE scripts and dnsmasq snippet (exact text), the
// node identity the agent reads back, and writing the tree whole or not at all.
#include <doctest/doctest.h>

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "builder/audit_test_image.h"
#include "audit/rootfs_file.h"
#include "pxe/dnsmasq_conf.h"
#include "pxe/ipxe_script.h"
#include "pxe/pxe_plan.h"
#include "io/secret_file.h"
#include "pxe/pxe_tree.h"

using namespace railyard;
using namespace railyard::test;
namespace fs = std::filesystem;

namespace {

std::vector<NodeEntry> lab_nodes() {
  return {{"lab-node01", "52:54:00:00:00:01", {"198.18.0.11", "198.18.1.11"}, "", ""},
          {"lab-target01", "52:54:00:00:00:02", {"198.18.0.100", "198.18.1.100"}, "", ""}};
}

PxePlan lab_plan(const ImageManifest& m, const std::string& base_url = "") {
  auto p = plan_pxe(m, lab_nodes(), base_url, "10.0.2.0");
  REQUIRE_MESSAGE(p.ok(), p.error());
  return *p;
}

ImageManifest lab_manifest() {
  ImageManifest m;
  m.recipe_name = "qemu-virt";
  m.kernel_version = "6.1.0-28-amd64";
  m.cmdline = {"console=ttyS0", "panic=-1"};
  m.boot_kernel = "vmlinuz";
  m.boot_initrds = {"rootfs-00.cpio.zst", "rootfs-01.cpio.zst"};
  return m;
}

}  // namespace

TEST_CASE("the tree's layout: one script and one overlay per node, named by MAC and host") {
  auto p = lab_plan(lab_manifest());
  CHECK(p.kernel == "image/vmlinuz");
  CHECK(p.initrds == std::vector<std::string>{"image/rootfs-00.cpio.zst", "image/rootfs-01.cpio.zst"});
  REQUIRE(p.nodes.size() == 2);
  CHECK(p.nodes[0].mac_hyphens == "52-54-00-00-00-01");
  CHECK(p.nodes[0].script == "pxe/52-54-00-00-00-01.ipxe");
  CHECK(p.nodes[0].overlay == "nodes/node-lab-node01.cpio.zst");
}

TEST_CASE("a command line iPXE would expand or split is refused") {
  auto m = lab_manifest();
  m.cmdline.push_back("root=${evil}");
  auto p = plan_pxe(m, lab_nodes(), "", "");
  REQUIRE_FALSE(p.ok());
  CHECK(p.error() ==
        "kernel.cmdline[2]: 'root=${evil}' holds a character an iPXE script would expand, quote or split on");
}

TEST_CASE("boot.ipxe chains by MAC and explains an unknown one") {
  CHECK(render_boot_script(lab_plan(lab_manifest())) ==
        "#!ipxe\n"
        "# railyard PXE tree: image qemu-virt (kernel 6.1.0-28-amd64), 2 node(s).\n"
        "# Each node boots pxe/<MAC of the NIC that booted>.ipxe; paths are relative to this script.\n"
        "imgfetch --name node pxe/${netX/mac:hexhyp}.ipxe || goto unknown\n"
        "imgexec node\n"
        "exit 1\n"
        ":unknown\n"
        "echo railyard: no node with MAC ${netX/mac} in this PXE tree (no pxe/${netX/mac:hexhyp}.ipxe).\n"
        "echo railyard: add it to the node inventory and run railyard pxe again.\n"
        "prompt --timeout 30000 Press any key for the iPXE shell, or wait for the next boot device && shell ||\n"
        "exit 1\n");
}

TEST_CASE("a node's script: the image's kernel and initrds, its host name, its overlay last") {
  auto p = lab_plan(lab_manifest());
  CHECK(render_node_script(p, p.nodes[1]) ==
        "#!ipxe\n"
        "# lab-target01 (52:54:00:00:00:02): image qemu-virt, kernel 6.1.0-28-amd64.\n"
        "# Paths are relative to this script (pxe/), over TFTP and HTTP alike.\n"
        "kernel ../image/vmlinuz console=ttyS0 panic=-1 systemd.hostname=lab-target01 initrd=rootfs-00.cpio.zst "
        "initrd=rootfs-01.cpio.zst initrd=node-lab-target01.cpio.zst\n"
        "initrd ../image/rootfs-00.cpio.zst\n"
        "initrd ../image/rootfs-01.cpio.zst\n"
        "initrd ../nodes/node-lab-target01.cpio.zst\n"
        "boot\n");
}

TEST_CASE("dnsmasq: proxy DHCP, TFTP, iPXE for BIOS and UEFI, then boot.ipxe over TFTP or HTTP") {
  std::string tftp = render_dnsmasq_conf(lab_plan(lab_manifest()), "/srv/railyard/lab");
  CHECK(tftp ==
        "# railyard PXE tree: image qemu-virt, 2 node(s).\n"
        "# Include from dnsmasq's configuration (conf-file=/srv/railyard/lab/dnsmasq-railyard.conf).\n"
        "# Proxy DHCP: the network's DHCP server keeps handing out addresses; dnsmasq adds boot\n"
        "# information for PXE clients on this subnet only.\n"
        "dhcp-range=10.0.2.0,proxy\n"
        "dhcp-no-override\n"
        "enable-tftp\n"
        "tftp-root=/srv/railyard/lab\n"
        "# iPXE announces itself with option 175; firmware PXE does not.\n"
        "dhcp-match=set:ipxe,175\n"
        "# Firmware PXE, BIOS or UEFI: load iPXE from the tree over TFTP.\n"
        "pxe-service=tag:!ipxe,x86PC,\"railyard: iPXE for BIOS\",undionly.kpxe\n"
        "pxe-service=tag:!ipxe,X86-64_EFI,\"railyard: iPXE for UEFI\",snponly.efi\n"
        "pxe-service=tag:!ipxe,BC_EFI,\"railyard: iPXE for UEFI\",snponly.efi\n"
        "# iPXE: boot.ipxe, which chains to pxe/<MAC>.ipxe (TFTP).\n"
        "dhcp-boot=tag:ipxe,boot.ipxe\n");
  std::string http = render_dnsmasq_conf(lab_plan(lab_manifest(), "http://10.0.2.2:8080/lab/"), "/srv/railyard/lab");
  CHECK(http.find(
            "# iPXE: boot.ipxe, which chains to pxe/<MAC>.ipxe (HTTP; serve the tree at http://10.0.2.2:8080/lab/).\n"
            "dhcp-boot=tag:ipxe,http://10.0.2.2:8080/lab/boot.ipxe\n") != std::string::npos);
  auto unknown = plan_pxe(lab_manifest(), lab_nodes(), "", "");
  CHECK(render_dnsmasq_conf(*unknown, "/t").find("#dhcp-range=NETWORK-ADDRESS,proxy\n") != std::string::npos);
}

TEST_CASE("the node identity is exactly what the agent reads back") {
  for (const auto& n : lab_nodes()) {
    std::string text = render_node_identity(n);
    MemorySource files;
    files.add("/etc/railyard/node.toml", text);
    Diagnostics diags;
    auto back = parse_node_identity(files, "/etc/railyard/node.toml", nullptr, diags);
    REQUIRE_MESSAGE(back.has_value(), text);
    CHECK(diags.empty());
    CHECK(back->hostname == n.hostname);
    CHECK(back->mac == n.mac);
    CHECK(back->rails == n.rails);
  }
  CHECK(render_node_identity({"n1", "aa:bb:cc:dd:ee:ff", {}, "", ""}) ==
        "# This node's identity, from the node inventory (railyard pxe).\nhostname = \"n1\"\nmac = "
        "\"aa:bb:cc:dd:ee:ff\"\nrails = []\n");
}

TEST_CASE("writing a tree: verified image files, overlays, scripts, readable by a server") {
  TempDir tmp;
  TestImageOptions opt;
  opt.parts = {clean_rootfs(), {{"etc/motd", "hello\n"}}};
  auto m = make_test_image(tmp, "img", opt);
  tmp.write("ipxe/undionly.kpxe", "bios ipxe");
  auto plan = lab_plan(m);
  std::string tree = tmp / "srv/tree";
  auto r = write_pxe_tree(plan, m, {tmp / "img", tree, tmp / "ipxe", 1700000000, ""});
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->linked == 4);  // vmlinuz, two parts, boot.ipxe: same filesystem
  CHECK(r->copied == 0);
  REQUIRE(r->notes.size() == 1);
  CHECK(r->notes[0].rfind("snponly.efi not found in " + tmp / "ipxe", 0) == 0);
  for (const char* f : {"boot.ipxe", "dnsmasq-railyard.conf", "railyard-pxe.json", "undionly.kpxe", "image/vmlinuz",
                        "image/rootfs-00.cpio.zst", "image/rootfs-01.cpio.zst", "image/boot.ipxe",
                        "image/manifest.json", "pxe/52-54-00-00-00-01.ipxe", "pxe/52-54-00-00-00-02.ipxe",
                        "nodes/node-lab-node01.cpio.zst", "nodes/node-lab-target01.cpio.zst"})
    CHECK_MESSAGE(fs::is_regular_file(tree + "/" + f), f);
  CHECK(read_all(tree + "/pxe/52-54-00-00-00-01.ipxe") == render_node_script(plan, plan.nodes[0]));
  CHECK(read_all(tree + "/dnsmasq-railyard.conf") == render_dnsmasq_conf(plan, tree));
  struct stat st {};
  REQUIRE(::stat(tree.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0755);
  REQUIRE(::stat((tree + "/pxe").c_str(), &st) == 0);
  CHECK((st.st_mode & 0755) == 0755);
  // Hard links: one copy of the image on disk.
  struct stat a {
  }, b{};
  ::stat((tmp / "img/rootfs-00.cpio.zst").c_str(), &a);
  ::stat((tree + "/image/rootfs-00.cpio.zst").c_str(), &b);
  CHECK(a.st_ino == b.st_ino);

  // The overlay holds the identity and the host name, nothing else of the build host.
  auto toml = read_rootfs_file({tree + "/nodes/node-lab-node01.cpio.zst"}, "/etc/railyard/node.toml");
  REQUIRE(toml.ok());
  REQUIRE(toml->has_value());
  CHECK(**toml == render_node_identity(lab_nodes()[0]));
  CHECK(**read_rootfs_file({tree + "/nodes/node-lab-node01.cpio.zst"}, "/etc/hostname") == "lab-node01\n");

  // Reproducible: the same inputs give the same overlay bytes.
  std::string first = read_all(tree + "/nodes/node-lab-node01.cpio.zst");
  r = write_pxe_tree(plan, m, {tmp / "img", tree, "", 1700000000, ""});
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(read_all(tree + "/nodes/node-lab-node01.cpio.zst") == first);
  CHECK_FALSE(fs::exists(tree + "/undionly.kpxe"));  // the earlier tree was replaced whole
  CHECK(r->notes.size() == 2);
  // Nothing is left beside it.
  std::vector<std::string> beside;
  for (const auto& e : fs::directory_iterator(tmp / "srv")) beside.push_back(e.path().filename().string());
  CHECK(beside == std::vector<std::string>{"tree"});
}

TEST_CASE("a tree is written whole or not at all") {
  TempDir tmp;
  auto m = make_test_image(tmp, "img");
  auto plan = lab_plan(m);
  std::string tree = tmp / "tree";
  REQUIRE(write_pxe_tree(plan, m, {tmp / "img", tree, "", 0, ""}).ok());
  std::string before = read_all(tree + "/railyard-pxe.json");

  // An image file that changed after the build: refused, and the old tree stays as it was.
  tmp.write("img/vmlinuz", "MZ another kernel of the same...");
  auto plan2 = plan;
  plan2.nodes.pop_back();
  auto r = write_pxe_tree(plan2, m, {tmp / "img", tree, "", 0, ""});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find(tmp / "img/vmlinuz" + ": sha256 ") == 0);
  CHECK(r.error().find("(the image changed after it was built; run railyard audit on it)") != std::string::npos);
  CHECK(read_all(tree + "/railyard-pxe.json") == before);
  std::vector<std::string> beside;
  for (const auto& e : fs::directory_iterator(tmp.path())) beside.push_back(e.path().filename().string());
  std::sort(beside.begin(), beside.end());
  CHECK(beside == std::vector<std::string>{"img", "tree"});

  // A directory that is not a tree is never replaced.
  tmp.write("home/notes.txt", "mine");
  r = write_pxe_tree(plan, m, {tmp / "img", tmp / "home", "", 0, ""});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == tmp / "home" +
                         ": exists and is not a railyard PXE tree (no railyard-pxe.json); refusing to "
                         "replace it. Choose another -o, or empty it first");
  CHECK(read_all(tmp / "home/notes.txt") == "mine");
}

TEST_CASE("a node's own report token lands in its overlay only, at the recipe's join.token_file") {
  CHECK_FALSE(check_token_path("/etc/railyard/report-token"));
  CHECK(*check_token_path("/etc/../root/token") ==
        "join.token_file '/etc/../root/token' has an empty, '.' or '..' component; write it plainly, like "
        "/etc/railyard/token");
  CHECK(check_token_path("/etc//token"));
  CHECK(check_token_path("/etc/railyard/"));
  CHECK(check_token_path("relative/token"));
  CHECK(*check_token_path("/etc/hostname") ==
        "join.token_file must be an absolute path to a file, not one of the overlay's own files: '/etc/hostname' is "
        "where "
        "the overlay puts the node's identity");

  TempDir tmp;
  auto m = make_test_image(tmp, "img");
  auto plan = lab_plan(m);
  plan.token_file = "/etc/railyard/report-token";
  const std::string t1 = "5f0c1e9d7a3b2c48e6f1a09b3d7c5e2f4a6b8c0d1e3f5a7b9c2d4e6f8a0b1c3d";
  const std::string t2 = "0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e";
  plan.nodes[0].token = t1;
  plan.nodes[1].token = t2;
  std::string tree = tmp / "tree";
  auto r = write_pxe_tree(plan, m, {tmp / "img", tree, "", 0, ""});
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(**read_rootfs_file({tree + "/nodes/node-lab-node01.cpio.zst"}, "/etc/railyard/report-token") == t1 + "\n");
  CHECK(**read_rootfs_file({tree + "/nodes/node-lab-target01.cpio.zst"}, "/etc/railyard/report-token") == t2 + "\n");
  // The tree's index says where the tokens are, never what they are; nothing else holds one.
  std::string index = read_all(tree + "/railyard-pxe.json");
  CHECK(index.find("\"token_file\": \"/etc/railyard/report-token\"") != std::string::npos);
  CHECK(index.find("\"token\": true") != std::string::npos);
  for (const auto& e : fs::recursive_directory_iterator(tree))
    if (e.is_regular_file() && e.path().string().find("/nodes/") == std::string::npos)
      CHECK_MESSAGE(read_all(e.path()).find(t1) == std::string::npos, e.path());
  // The shared image holds none.
  auto shared = read_rootfs_file({tree + "/image/rootfs.cpio.zst"}, "/etc/railyard/report-token");
  REQUIRE_MESSAGE(shared.ok(), shared.error());
  CHECK_FALSE(*shared);
}

TEST_CASE("the cluster's munge key lands in every node's overlay, root's and 0400, and nowhere else") {
  CHECK(
      *check_token_path("/etc/munge/munge.key") ==
      "join.token_file must be an absolute path to a file, not one of the overlay's own files: '/etc/munge/munge.key' "
      "is where the overlay puts the cluster's munge key");
  TempDir tmp;
  auto m = make_test_image(tmp, "img");
  auto plan = lab_plan(m);
  plan.munge_key = std::string(1024, 'k');
  plan.munge_key[0] = '\n';  // a key is bytes, not a line
  std::string tree = tmp / "tree";
  auto r = write_pxe_tree(plan, m, {tmp / "img", tree, "", 0, ""});
  REQUIRE_MESSAGE(r.ok(), r.error());
  for (const char* host : {"lab-node01", "lab-target01"}) {
    CAPTURE(host);
    std::string overlay = tree + "/nodes/node-" + host + ".cpio.zst";
    CHECK(**read_rootfs_file({overlay}, "/etc/munge/munge.key") == plan.munge_key);
  }
  for (const auto& e : fs::recursive_directory_iterator(tree))
    if (e.is_regular_file() && e.path().string().find("/nodes/") == std::string::npos)
      CHECK_MESSAGE(read_all(e.path()).find(std::string(64, 'k')) == std::string::npos, e.path());
  auto shared = read_rootfs_file({tree + "/image/rootfs.cpio.zst"}, "/etc/munge/munge.key");
  REQUIRE_MESSAGE(shared.ok(), shared.error());
  CHECK_FALSE(*shared);
}

// On the PXE host an overlay holding a secret is no other user's: any local user could
// otherwise copy the cluster's munge key out of it. The server reads it as its owner, or
// through the group it is given (--group); every other file stays world-readable for it.
TEST_CASE("overlays holding a secret are their owner's alone (0600), or also the serving group's (0640)") {
  TempDir tmp;
  auto m = make_test_image(tmp, "img");
  auto plan = lab_plan(m);
  std::string tree = tmp / "tree";
  auto st = [&](const std::string& f) {
    struct stat s {};
    REQUIRE_MESSAGE(::stat((tree + "/" + f).c_str(), &s) == 0, f);
    return s;
  };
  auto mode = [&](const std::string& f) { return st(f).st_mode & 07777; };

  // No secret: as readable as the rest.
  auto r = write_pxe_tree(plan, m, {tmp / "img", tree, "", 0, ""});
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(mode("nodes/node-lab-node01.cpio.zst") == 0644);

  // One node's token: its overlay alone.
  plan.token_file = "/etc/railyard/report-token";
  plan.nodes[0].token = std::string(64, 'a');
  r = write_pxe_tree(plan, m, {tmp / "img", tree, "", 0, ""});
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(mode("nodes/node-lab-node01.cpio.zst") == 0600);
  CHECK(mode("nodes/node-lab-target01.cpio.zst") == 0644);
  for (const char* f : {"boot.ipxe", "pxe/52-54-00-00-00-01.ipxe", "railyard-pxe.json", "dnsmasq-railyard.conf"})
    CHECK_MESSAGE(mode(f) == 0644, f);
  CHECK(mode("nodes") == 0755);
  CHECK_FALSE(fs::exists(tree + "/.staging"));  // the secrets unpacked are not served
  CHECK(**read_rootfs_file({tree + "/nodes/node-lab-node01.cpio.zst"}, "/etc/railyard/report-token") ==
        std::string(64, 'a') + "\n");

  // The munge key: every overlay; with a group, 0640 and that group's.
  plan.munge_key = std::string(32, 'k');
  const struct group* own = ::getgrgid(::getegid());
  REQUIRE(own);
  PxeTreeOptions opt{tmp / "img", tree, "", 0, own->gr_name};
  r = write_pxe_tree(plan, m, opt);
  REQUIRE_MESSAGE(r.ok(), r.error());
  for (const char* f : {"nodes/node-lab-node01.cpio.zst", "nodes/node-lab-target01.cpio.zst"}) {
    CAPTURE(f);
    CHECK(mode(f) == 0640);
    CHECK(st(f).st_gid == ::getegid());
  }
  CHECK(mode("railyard-pxe.json") == 0644);

  // A group the host does not have: named, and the old tree stays.
  CHECK(find_group("railyard-no-such-group").error() ==
        "no group 'railyard-no-such-group' on this host (getent group lists them); name the group your TFTP or HTTP "
        "server runs as");
  opt.secret_group = "railyard-no-such-group";
  r = write_pxe_tree(plan, m, opt);
  REQUIRE_FALSE(r.ok());
  CHECK(mode("nodes/node-lab-node01.cpio.zst") == 0640);
  std::vector<std::string> beside;
  for (const auto& e : fs::directory_iterator(tmp.path())) beside.push_back(e.path().filename().string());
  std::sort(beside.begin(), beside.end());
  CHECK(beside == std::vector<std::string>{"img", "tree"});
}

TEST_CASE("a secret input file readable by others is told, with its mode") {
  TempDir tmp;
  tmp.write("munge.key", std::string(32, 'k'));
  std::string key = tmp / "munge.key";
  ::chmod(key.c_str(), 0600);
  CHECK_FALSE(readable_by_others(key));
  ::chmod(key.c_str(), 0400);
  CHECK_FALSE(readable_by_others(key));
  ::chmod(key.c_str(), 0640);
  CHECK(*readable_by_others(key) == key +
                                        " is readable by its group (mode 0640): whoever reads it holds the secret; "
                                        "chmod 600 " +
                                        key);
  ::chmod(key.c_str(), 0644);
  CHECK(*readable_by_others(key) == key +
                                        " is readable by every user of this host (mode 0644): whoever reads it holds "
                                        "the secret; chmod 600 " +
                                        key);
  CHECK_FALSE(readable_by_others(tmp / "missing"));
}
