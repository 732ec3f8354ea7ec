// The join gate: what keeps a cluster's node daemon (slurmd, kubelet) from starting before
// the first-boot agent has proven the fabric, in systemd's own terms. The build gives every
// `join.units` unit a drop-in that conditions it on the agent's marker, whether or not its
// package enabled it (a unit started at boot before the marker is skipped, which systemd
// does not count as a failure); the agent writes the marker on a pass and only then starts
// the units and waits for them; `railyard audit` checks every join unit still has it.
// Pure: names and texts, no file is touched here.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace railyard {

// Written by the agent when every required check passed, removed when one did not; /run is
// a tmpfs, so every boot starts closed.
inline constexpr const char* kJoinedMarker = "/run/railyard/joined";
inline constexpr const char* kAgentUnit = "railyard-firstboot.service";
// Where units and their drop-ins live in an image, in systemd's order of precedence (/run
// is empty in an image; /lib is /usr/lib on a merged-/usr system, listed for one that is not).
inline constexpr const char* kUnitDirs[] = {"/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"};

// systemd's unit name rules (systemd.unit(5)): a prefix of letters, digits and ":-_.\",
// at most one "@" (a template or an instance), and a unit type suffix; 255 bytes at most.
// Only the types a join may start are allowed. nullopt when `name` is one.
std::optional<std::string> check_join_unit_name(const std::string& name);

// "/etc/systemd/system/slurmd.service.d/99-railyard-gate.conf". The name sorts after the
// drop-ins packages ship (which number from 10 to 50 by custom), so none of theirs is
// applied after it.
std::string join_gate_path(const std::string& unit);
// The drop-in's text: ConditionPathExists= on the marker, and no ordering after the agent
// (a oneshot that starts the unit itself: a start job ordered after it would wait for it).
std::string join_gate_text(const std::string& unit);

// What keeps a drop-in from gating its unit: nullopt when `text` (a drop-in's whole text)
// conditions the unit on the marker.
std::optional<std::string> join_gate_problem(const std::string& text);
// Whether a drop-in's text resets the unit's path conditions (an empty
// "ConditionPathExists=" line), which undoes the gate when applied after it.
bool resets_path_conditions(const std::string& text);

// An instance's template ("getty@tty1.service" → "getty@.service"); nullopt for any other unit.
std::optional<std::string> unit_template(const std::string& unit);

// The files in an image that may define `unit`, in order of precedence: each unit
// directory's `unit`, then (for an instance "getty@tty1.service") its template's
// ("getty@.service").
std::vector<std::string> unit_file_paths(const std::string& unit);

}  // namespace railyard
