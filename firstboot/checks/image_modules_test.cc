#include "checks/image_modules.h"

#include <doctest/doctest.h>

#include "support/fake_host.h"

using namespace railyard;
using railyard::test::FakeHost;

namespace {

// Two releases' worth of a build record: an inbox bundle that only names modules, a vendor
// one whose DKMS built two, and one that names a module an earlier bundle named too.
const char* kRecord = R"([
  {"name": "debian12-inbox", "version": "44.0-2", "kind": "distro", "packages": ["rdma-core"],
   "modules": ["ib_uverbs", "8021q"], "dkms": [], "emulates": []},
  {"name": "labofed-1.1", "version": "1.1", "kind": "apt", "packages": ["labofed"], "modules": ["labofed"],
   "dkms": [{"module": "labofed", "version": "1.1", "kernel": "6.1.0-57-amd64",
             "files": ["lib/modules/6.1.0-57-amd64/updates/dkms/labofed.ko"]}], "emulates": []},
  {"name": "railyard-lab-qos", "version": "1.0", "kind": "source", "packages": [], "modules": ["railyard_lab_qos"],
   "dkms": [{"module": "railyard-lab-qos", "version": "1.0", "kernel": "6.1.0-57-amd64",
             "files": ["lib/modules/6.1.0-57-amd64/updates/dkms/railyard_lab_qos.ko",
                       "lib/modules/6.1.0-57-amd64/updates/dkms/bad name.ko"]}], "emulates": ["dcb"]},
  {"name": "again", "version": "1", "kind": "distro", "modules": ["8021q"]}
])";

}  // namespace

TEST_CASE("image modules: each bundle's modules as the kernel has them, versions from /sys/module") {
  FakeHost h;
  h.files[kImageDriversRecord] = kRecord;
  h.modules = {"labofed", "railyard_lab_qos", "8021q"};
  h.files["/sys/module/labofed/version"] = "1.1\n";
  h.files["/sys/module/labofed/srcversion"] = "0F1E2D3C4B5A69788796A5B\n";
  h.files["/sys/module/railyard_lab_qos/version"] = "1.0";
  auto j = image_modules(h, h);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 4);  // 8021q once, under the bundle that named it first
  CHECK(j[0] == nlohmann::ordered_json{{"name", "ib_uverbs"},
                                       {"bundle", "debian12-inbox"},
                                       {"bundle_version", "44.0-2"},
                                       {"built", nullptr},
                                       {"loaded", false},
                                       {"version", nullptr},
                                       {"srcversion", nullptr}});
  CHECK(j[1]["name"] == "8021q");
  CHECK(j[1]["loaded"] == true);
  CHECK(j[1]["version"].is_null());  // in-tree modules carry no MODULE_VERSION
  CHECK(j[2] == nlohmann::ordered_json{{"name", "labofed"},
                                       {"bundle", "labofed-1.1"},
                                       {"bundle_version", "1.1"},
                                       {"built", "1.1"},
                                       {"loaded", true},
                                       {"version", "1.1"},
                                       {"srcversion", "0F1E2D3C4B5A69788796A5B"}});
  // Named and DKMS-built: one entry, with the DKMS version; a file name that is no module
  // name never reaches a path.
  CHECK(j[3]["name"] == "railyard_lab_qos");
  CHECK(j[3]["built"] == "1.0");
  CHECK(j[3]["version"] == "1.0");
  CHECK(j[3]["bundle"] == "railyard-lab-qos");
}

TEST_CASE("image modules: no record outside a railyard image; a broken one says so") {
  FakeHost h;
  CHECK(image_modules(h, h).is_null());
  h.files[kImageDriversRecord] = "{\"not\": \"an array\"}";
  auto j = image_modules(h, h);
  REQUIRE(j.size() == 1);
  CHECK(j[0]["error"].get<std::string>().find("not a drivers record") != std::string::npos);
  h.files.erase(kImageDriversRecord);
  h.read_errors[kImageDriversRecord] = EACCES;
  CHECK(image_modules(h, h)[0]["error"].get<std::string>().find("Permission denied") != std::string::npos);
}
