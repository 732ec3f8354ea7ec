// The DKMS build tools leave the image after the builds (builder/image/stages/build_tools.cc):
// what apt would purge, and the record manifest.json's build_tools comes from.
#include <doctest/doctest.h>

#include "image/stages/build_tools.h"

using namespace railyard;

TEST_CASE("apt-get -s purge output: the packages it would remove, by name") {
  std::string out =
      "Reading package lists...\n"
      "The following packages will be REMOVED:\n  dkms* gcc-12*\n"
      "Purg dkms [3.0.10-8+deb12u1]\n"
      "Purg gcc-12 [12.2.0-14+deb12u1]\n"
      "Purg libgcc-12-dev:amd64 [12.2.0-14+deb12u1]\n"
      "Remv v4l2loopback-dkms [0.12.7-2]\n";
  CHECK(simulated_purges(out) == std::vector<std::string>{"dkms", "gcc-12", "libgcc-12-dev", "v4l2loopback-dkms"});
  CHECK(simulated_purges("nothing to do\n").empty());
}

TEST_CASE("the build tools record round-trips and refuses what is not one") {
  BuildTools t{{"dkms", "gcc-12", "labofed-dkms"}, {}, "", {"labofed-dkms 1.0"}};
  auto back = parse_build_tools_record(render_build_tools_record(t), "r.json");
  REQUIRE(back.ok());
  CHECK(back->removed == t.removed);
  CHECK(back->why_kept.empty());
  CHECK(back->sources_removed == t.sources_removed);
  // Records written before the DKMS sources went with the tools have no sources_removed.
  auto old = parse_build_tools_record("{\"removed\": [\"dkms\"], \"kept\": [], \"why_kept\": \"\"}", "r.json");
  REQUIRE(old.ok());
  CHECK(old->sources_removed.empty());
  CHECK_FALSE(parse_build_tools_record("{\"removed\": [1]}", "r.json").ok());
  CHECK_FALSE(parse_build_tools_record("{\"removed\": [\"a\\nb\"], \"kept\": [], \"why_kept\": \"\"}", "r.json").ok());
}
