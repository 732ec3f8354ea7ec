#include "report/node_view.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "report/hints.h"
#include "text.h"

namespace railyard {

namespace {

using nlohmann::ordered_json;

constexpr CheckStatus kStatuses[] = {CheckStatus::pass, CheckStatus::fail, CheckStatus::warn, CheckStatus::skip,
                                     CheckStatus::unsupported};

std::size_t array_size(const ordered_json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? it->size() : 0;
}

bool is_apply_check(const CheckResult& c) { return c.id.kind == CheckKind::apply_failed; }

// "170 pass, 2 fail, 3 warn" over the checks `pick` selects; statuses with none left out.
template <class Pick>
std::string status_counts(const Report& r, Pick pick) {
  std::map<CheckStatus, std::size_t> n;
  for (const auto& c : r.checks)
    if (pick(c)) ++n[c.status];
  std::vector<std::string> parts;
  for (auto s : kStatuses)
    if (n[s]) parts.push_back(std::to_string(n[s]) + " " + to_string(s));
  return join(parts, ", ");
}

std::string phase_result(const Report& r, const std::string& phase) {
  if (phase == "discover" && r.inventory.is_object())
    return plural(array_size(r.inventory, "gpus"), "GPU") + ", " + plural(array_size(r.inventory, "nics"), "NIC") +
           ", " + plural(array_size(r.inventory, "rdma_devices"), "RDMA device") + ", " +
           plural(array_size(r.inventory, "numa_nodes"), "NUMA node");
  if (phase == "plan") {
    if (!r.problems.empty()) return plural(r.problems.size(), "problem") + ": nothing applied";
    if (r.plan.is_object())
      return plural(array_size(r.plan, "rails"), "rail") + ", " + plural(array_size(r.plan, "checks"), "check") +
             " planned";
  }
  if (phase == "apply" && r.changes.is_array()) {
    std::map<std::string, std::size_t> n;
    for (const auto& c : r.changes)
      if (c.is_object() && c.contains("outcome") && c["outcome"].is_string()) ++n[c["outcome"].get<std::string>()];
    std::vector<std::string> parts;
    for (const char* o : {"changed", "unchanged", "unsupported", "failed"})
      if (n[o]) parts.push_back(std::to_string(n[o]) + " " + o);
    return parts.empty() ? "nothing to change" : join(parts, ", ");
  }
  if (phase == "verify") return status_counts(r, [](const CheckResult& c) { return !is_apply_check(c); });
  return "";
}

std::string host_line(const Report& r) {
  std::vector<std::string> parts;
  if (!r.started_at.empty()) parts.push_back("started " + r.started_at);
  if (!r.railyard_version.empty()) parts.push_back("railyard " + r.railyard_version);
  if (!r.host.kernel.empty()) parts.push_back("kernel " + r.host.kernel);
  if (!r.host.drivers.empty()) parts.push_back("drivers " + join(r.host.drivers, ", "));
  if (!r.host.boot_id.empty()) parts.push_back("boot " + r.host.boot_id);
  return join(parts, "; ");
}

std::string json_text(const ordered_json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

std::vector<std::string> peer_lines(const Report& r) {
  std::vector<std::string> out;
  if (!r.peers.is_array()) return out;
  for (const auto& p : r.peers) {
    if (!p.is_object()) continue;
    std::string line = "rail " + (p.contains("rail") ? p["rail"].dump() : std::string("?")) + "  → " +
                       escape_control(json_text(p, "reference")) + "  ";
    if (p.contains("gbps") && p["gbps"].is_number()) {
      char buf[48];
      std::snprintf(buf, sizeof buf, ", %.1f µs", p.value("latency_us", 0.0));
      line += rate_text(p["gbps"].get<double>()) + buf;
      if (!p.value("match", true)) line += ", BYTES DIFFER";
    } else {
      line += "no exchange";
    }
    std::vector<std::string> moved;
    for (const char* what : {"violations", "congestion"})
      if (p.contains(what) && p[what].is_array())
        for (const auto& m : p[what])
          if (m.is_object())
            moved.push_back(escape_control(json_text(m, "name")) + " +" +
                            (m.contains("delta") ? m["delta"].dump() : std::string("?")));
    if (p.contains("violations") || p.contains("congestion"))
      line += moved.empty() ? ", counters clean" : ", " + join(moved, ", ");
    if (p.contains("tried") && p["tried"].is_array() && !p["tried"].empty())
      line += " (" + std::to_string(p["tried"].size()) + " attempts failed first)";
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> far_end_lines(const Report& r) {
  std::vector<std::string> out;
  if (!r.lldp.is_array()) return out;
  for (const auto& rail : r.lldp) {
    if (!rail.is_object()) continue;
    std::string line = "rail " + (rail.contains("rail") ? rail["rail"].dump() : std::string("?")) + "  " +
                       escape_control(json_text(rail, "ifname")) + " → ";
    const auto& n = rail.contains("neighbor") ? rail["neighbor"] : ordered_json();
    if (!n.is_object()) {
      std::string invalid = json_text(rail, "invalid");
      line += invalid.empty() ? "nothing heard" : "no valid LLDP (" + escape_control(invalid) + ")";
    } else {
      line += escape_control(json_text(n, "system_name")) + " port " + escape_control(json_text(n, "port_id"));
      std::vector<std::string> what;
      if (n.contains("pfc") && n["pfc"].is_object()) what.push_back("PFC " + json_text(n["pfc"], "enabled"));
      if (n.contains("max_frame_size") && n["max_frame_size"].is_number())
        what.push_back("frame " + n["max_frame_size"].dump());
      if (n.contains("vlans") && n["vlans"].is_array())
        for (const auto& v : n["vlans"])
          if (v.is_object() && v.contains("vid")) what.push_back("VLAN " + v["vid"].dump());
      if (!what.empty()) line += " (" + escape_control(join(what, ", ")) + ")";
    }
    // What one rail should never hear: more than one switch port, or a flood.
    if (rail.contains("other_neighbors") && rail["other_neighbors"].is_array())
      for (const auto& o : rail["other_neighbors"])
        if (o.is_object())
          line += "; also heard " + escape_control(json_text(o, "system_name")) + " port " +
                  escape_control(json_text(o, "port_id"));
    if (rail.contains("flood_per_s") && rail["flood_per_s"].is_number_unsigned() &&
        rail["flood_per_s"].get<std::uint64_t>() > 0)
      line += "; FLOODED, " + rail["flood_per_s"].dump() + " frames a second";
    const auto& want = rail.contains("expected") ? rail["expected"] : ordered_json();
    std::string system = json_text(want, "system"), port = json_text(want, "port");
    if (!system.empty() || !port.empty())
      line += "; expected " + escape_control(system.empty() ? "any" : system) + " port " +
              escape_control(port.empty() ? "any" : port);
    out.push_back(line);
  }
  return out;
}

// "180000 Mb/s (dma-buf)" from "0000:17:00.0: 1048576 bytes verified at 180000 Mb/s
// (dma-buf); ...": the part of a data-path check's observed value for one GPU (`pci`, or
// the whole value when empty), after "verified at" where it says so.
std::string figure_for(const std::string& observed, const std::string& pci) {
  std::string part = observed;
  if (!pci.empty())
    for (const auto& piece : split(observed, ';')) {
      std::string t = trim(piece);
      if (t.rfind(pci + ": ", 0) == 0) part = t.substr(pci.size() + 2);
    }
  auto at = part.find("verified at ");
  return at == std::string::npos ? part : part.substr(at + 12);
}

std::vector<std::string> gpu_lines(const Report& r) {
  std::vector<std::string> out;
  if (!r.plan.is_object() || !r.plan.contains("gpus") || !r.plan["gpus"].is_array()) return out;
  const auto& gpus = r.plan["gpus"];
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (!gpus[i].is_string()) continue;
    const std::string pci = gpus[i].get<std::string>();
    std::string rail = "(no rail)";
    int rail_index = -1;
    if (r.plan.contains("rails") && r.plan["rails"].is_array())
      for (const auto& rl : r.plan["rails"]) {
        if (!rl.is_object() || !rl.contains("gpu_pcis") || !rl["gpu_pcis"].is_array()) continue;
        for (const auto& g : rl["gpu_pcis"])
          if (g.is_string() && g.get<std::string>() == pci) {
            rail = "rail " + (rl.contains("index") ? rl["index"].dump() : std::string("?")) + "  " +
                   json_text(rl, "ifname");
            if (rl.contains("index") && rl["index"].is_number_integer()) rail_index = rl["index"].get<int>();
          }
      }
    std::string name, temp, nvlink;
    std::vector<std::string> findings;
    std::map<CheckStatus, std::size_t> n;
    for (const auto& c : r.checks) {
      if (c.id.scope() != CheckScope::gpu || c.id.index != static_cast<int>(i)) continue;
      ++n[c.status];
      if (c.status == CheckStatus::pass) {
        if (c.id.kind == CheckKind::gpu_nvml) name = c.observed.substr(0, c.observed.find(','));
        if (c.id.kind == CheckKind::gpu_temperature) temp = c.observed;
        if (c.id.kind == CheckKind::gpu_nvlink) nvlink = "NVLink " + c.observed;
      } else if (c.status != CheckStatus::skip) {
        findings.push_back(to_string(c.status) + " " + c.name() + (c.observed.empty() ? "" : " (" + c.observed + ")"));
      }
    }
    std::vector<std::string> parts;
    for (auto s : kStatuses)
      if (n[s]) parts.push_back(std::to_string(n[s]) + " " + to_string(s));
    std::string line = pad_right(escape_control(rail), 16) + " ← GPU " + std::to_string(i) + " " + escape_control(pci) +
                       (name.empty() ? "" : " " + escape_control(name)) + ": " +
                       (parts.empty() ? "no checks" : join(parts, ", "));
    for (const auto& extra : {temp, nvlink})
      if (!extra.empty()) line += "; " + escape_control(extra);
    // GPUDirect from this GPU's memory beside the rail's write from host memory.
    if (rail_index >= 0) {
      std::string gpudirect, host;
      for (const auto& c : r.checks) {
        if (c.id.scope() != CheckScope::rail || c.id.index != rail_index) continue;
        if (c.id.kind == CheckKind::rail_gpudirect_write)
          gpudirect =
              c.status == CheckStatus::pass ? figure_for(c.observed, pci) : to_string(c.status) + " (" + c.name() + ")";
        if (c.id.kind == CheckKind::rail_rdma_write && c.status == CheckStatus::pass) host = figure_for(c.observed, "");
      }
      if (!gpudirect.empty())
        line +=
            "; GPUDirect " + escape_control(gpudirect) + (host.empty() ? "" : ", host memory " + escape_control(host));
    }
    for (const auto& f : findings) line += "; " + escape_control(f);
    out.push_back(line);
  }
  return out;
}

// "labofed      1.1      loaded  labofed-1.1, DKMS 1.1, srcversion 0F1E2D3C4B5A": the driver
// bundles' modules as the node's kernel had them (escaped by the caller).
std::vector<std::string> module_lines(const Report& r) {
  std::vector<std::string> out;
  if (!r.modules.is_array()) return out;
  for (const auto& m : r.modules) {
    if (!m.is_object()) continue;
    if (m.contains("error")) {
      out.push_back("the build's record of the bundles: " + json_text(m, "error"));
      continue;
    }
    const bool loaded = m.value("loaded", false);
    std::string line = pad_right(json_text(m, "name"), 19) + " " + pad_right(json_text(m, "version"), 13) + " " +
                       pad_right(loaded ? "loaded" : "not loaded", 11) + " " + json_text(m, "bundle");
    if (std::string built = json_text(m, "built"); !built.empty()) line += ", DKMS " + built;
    if (std::string src = json_text(m, "srcversion"); !src.empty()) line += ", srcversion " + src;
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> join_lines(const Report& r) {
  std::vector<std::string> out;
  const ordered_json& j = r.join;
  if (!j.is_object()) return out;
  const auto e = escape_control;
  bool joined = j.contains("joined") && j["joined"].is_boolean() && j["joined"].get<bool>();
  out.push_back(joined ? "joined (" + e(json_text(j, "gate")) + " written)" : "not joined");
  if (j.contains("units") && j["units"].is_array())
    for (const auto& u : j["units"]) {
      if (!u.is_object()) continue;
      std::string detail = json_text(u, "detail");
      std::string line =
          e(json_text(u, "unit")) + "  " + e(json_text(u, "state")) + (detail.empty() ? "" : ": " + e(detail));
      if (u.contains("waited_ms") && u["waited_ms"].is_number())
        line += " (" + duration_text(u["waited_ms"].get<double>()) + ")";
      out.push_back(line);
    }
  if (j.contains("on_fail") && j["on_fail"].is_object()) {
    const auto& f = j["on_fail"];
    std::string line = "on_fail exited " + (f.contains("exit") ? f["exit"].dump() : std::string("?"));
    if (f.contains("failed_checks") && f["failed_checks"].is_array()) {
      std::vector<std::string> names;
      for (const auto& c : f["failed_checks"])
        if (c.is_string()) names.push_back(e(c.get<std::string>()));
      if (!names.empty()) line += " (failed checks: " + join(names, ", ") + ")";
    }
    out.push_back(line);
  }
  if (j.contains("posts") && j["posts"].is_array() && !j["posts"].empty()) {
    const auto& posts = j["posts"];
    bool sent = j.contains("posted") && j["posted"].is_boolean() && j["posted"].get<bool>();
    std::string line = std::string(sent ? "report sent" : "report NOT sent") + " (" + plural(posts.size(), "attempt");
    const auto& last = posts.back();
    if (!sent && last.is_object()) line += "; last: " + e(json_text(last, "error"));
    out.push_back(line + ")");
  }
  return out;
}

std::vector<PhaseSummary> phase_summaries(const Report& r) {
  std::vector<PhaseSummary> out;
  for (const auto& p : r.phases) out.push_back({p.phase, p.ms, phase_result(r, p.phase)});
  return out;
}

std::string node_text(const LoadedReport& lr, const TextStyle& st) {
  const Report& r = lr.report;
  std::ostringstream out;
  std::size_t failing = 0;
  for (const auto& c : r.checks) failing += c.failing();
  // Every field of the report is the node's to write: escaped before it reaches a terminal.
  const auto e = escape_control;
  out << st.bold(lr.name().empty() ? "(unnamed node)" : e(lr.name())) << "  "
      << (lr.verdict() ? st.good("PASS") : st.bad("FAIL")) << "  recipe " << (r.recipe.empty() ? "?" : e(r.recipe))
      << "  (" << failing << " of " << r.checks.size() << " checks failing";
  if (!r.problems.empty()) out << ", " << plural(r.problems.size(), "planning problem");
  out << ")\n";
  if (std::string h = host_line(r); !h.empty()) out << "  " << st.dim(e(h)) << "\n";
  if (std::string c = lr.contradiction(); !c.empty())
    out << "  " << st.bad("CONTRADICTS ITSELF") << "  " << e(c) << "; the checks are what counts\n";

  if (failing || !r.problems.empty()) {
    out << "\n" << st.bold("Failures") << "\n";
    for (const auto& p : r.problems) {
      out << "  " << st.bad("PROBLEM") << "  " << e(p) << "\n";
      out << "           " << st.dim("hint") << "      " << hint_for_problem(p) << "\n";
    }
    for (const auto& c : r.checks) {
      if (!c.failing()) continue;
      out << "  " << st.bad(c.status == CheckStatus::fail ? "FAIL" : "UNSUPPORTED") << "  " << st.bold(e(c.name()))
          << (c.status == CheckStatus::unsupported ? " (required)" : "") << "\n";
      out << "           expected  " << e(c.expected) << "\n";
      out << "           observed  " << e(c.observed) << "\n";
      if (!c.detail.empty()) out << "           detail    " << e(c.detail) << "\n";
      if (std::string h = hint_for(c, r.checks); !h.empty())
        out << "           " << st.dim("hint") << "      " << h << "\n";
    }
  }

  bool others = false;
  for (const auto& c : r.checks) {
    if (c.failing() || c.status == CheckStatus::pass) continue;
    if (!others) out << "\n" << st.bold("Other results") << "\n";
    others = true;
    std::string label = pad_right(to_string(c.status), 12);
    // "unsupported  rail.0.pfc (...)", not "unsupported  rail.0.pfc: unsupported (...)".
    bool says_status = c.observed.empty() || c.observed == to_string(c.status);
    out << "  " << (c.status == CheckStatus::warn ? st.warn(label) : st.dim(label)) << e(c.name())
        << (says_status ? "" : ": " + e(c.observed)) << (c.detail.empty() ? "" : " (" + e(c.detail) + ")") << "\n";
  }

  if (auto far = far_end_lines(r); !far.empty()) {
    out << "\n" << st.bold("Far ends (LLDP)") << "\n";
    for (const auto& line : far) out << "  " << line << "\n";
  }

  if (auto peers = peer_lines(r); !peers.empty()) {
    out << "\n" << st.bold("Across the leaves (peer probes)") << "\n";
    for (const auto& line : peers) out << "  " << line << "\n";
  }

  if (auto gpus = gpu_lines(r); !gpus.empty()) {
    out << "\n" << st.bold("GPUs by rail") << "\n";
    for (const auto& line : gpus) out << "  " << line << "\n";
  }

  if (auto modules = module_lines(r); !modules.empty()) {
    out << "\n" << st.bold("Driver modules") << "\n";
    for (const auto& line : modules) out << "  " << e(line) << "\n";
  }

  if (auto joined = join_lines(r); !joined.empty()) {
    out << "\n" << st.bold("Join") << "\n";
    for (const auto& line : joined) out << "  " << line << "\n";
  }

  out << "\n" << st.bold("Phases") << "\n";
  double total = 0;
  for (const auto& p : phase_summaries(r)) {
    total += p.ms;
    out << "  " << pad_right(e(p.phase), 10) << pad_left(duration_text(p.ms), 12)
        << (p.result.empty() ? "" : "   " + e(p.result)) << "\n";
  }
  std::string counts = status_counts(r, [](const CheckResult&) { return true; });
  out << "  " << pad_right("total", 10) << pad_left(duration_text(total), 12) << "   "
      << (counts.empty() ? "no checks run" : counts) << "\n";
  return out.str();
}

ordered_json node_json(const LoadedReport& lr) {
  const Report& r = lr.report;
  ordered_json failures = ordered_json::array(), problems = ordered_json::array(), other = ordered_json::array();
  for (const auto& p : r.problems) problems.push_back({{"problem", p}, {"hint", hint_for_problem(p)}});
  ordered_json counts = ordered_json::object();
  for (auto s : kStatuses) counts[to_string(s)] = 0;
  for (const auto& c : r.checks) {
    counts[to_string(c.status)] = counts[to_string(c.status)].get<int>() + 1;
    if (c.failing())
      failures.push_back({{"name", c.name()},
                          {"kind", c.id.pattern()},
                          {"status", to_string(c.status)},
                          {"required", c.required},
                          {"expected", c.expected},
                          {"observed", c.observed},
                          {"detail", c.detail},
                          {"hint", hint_for(c, r.checks)}});
    else if (c.status != CheckStatus::pass)
      other.push_back({{"name", c.name()},
                       {"status", to_string(c.status)},
                       {"expected", c.expected},
                       {"observed", c.observed},
                       {"detail", c.detail}});
  }
  ordered_json phases = ordered_json::array();
  double total = 0;
  for (const auto& p : phase_summaries(r)) {
    total += p.ms;
    phases.push_back({{"phase", p.phase}, {"ms", p.ms}, {"result", p.result}});
  }
  return {{"node", lr.name()},
          {"recipe", r.recipe},
          {"result", lr.verdict() ? "pass" : "fail"},
          {"schema", lr.schema},
          {"started_at", r.started_at},
          {"railyard_version", r.railyard_version},
          {"host",
           {{"hostname", r.host.hostname},
            {"kernel", r.host.kernel},
            {"boot_id", r.host.boot_id},
            {"drivers", r.host.drivers}}},
          {"counts", counts},
          {"contradiction", lr.contradiction().empty() ? ordered_json(nullptr) : ordered_json(lr.contradiction())},
          {"problems", problems},
          {"failures", failures},
          {"other", other},
          {"phases", phases},
          {"far_ends", far_end_lines(r)},
          {"peers", peer_lines(r)},
          {"gpus", gpu_lines(r)},
          {"join", join_lines(r)},
          {"total_ms", total}};
}

}  // namespace railyard
