// The schema machinery (schema.h), exercised through the recipe's key table.
#include <doctest/doctest.h>

#include <string>

#include "recipe_loader.h"
#include "toml_file.h"
#include "support/diagnostics_expect.h"
#include "support/recipe_expect.h"

using namespace railyard;
using namespace railyard::test;

namespace {

// The parse of `text` through the recipe schema alone (no cross-field checks).
struct Parsed {
  Diagnostics diags;
  Recipe recipe;
  schema::Positions positions;
  std::set<std::string> failed;
};
Parsed parse(const std::string& text) {
  Parsed p;
  schema::ParseContext ctx{p.diags, p.positions, "r.toml", &p.failed};
  recipe_schema().parse(toml::parse(text, std::string("r.toml")), p.recipe, ctx);
  return p;
}

}  // namespace

TEST_CASE("a known key is accepted") {
  auto r = load(R"(
[fabric]
mtu = 4200
)");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lr);
  CHECK(r.lr->recipe.fabric.mtu == 4200);
}

TEST_CASE("unknown key close to a known one: did you mean") {
  auto r = load(R"(
[fabric]
mtuu = 9000
)");
  CHECK(one(r.diags, "unknown key 'fabric.mtuu'; did you mean 'fabric.mtu'?") == "r.toml:3:1");
}

TEST_CASE("unknown top-level key and unknown section suggest the known name") {
  CHECK(one(load(R"(
descripton = "x"
)")
                .diags,
            "unknown key 'descripton'; did you mean 'description'?") == "r.toml:2:1");
  CHECK(one(load(R"(
[fabrik]
mtu = 9000
)")
                .diags,
            "unknown key 'fabrik'; did you mean 'fabric'?") == "r.toml:2:2");
}

TEST_CASE("unknown key far from every known one lists what is allowed") {
  auto r = load(R"(
[fabric]
bandwidth = 100
)");
  CHECK(one(r.diags,
            "unknown key 'fabric.bandwidth'; allowed here: pfc, pfc_priority, trust, roce_dscp, cnp_dscp, ecn, mtu, "
            "vlan, pfc_storm_timeout_ms, soft_roce, lldp, topology, probe, leaf") == "r.toml:3:1");
}

TEST_CASE("wrong type is reported at the value") {
  CHECK(one(load(R"(
[fabric]
mtu = "9000"
)")
                .diags,
            "fabric.mtu: expected an integer (1280–9216), found a string") == "r.toml:3:7");
  CHECK(one(load(R"(
[fabric]
soft_roce = 1
)")
                .diags,
            "fabric.soft_roce: expected true or false, found an integer") == "r.toml:3:13");
  CHECK(one(load(R"(
description = 3
)")
                .diags,
            "description: expected a string, found an integer") == "r.toml:2:15");
  CHECK(one(load(R"(
[fabric]
pfc = true
)")
                .diags,
            "fabric.pfc: expected a string, found a boolean") == "r.toml:3:7");
  CHECK(one(load(R"(
[image]
packages = "curl"
)")
                .diags,
            "image.packages: expected an array of strings, found a string") == "r.toml:3:12");
  CHECK(one(load(R"(
[nccl]
extra = "NCCL_DEBUG=INFO"
)")
                .diags,
            "nccl.extra: expected a table of strings, found a string") == "r.toml:3:9");
}

TEST_CASE("integer out of range; the bounds themselves are accepted") {
  CHECK(one(load(R"(
[fabric]
mtu = 100
)")
                .diags,
            "fabric.mtu: 100 is out of range; allowed: 1280–9216") == "r.toml:3:7");
  CHECK(one(load(R"(
schema = 2
)")
                .diags,
            "schema: 2 is out of range; allowed: 1") == "r.toml:2:10");
  CHECK(all(load(R"(
[fabric]
mtu = 1280
)")
                .diags) == "");
  CHECK(all(load(R"(
[fabric]
mtu = 9216
)")
                .diags) == "");
}

TEST_CASE("integer with a gap inside its range") {
  CHECK(one(load(R"(
[fabric]
pfc_storm_timeout_ms = 50
)")
                .diags,
            "fabric.pfc_storm_timeout_ms: 50 is out of range; allowed: 0 (disabled) or 80–8000 ms") == "r.toml:3:24");
  CHECK(all(load(R"(
[fabric]
pfc_storm_timeout_ms = 0
)")
                .diags) == "");
  CHECK(one(load(R"(
[hardware]
pcie_width = 3
)")
                .diags,
            "hardware.pcie_width: 3 is not a PCIe link width; allowed: 0, 1, 2, 4, 8, 16") == "r.toml:3:14");
  CHECK(all(load(R"(
[hardware]
pcie_width = 8
)")
                .diags) == "");
}

TEST_CASE("choice: a typo gets a suggestion, a far word only the list") {
  CHECK(
      one(load(R"(
[fabric]
pfc = "requird"
)")
              .diags,
          R"(fabric.pfc: "requird" is not allowed; allowed: "required", "best-effort", "off" (did you mean "required"?))") ==
      "r.toml:3:7");
  auto far = load(R"(
[fabric]
pfc = "maybe"
)");
  CHECK(one(far.diags, R"(fabric.pfc: "maybe" is not allowed; allowed: "required", "best-effort", "off")") ==
        "r.toml:3:7");
  CHECK(all(far.diags).find("did you mean") == std::string::npos);
  auto good = load(R"(
[fabric]
pfc = "best-effort"
)");
  CHECK(all(good.diags) == "");
  REQUIRE(good.lr);
  CHECK(good.lr->recipe.fabric.pfc == Requirement::best_effort);
}

TEST_CASE("an array element's error lands on the element's line and column") {
  auto r = load(R"(
[image]
packages = [
  "curl",
  "Bad-Name",
]
)");
  CHECK(one(r.diags, "image.packages: element 1: 'Bad-Name' contains 'B'") == "r.toml:5:3");
  CHECK(one(load(R"(
[addressing]
subnets = ["198.18.0.0/24", "198.18.1.1/24"]
)")
                .diags,
            "addressing.subnets: element 1: '198.18.1.1/24' has host bits set; the subnet is 198.18.1.0/24") ==
        "r.toml:3:29");
  CHECK(one(load(R"(
[image]
packages = ["curl", 7]
)")
                .diags,
            "image.packages: element 1: expected a string, found an integer") == "r.toml:3:21");
}

TEST_CASE("a section that is not a table") {
  CHECK(one(load(R"(
fabric = 3
)")
                .diags,
            "fabric: expected a table ([fabric]), found an integer") == "r.toml:2:10");
  CHECK(one(load(R"(
[[fabric]]
mtu = 9000
)")
                .diags,
            "fabric: expected a table ([fabric]), found an array") == "r.toml:2:1");
}

// A section of the wrong type is one error; its required keys are not also missing.
TEST_CASE("a required section of the wrong type is one error, not one more per required key") {
  CHECK(one(load(R"(
image = "bookworm"
)")
                .diags,
            "image: expected a table ([image]), found a string") == "r.toml:2:9");
}

TEST_CASE("[[nvmeof]] written as a plain table") {
  CHECK(one(load(R"(
[nvmeof]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
)")
                .diags,
            "nvmeof: expected an array of tables ([[nvmeof]]), found a table") == "r.toml:2:1");
  auto good = load(R"(
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
)");
  CHECK(all(good.diags) == "");
  REQUIRE(good.lr);
  REQUIRE(good.lr->recipe.nvmeof.size() == 1);
  CHECK(good.lr->recipe.nvmeof[0].port == 4420);
  CHECK(good.lr->recipe.nvmeof[0].required);
}

// `nvmeof = []` clears inherited targets (arrays are replaced whole by extends).
TEST_CASE("nvmeof = [] clears the targets") {
  MemorySource files;
  files.add("base.toml", std::string(kBaseRecipe) + R"(
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
)");
  files.add("r.toml", "extends = \"base.toml\"\nnvmeof = []\n");
  auto r = load_path(files, "r.toml");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lr);
  CHECK(r.lr->recipe.nvmeof.empty());
}

TEST_CASE("missing required key image.suite") {
  CHECK(one(load_alone(R"(
[image]
distro = "debian"
[addressing]
subnets = ["198.18.0.0/24"]
)")
                .diags,
            "missing required key 'image.suite'") == "r.toml:2:1");
  // Without an [image] table at all, at the top of the file.
  CHECK(one(load_alone(R"(
[addressing]
subnets = ["198.18.0.0/24"]
)")
                .diags,
            "missing required key 'image.suite'") == "r.toml:1:1");
  CHECK(all(load_alone(R"(
[image]
suite = "bookworm"
[addressing]
subnets = ["198.18.0.0/24"]
)")
                .diags) == "");
}

// A required string set to "" is an error.
TEST_CASE("a required key set to an empty string is an error") {
  CHECK(one(load_alone(R"(
[image]
suite = ""
[addressing]
subnets = ["198.18.0.0/24"]
)")
                .diags,
            "image.suite") == "r.toml:3:9");
  CHECK(one(load(R"(
[[nvmeof]]
address = ""
nqn = "nqn.2024-01.example.storage:data"
)")
                .diags,
            "nvmeof[0].address") == "r.toml:3:11");
}

TEST_CASE("missing required keys of an [[nvmeof]] table") {
  auto r = load(R"(
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"

[[nvmeof]]
port = 4421
)");
  REQUIRE(r.diags.size() == 2);
  CHECK(where(r.diags.items()[0]) == "r.toml:6:1");
  CHECK(r.diags.items()[0].message.find("missing required key 'nvmeof[1].address'") == 0);
  CHECK(where(r.diags.items()[1]) == "r.toml:6:1");
  CHECK(r.diags.items()[1].message.find("missing required key 'nvmeof[1].nqn'") == 0);
}

TEST_CASE("optional integer: unset means absent, set is range-checked") {
  auto unset = load(R"(
[fabric]
mtu = 9000
)");
  REQUIRE(unset.lr);
  CHECK_FALSE(unset.lr->recipe.fabric.vlan.has_value());
  auto set = load(R"(
[fabric]
vlan = 200
)");
  REQUIRE(set.lr);
  CHECK(set.lr->recipe.fabric.vlan == 200);
  CHECK(one(load(R"(
[fabric]
vlan = 0
)")
                .diags,
            "fabric.vlan: 0 is out of range; allowed: 1–4094") == "r.toml:3:8");
  CHECK(one(load(R"(
[fabric]
vlan = "200"
)")
                .diags,
            "fabric.vlan: expected an integer (1–4094), found a string") == "r.toml:3:8");
}

TEST_CASE("string map nccl.extra takes NCCL_ variables") {
  auto r = load(R"(
[nccl]
extra = { NCCL_IB_QPS_PER_CONNECTION = "4", NCCL_DEBUG = "INFO" }
)");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lr);
  CHECK(r.lr->recipe.nccl.extra.size() == 2);
  CHECK(r.lr->recipe.nccl.extra.at("NCCL_DEBUG") == "INFO");
}

TEST_CASE("string map nccl.extra rejects a non-NCCL key") {
  CHECK(one(load(R"(
[nccl]
extra = { OMP_NUM_THREADS = "4" }
)")
                .diags,
            "nccl.extra: key 'OMP_NUM_THREADS': not an NCCL variable; names start with NCCL_") == "r.toml:3:29");
}

TEST_CASE("string map nccl.extra rejects a variable railyard derives") {
  CHECK(one(load(R"(
[nccl.extra]
NCCL_IB_HCA = "mlx5_0"
)")
                .diags,
            "nccl.extra: key 'NCCL_IB_HCA': railyard derives NCCL_IB_HCA from the discovered rails") == "r.toml:3:15");
}

TEST_CASE("string map nccl.extra rejects a value that is not a string") {
  CHECK(one(load(R"(
[nccl]
extra = { NCCL_IB_QPS_PER_CONNECTION = 4 }
)")
                .diags,
            "nccl.extra: key 'NCCL_IB_QPS_PER_CONNECTION': expected a string, found an integer") == "r.toml:3:40");
}

TEST_CASE("TOML syntax error is reported with its position") {
  auto r = load_alone("schema = 1\n[image\nsuite = \"bookworm\"\n");
  CHECK(one(r.diags, "TOML syntax: Error while parsing table header") == "r.toml:2:7");
  CHECK(one(load_alone("schema = 1\n[fabric]\nmtu = \n").diags, "TOML syntax:") == "r.toml:3:7");
}

TEST_CASE("a file that cannot be read") {
  MemorySource none;
  auto r = load_path(none, "nope.toml");
  REQUIRE(r.diags.size() == 1);
  CHECK(r.diags.items()[0].pos.file == "nope.toml");
  CHECK(r.diags.items()[0].message == "cannot read file: No such file or directory");
}

TEST_CASE("a rejected value keeps its default and is recorded as failed") {
  auto p = parse("[image]\nsuite = \"bookworm\"\n[fabric]\nmtu = 100\nvlan = 300\n[addressing]\nsubnets = [\"x\"]\n");
  CHECK(p.diags.size() == 2);
  CHECK(p.recipe.fabric.mtu == 9000);
  CHECK(p.recipe.fabric.vlan == 300);
  CHECK(p.failed == std::set<std::string>{"fabric.mtu", "addressing.subnets"});
}

TEST_CASE("positions are recorded for keys, array elements and array tables") {
  auto p = parse(
      "[image]\nsuite = \"bookworm\"\n[addressing]\nsubnets = [\"198.18.0.0/24\", \"198.18.1.0/24\"]\n"
      "[[nvmeof]]\naddress = \"198.18.0.1\"\nnqn = \"nqn.2024-01.example.storage:data\"\n");
  CHECK(p.diags.empty());
  CHECK(p.positions.at("image.suite").line == 2);
  CHECK(p.positions.at("image.suite").column == 9);
  CHECK(p.positions.at("addressing.subnets[1]").line == 4);
  CHECK(p.positions.at("addressing.subnets[1]").column == 29);
  CHECK(p.positions.at("nvmeof[0]").line == 5);
  CHECK(p.positions.at("nvmeof[0].address").line == 6);
}

TEST_CASE("defaults are filled for absent keys") {
  auto p = parse("[image]\nsuite = \"bookworm\"\n");
  CHECK(p.diags.empty());
  CHECK(p.recipe.image.mirror == "host");
  CHECK(p.recipe.image.components == std::vector<std::string>{"main"});
  CHECK(p.recipe.fabric.pfc == Requirement::required);
  CHECK(p.recipe.fabric.roce_dscp == 26);
  CHECK(p.recipe.nccl.conf_path == "/etc/nccl.conf");
  CHECK(p.recipe.selftest.rdma_bytes == 1 << 20);
}

TEST_CASE("an all-defaults recipe renders to TOML and re-parses to the same values") {
  auto r = load_alone("[image]\nsuite = \"bookworm\"\n[addressing]\nsubnets = [\"198.18.0.0/24\"]\n");
  REQUIRE(r.lr);
  std::string text = render_recipe_toml(r.lr->recipe);
  auto again = load_alone(text);
  CHECK(all(again.diags) == "");
  REQUIRE(again.lr);
  CHECK(render_recipe_toml(again.lr->recipe) == text);
  const Recipe& a = again.lr->recipe;
  CHECK(a.name == "r");
  CHECK(a.image.suite == "bookworm");
  CHECK(a.image.kernel == "linux-image-amd64");
  CHECK(a.addressing.subnets == std::vector<std::string>{"198.18.0.0/24"});
  CHECK(a.fabric.mtu == 9000);
  CHECK_FALSE(a.fabric.vlan.has_value());
  CHECK(a.nvmeof.empty());
  CHECK(text.find("vlan") == std::string::npos);  // unset optional stays unset
}

TEST_CASE("a recipe with every kind of value round-trips through TOML") {
  auto r = load(R"(
[fabric]
vlan = 200
[nccl]
ib_sl = 3
extra = { NCCL_DEBUG = "WARN" }
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
rail = 1
required = false
)");
  REQUIRE(r.lr);
  std::string text = render_recipe_toml(r.lr->recipe);
  auto again = load_alone(text);
  CHECK(all(again.diags) == "");
  REQUIRE(again.lr);
  CHECK(render_recipe_toml(again.lr->recipe) == text);
  CHECK(again.lr->recipe.fabric.vlan == 200);
  CHECK(again.lr->recipe.nccl.ib_sl == 3);
  CHECK(again.lr->recipe.nccl.extra.at("NCCL_DEBUG") == "WARN");
  REQUIRE(again.lr->recipe.nvmeof.size() == 1);
  CHECK_FALSE(again.lr->recipe.nvmeof[0].required);
  CHECK(again.lr->recipe.nvmeof[0].rail == 1);
}

TEST_CASE("JSON render contains the sections and keys") {
  auto r = load(R"(
[fabric]
vlan = 200
)");
  REQUIRE(r.lr);
  std::string json = render_recipe_json(r.lr->recipe);
  for (const char* key : {"\"image\"", "\"suite\"", "\"bookworm\"", "\"fabric\"", "\"vlan\"", "\"addressing\"",
                          "\"198.18.1.0/24\"", "\"selftest\"", "\"join\"", "\"per-rail-subnet\""})
    CHECK_MESSAGE(json.find(key) != std::string::npos, key);
  CHECK(json.find("\"nvmeof\"") == std::string::npos);  // no targets: no key
}

TEST_CASE("markdown reference lists sections and keys") {
  std::string md = schema::markdown(recipe_schema().docs());
  CHECK(md.find("## Top level") != std::string::npos);
  CHECK(md.find("## `[fabric]`") != std::string::npos);
  CHECK(md.find("## `[[nvmeof]]`") != std::string::npos);
  CHECK(md.find("| `suite` | string | `(required)` |") != std::string::npos);
  CHECK(md.find("| `vlan` | integer | `(unset)` | 1–4094 |") != std::string::npos);
}
