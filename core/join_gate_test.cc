// The join gate's names and texts (join_gate.h): which unit names a recipe may join with,
// the drop-in the build writes, and how a drop-in is read back as a gate or as undoing one.
#include "join_gate.h"

#include <doctest/doctest.h>

using namespace railyard;

TEST_CASE("join units: systemd's unit names of the types a join starts, instances but no templates") {
  for (const char* ok :
       {"slurmd.service", "kubelet.service", "multi-user.target", "node-exporter.socket", "railyard-health.timer",
        "mnt-scratch.mount", "getty@tty1.service", "dev-disk-by\\x2dlabel.mount", "a:b_c.d-e.service"}) {
    CAPTURE(ok);
    CHECK_FALSE(check_join_unit_name(ok));
  }
  struct Bad {
    std::string name, says;
  };
  for (const auto& [name, says] : std::vector<Bad>{
           {"slurmd",
            "is not a unit a join can start; expected a name ending in .service, .target, .socket, .timer or .mount"},
           {".service", "is not a unit a join can start"},
           {"slurmd.device", "is not a unit a join can start"},
           {"../../etc/passwd.service", "systemd unit names hold only letters, digits"},
           {"slurm d.service", "systemd unit names hold only letters, digits"},
           {"slurmd\n.service", "systemd unit names hold only letters, digits"},
           {"getty@.service", "is a template; name an instance of it"},
           {"@tty1.service", "at most one '@', after its prefix"},
           {"a@b@c.service", "at most one '@', after its prefix"},
           {std::string(300, 'a') + ".service", "longer than systemd's 255 bytes"},
       }) {
    CAPTURE(name);
    auto e = check_join_unit_name(name);
    REQUIRE(e);
    CHECK(e->find(says) != std::string::npos);
  }
}

TEST_CASE("join gate: the drop-in's path and text, read back as a gate") {
  CHECK(join_gate_path("slurmd.service") == "/etc/systemd/system/slurmd.service.d/99-railyard-gate.conf");
  std::string text = join_gate_text("slurmd.service");
  CHECK(text.find("[Unit]\nConditionPathExists=/run/railyard/joined\n") != std::string::npos);
  // No ordering after the agent: its start job would wait for the oneshot agent that starts it.
  CHECK(text.find("\nAfter=") == std::string::npos);
  CHECK_FALSE(join_gate_problem(text));
  CHECK_FALSE(resets_path_conditions(text));
}

TEST_CASE("join gate: what is not a gate") {
  CHECK(join_gate_problem("") == "no ConditionPathExists=/run/railyard/joined in [Unit]");
  CHECK(join_gate_problem("[Service]\nConditionPathExists=/run/railyard/joined\n"));  // wrong section
  CHECK(join_gate_problem("[Unit]\n# ConditionPathExists=/run/railyard/joined\n"));   // a comment
  CHECK(join_gate_problem("[Unit]\nConditionPathExists=!/run/railyard/joined\n"));    // negated
  CHECK(join_gate_problem("[Unit]\nConditionPathExists=/run/railyard/joined2\n"));
  // An empty assignment resets the list, the gate with it.
  CHECK(join_gate_problem("[Unit]\nConditionPathExists=/run/railyard/joined\nConditionPathExists=\n"));
  // Set again after a reset, it holds; spaces around '=' are systemd's to ignore.
  CHECK_FALSE(join_gate_problem("[Unit]\nConditionPathExists=\nConditionPathExists = /run/railyard/joined\n"));
  // A continued line is one line.
  CHECK_FALSE(join_gate_problem("[Unit]\nDescription=x \\\n  y\nConditionPathExists=/run/railyard/joined\n"));
}

TEST_CASE("join gate: a drop-in that resets the path conditions") {
  CHECK(resets_path_conditions("[Unit]\nConditionPathExists=\n"));
  CHECK(resets_path_conditions("[Unit]\nConditionPathExists=   \n"));
  CHECK_FALSE(resets_path_conditions("[Unit]\nConditionPathExists=/etc/slurm/slurm.conf\n"));
  CHECK_FALSE(resets_path_conditions("[Service]\nConditionPathExists=\n"));
  CHECK_FALSE(resets_path_conditions("[Service]\nEnvironment=A=\n"));
}

TEST_CASE("join gate: where a unit's file may be, an instance's template after it") {
  CHECK(unit_file_paths("slurmd.service") == std::vector<std::string>{"/etc/systemd/system/slurmd.service",
                                                                      "/usr/lib/systemd/system/slurmd.service",
                                                                      "/lib/systemd/system/slurmd.service"});
  CHECK(unit_template("getty@tty1.service") == "getty@.service");
  CHECK_FALSE(unit_template("slurmd.service"));
  auto p = unit_file_paths("getty@tty1.service");
  REQUIRE(p.size() == 6);
  CHECK(p[3] == "/etc/systemd/system/getty@.service");
  CHECK(p[5] == "/lib/systemd/system/getty@.service");
}
