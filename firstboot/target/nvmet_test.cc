// firstboot/target/nvmet.cc against a temporary tree shaped like the kernel's configfs: what
// a fresh target gets, that a second run changes nothing, and what is never overwritten.
#include <doctest/doctest.h>

#include <filesystem>

#include "builder/temp_dir.h"
#include "nvmet.h"

using namespace railyard;
using railyard::test::TempDir;
namespace fs = std::filesystem;

namespace {

constexpr const char* kNqn = "nqn.2026-11.org.railyard.lab:target0";

// An ordinary tree that, like nvmet's configfs, creates each new object's children and
// attributes when the object's directory is made (drivers/nvme/target/configfs.c).
class NvmetTree : public Configfs {
 public:
  explicit NvmetTree(const std::string& root) : Configfs(root) {
    fs::create_directories(where(std::string(kNvmetRoot) + "/subsystems"));
    fs::create_directories(where(std::string(kNvmetRoot) + "/ports"));
    fs::create_directories(where(std::string(kNvmetRoot) + "/hosts"));
  }
  Status make_directory(const std::string& path) const override {
    bool fresh = !exists(path);
    Status s = Configfs::make_directory(path);
    if (!s.ok() || !fresh) return s;
    std::string kind = fs::path(path).parent_path().filename();
    auto attrs = [&](std::initializer_list<const char*> names) {
      for (const char* n : names) REQUIRE(write(path + "/" + n, "").ok());
    };
    if (kind == "subsystems" && path.rfind(std::string(kNvmetRoot) + "/subsystems/", 0) == 0) {
      REQUIRE(Configfs::make_directory(path + "/namespaces").ok());
      REQUIRE(Configfs::make_directory(path + "/allowed_hosts").ok());
      REQUIRE(write(path + "/attr_allow_any_host", "0").ok());
    } else if (kind == "namespaces") {
      attrs({"device_path", "device_nguid"});
      REQUIRE(write(path + "/enable", "0").ok());
    } else if (kind == "ports") {
      REQUIRE(Configfs::make_directory(path + "/subsystems").ok());
      attrs({"addr_trtype", "addr_adrfam", "addr_traddr", "addr_trsvcid"});
    }
    return s;
  }
};

NvmetExport lab_export() { return {kNqn, "rdma", "198.18.0.100", 4420, "/dev/nullb0"}; }

std::string value(const Configfs& c, const std::string& rel) {
  auto v = c.read(std::string(kNvmetRoot) + "/" + rel);
  REQUIRE_MESSAGE(v.ok(), v.error());
  return *v;
}

int count(const std::vector<Change>& changes, ChangeOutcome o) {
  int n = 0;
  for (const auto& c : changes) n += c.outcome == o;
  return n;
}

}  // namespace

TEST_CASE("a fresh nvmet gets the subsystem, its namespace, a port on the rail address and the link") {
  TempDir tmp;
  NvmetTree cfs(tmp.path());
  std::vector<Change> changes;
  apply_nvmet_export(lab_export(), cfs, changes);
  CHECK(count(changes, ChangeOutcome::failed) == 0);
  std::string sub = std::string("subsystems/") + kNqn;
  CHECK(value(cfs, sub + "/attr_allow_any_host") == "1");
  CHECK(value(cfs, sub + "/namespaces/1/device_path") == "/dev/nullb0");
  CHECK(value(cfs, sub + "/namespaces/1/enable") == "1");
  CHECK(value(cfs, "ports/1/addr_trtype") == "rdma");
  CHECK(value(cfs, "ports/1/addr_adrfam") == "ipv4");
  CHECK(value(cfs, "ports/1/addr_traddr") == "198.18.0.100");
  CHECK(value(cfs, "ports/1/addr_trsvcid") == "4420");
  fs::path link = tmp / (std::string("sys/kernel/config/nvmet/ports/1/subsystems/") + kNqn);
  REQUIRE(fs::is_symlink(link));
  // Absolute: configfs resolves a link's target from the caller's view, not the link's directory.
  CHECK(fs::read_symlink(link) == fs::path(tmp / ("sys/kernel/config/nvmet/" + sub)));
}

TEST_CASE("a second export run changes nothing") {
  TempDir tmp;
  NvmetTree cfs(tmp.path());
  std::vector<Change> first, second;
  apply_nvmet_export(lab_export(), cfs, first);
  apply_nvmet_export(lab_export(), cfs, second);
  CHECK(count(first, ChangeOutcome::changed) > 0);
  CHECK(count(second, ChangeOutcome::unchanged) == static_cast<int>(second.size()));
  CHECK(second.size() == 6);  // subsystem, any host, namespace, namespace enabled, port, link
  CHECK_FALSE(cfs.exists(std::string(kNvmetRoot) + "/ports/2"));
}

TEST_CASE("a port serving something else is left alone and a new one is made") {
  TempDir tmp;
  NvmetTree cfs(tmp.path());
  NvmetExport other{"nqn.2026-11.org.example:other", "tcp", "198.18.1.100", 4420, "/dev/nullb0"};
  std::vector<Change> changes;
  apply_nvmet_export(other, cfs, changes);
  apply_nvmet_export(lab_export(), cfs, changes);
  CHECK(count(changes, ChangeOutcome::failed) == 0);
  CHECK(value(cfs, "ports/1/addr_traddr") == "198.18.1.100");
  CHECK(value(cfs, "ports/2/addr_traddr") == "198.18.0.100");
  CHECK(value(cfs, "ports/2/addr_trtype") == "rdma");
}

TEST_CASE("a namespace already serving another device is reported, never changed") {
  TempDir tmp;
  NvmetTree cfs(tmp.path());
  std::string ns = std::string(kNvmetRoot) + "/subsystems/" + kNqn + "/namespaces/1";
  REQUIRE(cfs.make_directory(std::string(kNvmetRoot) + "/subsystems/" + kNqn).ok());
  REQUIRE(cfs.make_directory(ns).ok());
  REQUIRE(cfs.write(ns + "/device_path", "/dev/loop0").ok());
  REQUIRE(cfs.write(ns + "/enable", "1").ok());
  std::vector<Change> changes;
  apply_nvmet_export(lab_export(), cfs, changes);
  REQUIRE(count(changes, ChangeOutcome::failed) == 1);
  CHECK(changes.back().detail.find("already serves /dev/loop0") != std::string::npos);
  CHECK(value(cfs, std::string("subsystems/") + kNqn + "/namespaces/1/device_path") == "/dev/loop0");
  CHECK_FALSE(cfs.exists(std::string(kNvmetRoot) + "/ports/1"));  // nothing served from a wrong namespace
}

TEST_CASE("without nvmet in configfs the export fails naming the module") {
  TempDir tmp;
  Configfs cfs(tmp.path());
  std::vector<Change> changes;
  apply_nvmet_export(lab_export(), cfs, changes);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].outcome == ChangeOutcome::failed);
  CHECK(changes[0].detail.find("nvmet module") != std::string::npos);
}

TEST_CASE("attributes of an object that does not exist cannot be written, as on configfs") {
  TempDir tmp;
  Configfs cfs(tmp.path());
  Status s = cfs.write("/sys/kernel/config/nvmet/ports/9/addr_traddr", "198.18.0.100");
  CHECK(s.code() == ENOENT);
}
