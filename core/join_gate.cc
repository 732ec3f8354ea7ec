#include "join_gate.h"

#include <algorithm>
#include <cctype>

#include "text.h"

namespace railyard {

namespace {

constexpr const char* kJoinUnitTypes[] = {".service", ".target", ".socket", ".timer", ".mount"};

// A unit file's logical lines (continuations joined, comments and blank lines dropped),
// each with the section it is in.
struct UnitLine {
  std::string section, key, value;
};

std::vector<UnitLine> unit_lines(const std::string& text) {
  std::vector<UnitLine> out;
  std::string section, pending;
  for (const auto& raw : split(text, '\n')) {
    std::string line = pending + trim(raw);
    pending.clear();
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.back() == '\\') {
      pending = line.substr(0, line.size() - 1) + " ";
      continue;
    }
    if (line.front() == '[' && line.back() == ']') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    out.push_back({section, trim(line.substr(0, eq)), trim(line.substr(eq + 1))});
  }
  return out;
}

}  // namespace

std::optional<std::string> check_join_unit_name(const std::string& name) {
  const char* type = nullptr;
  for (const char* t : kJoinUnitTypes)
    if (name.size() > std::string_view(t).size() && name.ends_with(t)) type = t;
  if (!type)
    return "'" + name +
           "' is not a unit a join can start; expected a name ending in .service, .target, .socket, "
           ".timer or .mount";
  std::string prefix = name.substr(0, name.size() - std::string_view(type).size());
  if (name.size() > 255) return "'" + name.substr(0, 40) + "…' is longer than systemd's 255 bytes";
  for (unsigned char c : prefix)
    if (!std::isalnum(c) && c != ':' && c != '-' && c != '_' && c != '.' && c != '\\' && c != '@')
      return "'" + name + "': systemd unit names hold only letters, digits and \":-_.\\@\"";
  auto at = prefix.find('@');
  if (at != std::string::npos) {
    if (at == 0 || prefix.find('@', at + 1) != std::string::npos)
      return "'" + name + "': a unit name holds at most one '@', after its prefix";
    if (at + 1 == prefix.size()) return "'" + name + "' is a template; name an instance of it (\"getty@tty1.service\")";
  }
  return std::nullopt;
}

// The texts are appended piece by piece: GCC 12 misreads chains of operator+ on a string made
// from a constant (false -Warray-bounds, bug 105329).
std::string join_gate_path(const std::string& unit) {
  std::string out = kUnitDirs[0];
  out += '/';
  out += unit;
  out += ".d/99-railyard-gate.conf";
  return out;
}

std::string join_gate_text(const std::string& unit) {
  std::string out = "# Written by railyard build: ";
  out += unit;
  out +=
      " is a join unit of this image's recipe. It starts only\n"
      "# once railyard-firstboot has proven the node's fabric and written ";
  out += kJoinedMarker;
  out +=
      ",\n"
      "# whether or not its package enabled it; the agent then starts it and waits until it is\n"
      "# active. No After=";
  out += kAgentUnit;
  out +=
      ": the agent is a oneshot that starts this unit\n"
      "# itself, and a start job ordered after it would wait until the agent had exited.\n"
      "# `railyard audit` checks that this file is here and that no later drop-in undoes it.\n"
      "[Unit]\n"
      "ConditionPathExists=";
  out += kJoinedMarker;
  out += '\n';
  return out;
}

std::optional<std::string> join_gate_problem(const std::string& text) {
  bool condition = false;
  for (const auto& l : unit_lines(text))
    if (l.section == "Unit" && l.key == "ConditionPathExists")
      condition = !l.value.empty() && (condition || l.value == kJoinedMarker);
  if (!condition) return "no ConditionPathExists=" + std::string(kJoinedMarker) + " in [Unit]";
  return std::nullopt;
}

bool resets_path_conditions(const std::string& text) {
  auto lines = unit_lines(text);
  return std::any_of(lines.begin(), lines.end(), [](const UnitLine& l) {
    return l.section == "Unit" && l.key == "ConditionPathExists" && l.value.empty();
  });
}

std::optional<std::string> unit_template(const std::string& unit) {
  auto at = unit.find('@');
  auto dot = unit.rfind('.');
  if (at == std::string::npos || dot == std::string::npos || dot <= at + 1) return std::nullopt;
  return unit.substr(0, at + 1) + unit.substr(dot);
}

std::vector<std::string> unit_file_paths(const std::string& unit) {
  std::vector<std::string> names{unit};
  if (auto t = unit_template(unit)) names.push_back(*t);
  std::vector<std::string> out;
  for (const auto& n : names)
    for (const char* dir : kUnitDirs) {
      std::string path = dir;
      path += '/';
      path += n;
      out.push_back(std::move(path));
    }
  return out;
}

}  // namespace railyard
