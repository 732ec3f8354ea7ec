// core/topology.cc: scalable units from the rails' LLDP, the miscabled nodes named, and the
// forms schedulers read.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "topology.h"

using namespace railyard;

namespace {

// A node whose rail r reaches `unit`-r on port `port`.
NodeFabric node(const std::string& name, const std::string& unit, const std::string& port, int rails = 4) {
  NodeFabric n{name, {}};
  for (int r = 0; r < rails; ++r) n.rails.push_back(RailNeighbor{unit + "-r" + std::to_string(r), port});
  return n;
}

const LeftOut* left(const Topology& t, const std::string& name) {
  for (const auto& o : t.left_out)
    if (o.node == name) return &o;
  return nullptr;
}

}  // namespace

TEST_CASE("hostlist: ranges with the zero padding kept, names without digits alone, sorted naturally") {
  CHECK(hostlist({"lab-node02", "lab-node01", "lab-node03"}) == "lab-node[01-03]");
  CHECK(hostlist({"gpu7", "lab-node01", "lab-node03", "lab-node04"}) == "gpu7,lab-node[01,03-04]");
  CHECK(hostlist({"node1", "node01", "node2"}) == "node[1-2],node01");
  CHECK(hostlist({"node10", "node9", "node11"}) == "node[9-11]");
  CHECK(hostlist({"login", "a1-b", "a1-b"}) == "a1-b,login");
  CHECK(hostlist({"only7"}) == "only7");
  // A number without a leading zero shares the bracket of the padded ones of its width.
  CHECK(hostlist({"n10", "n04", "n00", "n19", "n20"}) == "n[00,04,10,19-20]");
  CHECK(hostlist({"n9", "n10", "n04"}) == "n[04,10],n9");
  std::string why;
  CHECK(expand_hostlist("n[04,10],n9", why) == std::vector<std::string>{"n04", "n10", "n9"});
  CHECK(hostlist({}).empty());
}

TEST_CASE("natural_less: digit runs as numbers") {
  CHECK(natural_less("node2", "node10"));
  CHECK_FALSE(natural_less("node10", "node2"));
  CHECK(natural_less("a1b2", "a1b10"));
  CHECK(natural_less("node1", "node01"));  // the shorter spelling of one number first
  CHECK(natural_less("node", "node1"));
}

TEST_CASE("units: nodes reaching the same leaf on every rail, in any input order") {
  std::vector<NodeFabric> in = {node("n03", "a", "swp3"), node("n01", "a", "swp1"), node("n02", "a", "swp2"),
                                node("n11", "b", "swp1"), node("n12", "b", "swp2")};
  Topology t = group_units(in);
  REQUIRE(t.units.size() == 2);
  CHECK(t.units[0].name == "su-a-r0");
  CHECK(t.units[0].leaves == std::vector<std::string>{"a-r0", "a-r1", "a-r2", "a-r3"});
  CHECK(t.units[0].nodes == std::vector<std::string>{"n01", "n02", "n03"});
  CHECK(t.units[1].nodes == std::vector<std::string>{"n11", "n12"});
  CHECK(t.left_out.empty());
  std::mt19937 rng(7);
  for (int i = 0; i < 5; ++i) {
    std::shuffle(in.begin(), in.end(), rng);
    CHECK(to_json(group_units(in)) == to_json(t));
  }
}

TEST_CASE("a cable in another unit's leaf: left out, named with the rail, the leaf and the unit it belongs to") {
  NodeFabric wrong = node("n04", "a", "swp4");
  wrong.rails[2] = RailNeighbor{"b-r2", "swp9"};
  Topology t = group_units({node("n01", "a", "swp1"), node("n02", "a", "swp2"), node("n11", "b", "swp1"), wrong});
  REQUIRE(t.units.size() == 2);
  CHECK(t.units[0].nodes == std::vector<std::string>{"n01", "n02"});
  const LeftOut* o = left(t, "n04");
  REQUIRE(o);
  CHECK(o->rail == 2);
  CHECK(o->leaf == "b-r2");
  CHECK(o->port == "swp9");
  CHECK(o->likely_unit == "su-a-r0");
  CHECK(o->why == "rail 2 reaches b-r2 port swp9, a leaf of su-b-r0, while its other rails reach su-a-r0");
}

TEST_CASE("two rails' cables crossed within a unit, a rail unheard, a leaf port two nodes claim") {
  NodeFabric crossed = node("n05", "a", "swp5");
  std::swap(crossed.rails[0], crossed.rails[1]);
  NodeFabric silent = node("n06", "a", "swp6");
  silent.rails[3].reset();
  NodeFabric twin = node("n07", "a", "swp1");  // n01's port
  NodeFabric short_node = node("n08", "a", "swp8", 3);
  Topology t = group_units({node("n01", "a", "swp1"), node("n02", "a", "swp2"), node("n03", "a", "swp3"), crossed,
                            silent, twin, short_node});
  REQUIRE(t.units.size() == 1);
  // n08, a node of three rails on the unit's first three leaves, is another SKU of the unit.
  CHECK(t.units[0].nodes == std::vector<std::string>{"n02", "n03", "n08"});
  const LeftOut* x = left(t, "n05");
  REQUIRE(x);
  CHECK(x->why == "rail 0 reaches a-r1 port swp5, su-a-r0's rail 1 leaf: two rails' cables crossed?");
  CHECK(x->likely_unit == "su-a-r0");
  REQUIRE(left(t, "n06"));
  CHECK(left(t, "n06")->why == "rail 3 heard no LLDP neighbour");
  CHECK(left(t, "n06")->rail == 3);
  CHECK(left(t, "n06")->likely_unit == "su-a-r0");
  REQUIRE(left(t, "n01"));
  CHECK(left(t, "n01")->why == "rail 0 reaches a-r0 port swp1, which n07 also reaches");
  REQUIRE(left(t, "n07"));
  CHECK(left(t, "n07")->why == "rail 0 reaches a-r0 port swp1, which n01 also reaches");
  CHECK(t.left_out.size() == 4);
  // Fewer rails on leaves that are not the unit's first ones: miscabled, not another SKU.
  NodeFabric shifted{"n09", {RailNeighbor{"a-r1", "swp9"}, RailNeighbor{"a-r2", "swp9"}}};
  Topology u = group_units({node("n01", "a", "swp1"), node("n02", "a", "swp2"), shifted});
  CHECK(u.units[0].nodes == std::vector<std::string>{"n01", "n02"});
  REQUIRE(left(u, "n09"));
  CHECK(left(u, "n09")->why == "rail 0 reaches a-r1 port swp9, su-a-r0's rail 1 leaf: two rails' cables crossed?");
}

TEST_CASE("a unit of one leaf for every rail is a unit; a node with some rails on one leaf is not") {
  NodeFabric one{"s01", {RailNeighbor{"tor1", "e1"}, RailNeighbor{"tor1", "e2"}}};
  NodeFabric two{"s02", {RailNeighbor{"tor1", "e3"}, RailNeighbor{"tor1", "e4"}}};
  Topology t = group_units({one, two});
  REQUIRE(t.units.size() == 1);
  CHECK(t.units[0].nodes == std::vector<std::string>{"s01", "s02"});
  NodeFabric half{"m01", {RailNeighbor{"x", "1"}, RailNeighbor{"x", "2"}, RailNeighbor{"y", "3"}}};
  Topology u = group_units({half});
  CHECK(u.units.empty());
  REQUIRE(left(u, "m01"));
  CHECK(left(u, "m01")->why == "rail 0 reaches x port 1, a leaf of no unit");
}

TEST_CASE("the formats: topology/tree, topology/block, JSON and Kubernetes labels") {
  Topology t = group_units({node("lab-node01", "leaf", "swp1"), node("lab-node02", "leaf", "swp2"),
                            node("gpu03", "pod2", "e3"), node("gpu04", "pod2", "e4")});
  CHECK(render_slurm_tree(t, "spine") ==
        "# topology/tree from the rails' LLDP (railyard report topology): a switch per scalable unit\n"
        "SwitchName=su-leaf-r0 Nodes=lab-node[01-02]\n"
        "SwitchName=su-pod2-r0 Nodes=gpu[03-04]\n"
        "SwitchName=spine Switches=su-leaf-r0,su-pod2-r0\n");
  CHECK(render_slurm_block(t, {2, 4}) ==
        "# topology/block from the rails' LLDP (railyard report topology): a block per scalable unit\n"
        "BlockName=su-leaf-r0 Nodes=lab-node[01-02]\n"
        "BlockName=su-pod2-r0 Nodes=gpu[03-04]\n"
        "BlockSizes=2,4\n");
  auto j = to_json(t);
  CHECK(j["units"][0]["leaves"][3] == "leaf-r3");
  CHECK(j["left_out"].empty());
  std::string why;
  auto labels = render_k8s_labels(t, why);
  REQUIRE(labels);
  CHECK(labels->find("kubectl label node lab-node01 --overwrite railyard.io/unit=su-leaf-r0 "
                     "railyard.io/rail0-leaf=leaf-r0 railyard.io/rail1-leaf=leaf-r1") == 0);
  Topology bad = group_units({NodeFabric{"n1", {RailNeighbor{"leaf r0", "1"}}}});
  CHECK_FALSE(render_k8s_labels(bad, why));
  CHECK(why ==
        "unit su-leaf r0: railyard.io/unit 'su-leaf r0' is no Kubernetes label value: ' ' is not allowed: "
        "letters, digits, '-', '_' and '.' only");
  CHECK(check_k8s_label_value(std::string(64, 'a')) == "64 characters; at most 63");
  CHECK(check_k8s_label_value("-a") == "must begin and end with a letter or digit");
  CHECK_FALSE(check_k8s_label_value("su-leaf-r0"));
}

TEST_CASE("a node that never passed makes no unit: named miscabled when its rails say so, else as not passing") {
  NodeFabric swapped = node("lab-node01", "leaf", "swp1");
  std::swap(swapped.rails[0], swapped.rails[1]);
  swapped.passed = false;
  NodeFabric fits = node("lab-node03", "leaf", "swp3");
  fits.passed = false;
  NodeFabric same_port = node("lab-node04", "leaf", "swp2");  // lab-node02's port, but it never passed
  same_port.passed = false;
  Topology t = group_units({swapped, node("lab-node02", "leaf", "swp2"), fits, same_port});
  REQUIRE(t.units.size() == 1);
  CHECK(t.units[0].nodes == std::vector<std::string>{"lab-node02"});
  REQUIRE(left(t, "lab-node01"));
  CHECK(left(t, "lab-node01")->why ==
        "rail 0 reaches leaf-r1 port swp1, su-leaf-r0's rail 1 leaf: two rails' cables crossed? (and it has no passing "
        "report)");
  CHECK(left(t, "lab-node01")->likely_unit == "su-leaf-r0");
  REQUIRE(left(t, "lab-node03"));
  CHECK(left(t, "lab-node03")->why == "no passing report; its rails reach su-leaf-r0's leaves");
  REQUIRE(left(t, "lab-node04"));
  CHECK(left(t, "lab-node04")->why == "no passing report; its rails reach su-leaf-r0's leaves");
  // Alone, a node that never passed makes no unit either.
  Topology alone = group_units({fits});
  CHECK(alone.units.empty());
  REQUIRE(left(alone, "lab-node03"));
  CHECK(left(alone, "lab-node03")->why ==
        "rail 0 reaches leaf-r0 port swp3, a leaf of no unit (and it has no passing report)");
}

TEST_CASE("expand_hostlist: Slurm's ranges back into names, and what it would not read") {
  std::string why;
  auto names = expand_hostlist("gpu[001-003,007],login", why);
  REQUIRE(names);
  CHECK(*names == std::vector<std::string>{"gpu001", "gpu002", "gpu003", "gpu007", "login"});
  auto suffix = expand_hostlist("rack[1-2]-a", why);
  REQUIRE(suffix);
  CHECK(*suffix == std::vector<std::string>{"rack1-a", "rack2-a"});
  // What hostlist() writes reads back to the same names.
  std::vector<std::string> some{"lab-node01", "lab-node02", "lab-node04", "gpu9", "gpu10", "login"};
  auto back = expand_hostlist(hostlist(some), why);
  REQUIRE(back);
  std::sort(some.begin(), some.end(), natural_less);
  std::sort(back->begin(), back->end(), natural_less);
  CHECK(*back == some);
  for (auto [bad, w] :
       std::vector<std::pair<std::string, std::string>>{{"gpu[1-", "brackets do not pair"},
                                                        {"gpu[3-1]", "'3-1' runs backwards"},
                                                        {"gpu[a]", "'a' is not a number or a range N-M"},
                                                        {"gpu[1-2][3]", "one bracket per name"},
                                                        {"a,,b", "an empty name"}}) {
    CAPTURE(bad);
    CHECK_FALSE(expand_hostlist(bad, why));
    CHECK(why == "'" + bad + "': " + w);
  }
  CHECK_FALSE(expand_hostlist("n[1-2000000]", why));
  CHECK(why == "'n[1-2000000]': more than 1048576 names");
}
