#include "slurm.h"

#include <algorithm>
#include <cctype>

#include "net.h"
#include "text.h"

namespace railyard {

namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

}  // namespace

std::optional<std::string> check_slurm_controller(const std::string& v) {
  std::string host = v;
  if (auto colon = v.rfind(':'); colon != std::string::npos) {
    host = v.substr(0, colon);
    std::string port = v.substr(colon + 1);
    if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), ::isdigit) || std::stoi(port) < 1 ||
        std::stoi(port) > 65535)
      return "'" + escape_control(v) + "': the port after ':' must be 1 to 65535";
  }
  if (host.empty()) return std::string("the controller's host is empty");
  bool dotted = std::all_of(host.begin(), host.end(),
                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
  return dotted ? check_ipv4(host) : check_hostname(host);
}

std::optional<std::string> check_slurm_name(const std::string& v) {
  if (v.empty() || v.size() > 64 || !std::all_of(v.begin(), v.end(), name_char))
    return "'" + escape_control(v) + "': 1 to 64 letters, digits, '_', '-' or '.'";
  return std::nullopt;
}

std::optional<std::string> check_slurm_feature(const std::string& v) {
  if (v == "{rdma}") return std::nullopt;
  std::string rest = replace_all(replace_all(v, "{rails}", "0"), "{gpus}", "0");
  if (rest.empty() || v.size() > 64 || !std::all_of(rest.begin(), rest.end(), name_char))
    return "'" + escape_control(v) +
           "': 1 to 64 letters, digits, '_', '-' or '.', with {rails} and {gpus}, or \"{rdma}\" alone";
  return std::nullopt;
}

SlurmController parse_slurm_controller(const std::string& v) {
  SlurmController c{v, kSlurmctldPort};
  if (auto colon = v.rfind(':'); colon != std::string::npos) {
    c.host = v.substr(0, colon);
    c.port = std::stoi(v.substr(colon + 1));
  }
  return c;
}

std::string slurmd_dropin_text(const SlurmSpec& s) {
  SlurmController c = parse_slurm_controller(s.controller);
  return "# railyard [join.slurm]: slurmd fetches the cluster's configuration from slurmctld\n"
         "# (configless), so the image holds no slurm.conf and the package's condition on one is\n"
         "# reset here. The join gate (99-railyard-gate.conf) is applied after this drop-in.\n"
         "[Unit]\n"
         "ConditionPathExists=\n"
         "\n"
         "[Service]\n"
         "Environment=\"SLURMD_OPTIONS=--conf-server " +
         c.host + ":" + std::to_string(c.port) +
         "\"\n"
         "# A configless slurmd exits when it cannot fetch the configuration (the controller not up\n"
         "# yet at a rack's power-on, or out of reach for a moment): systemd starts it again, also\n"
         "# once the agent waits for the registration rather than for the unit.\n"
         "Restart=on-failure\n"
         "RestartSec=" +
         std::to_string(kSlurmdRestartSec) + "\n";
}

std::string munge_tmpfiles_text() {
  // Only the key: the overlay leaves its directory root's (0755), which munged accepts, and
  // systemd-tmpfiles refuses to follow a directory it made munge's to a file that is root's.
  return "# railyard [join.slurm]: the cluster's munge key arrives with the node's overlay as root's;\n"
         "# munged reads it only when it is munge's own and no one else's.\n"
         "z " +
         std::string(kMungeKey) + " 0400 munge munge -\n";
}

std::string slurm_client_conf(const SlurmSpec& s) {
  SlurmController c = parse_slurm_controller(s.controller);
  return "# railyard-firstboot's own Slurm client configuration (scontrol): the controller\n"
         "# only. slurmd and the node's users read the cluster's, which slurmd fetches.\n"
         "ClusterName=" +
         s.cluster + "\nSlurmctldHost=" + c.host + "\nSlurmctldPort=" + std::to_string(c.port) + "\n";
}

std::vector<std::string> slurm_features(const SlurmSpec& s, const SlurmFacts& f) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& v) {
    if (!v.empty() && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const auto& t : s.features) {
    if (t == "{rdma}") {
      for (const auto& d : f.rdma) add(d);
      continue;
    }
    add(replace_all(replace_all(t, "{rails}", std::to_string(f.rails)), "{gpus}", std::to_string(f.gpus)));
  }
  return out;
}

SlurmNodeState parse_scontrol_node(const std::string& output) {
  SlurmNodeState s;
  std::string line = trim(output.substr(0, output.find('\n')));
  if (line.rfind("NodeName=", 0) != 0) return s;  // "Node n01 not found"
  s.known = true;
  // The reason runs to the end of the line; every other value is one word.
  std::string words = line;
  if (auto at = line.find(" Reason="); at != std::string::npos) {
    words = line.substr(0, at);
    s.reason = trim(line.substr(at + 8));
    if (s.reason.size() > 2 && s.reason.back() == ']')
      if (auto open = s.reason.rfind(" ["); open != std::string::npos && s.reason.find('@', open) != std::string::npos)
        s.reason = trim(s.reason.substr(0, open));
    if (s.reason == "(null)") s.reason.clear();
  }
  std::string started;
  for (const auto& word : split(words, ' ')) {
    auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    auto list = [&value] {
      std::vector<std::string> out;
      if (value != "(null)" && !value.empty())
        for (const auto& v : split(value, ',')) out.push_back(v);
      return out;
    };
    if (key == "State") s.state = value;
    else if (key == "Partitions") s.partitions = list();
    else if (key == "AvailableFeatures") s.features = list();
    else if (key == "SlurmdStartTime") started = value;
  }
  auto flags = split(s.state, '+');
  auto has = [&flags](const char* f) { return std::find(flags.begin(), flags.end(), f) != flags.end(); };
  const std::string base = flags.empty() ? "" : flags.front();
  s.drained = has("DRAIN");
  s.responding = !s.state.empty() && !has("NOT_RESPONDING") && base != "UNKNOWN" && base != "DOWN" &&
                 base != "FUTURE" && !started.empty() && started != "None";
  return s;
}

bool drained_by_railyard(const SlurmNodeState& s) { return s.drained && s.reason.rfind(kSlurmReasonPrefix, 0) == 0; }

bool drained_by_sweep(const SlurmNodeState& s) { return s.drained && s.reason.rfind(kSweepReasonPrefix, 0) == 0; }

std::vector<std::string> scontrol_show_node_argv(const std::string& node) {
  return {"scontrol", "show", "node", node, "--oneliner"};
}

std::vector<std::string> scontrol_drain_argv(const std::string& node, const std::string& reason) {
  return {"scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason};
}

std::vector<std::string> scontrol_resume_argv(const std::string& node) {
  return {"scontrol", "update", "NodeName=" + node, "State=RESUME"};
}

std::vector<std::string> scontrol_features_argv(const std::string& node, const std::vector<std::string>& features) {
  std::string list = join(features, ",");
  return {"scontrol", "update", "NodeName=" + node, "AvailableFeatures=" + list, "ActiveFeatures=" + list};
}

}  // namespace railyard
