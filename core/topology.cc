#include "topology.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "text.h"

namespace railyard {

namespace {

using Leaves = std::vector<std::string>;

// The trailing digits of a name: [prefix, digits]; digits "" when it ends otherwise.
std::pair<std::string, std::string> split_number(const std::string& name) {
  std::size_t i = name.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) --i;
  return {name.substr(0, i), name.substr(i)};
}

// Where each leaf sits: its unit and rail.
struct LeafPlace {
  std::size_t unit = 0;
  std::size_t rail = 0;
};

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      // Compare as numbers: strip leading zeros, then by length, then digit by digit.
      std::size_t si = i, sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      if (int c = a.compare(si, ei - si, b, sj, ej - sj); c != 0) return c < 0;
      if (ei - i != ej - j) return ei - i < ej - j;  // fewer leading zeros first
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::string unit_name(const std::vector<std::string>& leaves) { return leaves.empty() ? "" : "su-" + leaves.front(); }

std::string hostlist(std::vector<std::string> names) {
  std::sort(names.begin(), names.end(), natural_less);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // Names that share a prefix and a number form, as Slurm reads ranges: unpadded numbers of
  // any width together (node[9-11]), zero-padded ones with their width (node[01-03]).
  struct Group {
    std::string first;  // where the group sorts
    std::string prefix;
    std::size_t width = 0;  // 0: unpadded
    std::vector<unsigned long long> numbers;
  };
  std::vector<Group> groups;
  std::map<std::pair<std::string, std::size_t>, std::size_t> index;
  std::vector<std::string> alone;
  // A number without a leading zero joins the zero-padded ones of its width (n[04,10]).
  std::set<std::pair<std::string, std::size_t>> padded;
  for (const auto& name : names)
    if (auto [prefix, digits] = split_number(name); digits.size() > 1 && digits[0] == '0')
      padded.insert({prefix, digits.size()});
  for (const auto& name : names) {
    auto [prefix, digits] = split_number(name);
    if (digits.empty() || digits.size() > 18) {
      alone.push_back(name);
      continue;
    }
    std::size_t width = padded.count({prefix, digits.size()}) ? digits.size() : 0;
    auto [it, fresh] = index.emplace(std::pair{prefix, width}, groups.size());
    if (fresh) groups.push_back({name, prefix, width, {}});
    groups[it->second].numbers.push_back(std::stoull(digits));
  }
  std::vector<std::pair<std::string, std::string>> parts;  // [where it sorts, text]
  for (const auto& name : alone) parts.push_back({name, name});
  for (auto& g : groups) {
    auto text = [&](unsigned long long n) {
      std::string s = std::to_string(n);
      return std::string(g.width > s.size() ? g.width - s.size() : 0, '0') + s;
    };
    if (g.numbers.size() == 1) {
      parts.push_back({g.first, g.prefix + text(g.numbers[0])});
      continue;
    }
    std::sort(g.numbers.begin(), g.numbers.end());
    std::vector<std::string> ranges;
    for (std::size_t i = 0; i < g.numbers.size();) {
      std::size_t j = i;
      while (j + 1 < g.numbers.size() && g.numbers[j + 1] == g.numbers[j] + 1) ++j;
      ranges.push_back(i == j ? text(g.numbers[i]) : text(g.numbers[i]) + "-" + text(g.numbers[j]));
      i = j + 1;
    }
    parts.push_back({g.first, g.prefix + "[" + join(ranges, ",") + "]"});
  }
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return natural_less(a.first, b.first); });
  std::vector<std::string> out;
  for (auto& p : parts) out.push_back(std::move(p.second));
  return join(out, ",");
}

std::optional<std::vector<std::string>> expand_hostlist(const std::string& expr, std::string& why, std::size_t limit) {
  std::vector<std::string> out;
  auto fail = [&](const std::string& w) -> std::optional<std::vector<std::string>> {
    why = "'" + expr + "': " + w;
    return std::nullopt;
  };
  // Split on the commas outside brackets.
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : expr) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0 || depth > 1) return fail("brackets do not pair");
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return fail("brackets do not pair");
  items.push_back(cur);
  for (const auto& item : items) {
    if (item.empty()) return fail("an empty name");
    auto open = item.find('[');
    if (open == std::string::npos) {
      out.push_back(item);
      continue;
    }
    auto close = item.find(']', open);
    if (item.find('[', open + 1) != std::string::npos) return fail("one bracket per name");
    std::string prefix = item.substr(0, open), suffix = item.substr(close + 1),
                body = item.substr(open + 1, close - open - 1);
    for (const auto& range : split(body, ',')) {
      auto dash = range.find('-');
      std::string lo = range.substr(0, dash), hi = dash == std::string::npos ? lo : range.substr(dash + 1);
      auto digits = [](const std::string& v) {
        return !v.empty() && v.size() <= 18 &&
               std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      };
      if (!digits(lo) || !digits(hi)) return fail("'" + range + "' is not a number or a range N-M");
      unsigned long long a = std::stoull(lo), b = std::stoull(hi);
      if (b < a) return fail("'" + range + "' runs backwards");
      if (b - a >= limit || out.size() + (b - a + 1) > limit)
        return fail("more than " + std::to_string(limit) + " names");
      for (unsigned long long n = a; n <= b; ++n) {
        std::string v = std::to_string(n);
        out.push_back(prefix + std::string(lo.size() > v.size() ? lo.size() - v.size() : 0, '0') + v + suffix);
      }
    }
  }
  return out;
}

Topology group_units(const std::vector<NodeFabric>& in) {
  Topology t;
  std::vector<NodeFabric> nodes = in;
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeFabric& a, const NodeFabric& b) { return natural_less(a.node, b.node); });

  // Whole nodes first: every rail heard. Nodes of fewer rails (another SKU: a storage node
  // with four of the eight rails) are placed with the unit whose first leaves theirs are.
  std::vector<const NodeFabric*> whole;
  std::vector<std::pair<const NodeFabric*, int>> unheard;  // named once the units are known
  for (const auto& n : nodes) {
    if (n.rails.empty()) {
      t.left_out.push_back({n.node, "its report names no rails", -1, "", "", ""});
      continue;
    }
    auto silent = std::find_if(n.rails.begin(), n.rails.end(), [](const auto& r) { return !r.has_value(); });
    if (silent != n.rails.end()) {
      unheard.push_back({&n, static_cast<int>(silent - n.rails.begin())});
      continue;
    }
    whole.push_back(&n);
  }

  // A leaf port two passing nodes claim: both are left out, since either could be the one
  // miscabled.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<const NodeFabric*, std::size_t>>> ports;
  for (const auto* n : whole)
    if (n->passed)
      for (std::size_t r = 0; r < n->rails.size(); ++r) ports[{n->rails[r]->leaf, n->rails[r]->port}].push_back({n, r});
  std::set<const NodeFabric*> doubled;
  for (const auto& [where, claims] : ports) {
    if (claims.size() < 2) continue;
    for (const auto& [n, r] : claims) {
      if (doubled.count(n)) continue;
      std::vector<std::string> others;
      for (const auto& [o, _] : claims)
        if (o != n) others.push_back(o->node);
      doubled.insert(n);
      t.left_out.push_back({n->node,
                            "rail " + std::to_string(r) + " reaches " + where.first + " port " + where.second +
                                ", which " + join(others, ", ") + " also reaches",
                            static_cast<int>(r), where.first, where.second, ""});
    }
  }

  // The sets of leaves, most common first, each a unit unless a unit before it holds one of
  // its leaves.
  std::map<Leaves, std::vector<const NodeFabric*>> by_leaves;
  std::vector<const NodeFabric*> failing;  // whole, but never passed: judged against the units
  for (const auto* n : whole) {
    if (doubled.count(n)) continue;
    if (!n->passed) {
      failing.push_back(n);
      continue;
    }
    Leaves l;
    for (const auto& r : n->rails) l.push_back(r->leaf);
    by_leaves[l].push_back(n);
  }
  std::vector<std::pair<Leaves, std::vector<const NodeFabric*>>> sets(by_leaves.begin(), by_leaves.end());
  // The widest sets first (a narrower node joins the unit it shares leaves with), the most
  // common first among them.
  std::stable_sort(sets.begin(), sets.end(), [](const auto& a, const auto& b) {
    if (a.first.size() != b.first.size()) return a.first.size() > b.first.size();
    return a.second.size() > b.second.size();
  });
  std::map<std::string, LeafPlace> placed;
  std::vector<std::pair<Leaves, std::vector<const NodeFabric*>>> miscabled;
  for (auto& [leaves, members] : sets) {
    // A narrower set whose leaf i is a unit's leaf i on every rail it has: that unit's.
    if (auto p = placed.find(leaves.front()); p != placed.end() && p->second.rail == 0) {
      ScalableUnit& u = t.units[p->second.unit];
      if (leaves.size() < u.leaves.size() && std::equal(leaves.begin(), leaves.end(), u.leaves.begin())) {
        for (const auto* n : members) u.nodes.push_back(n->node);
        continue;
      }
    }
    bool taken = std::any_of(leaves.begin(), leaves.end(), [&](const std::string& l) { return placed.count(l); });
    std::set<std::string> distinct(leaves.begin(), leaves.end());
    if (taken || (distinct.size() != leaves.size() && distinct.size() != 1)) {
      miscabled.push_back({leaves, members});
      continue;
    }
    ScalableUnit u{unit_name(leaves), leaves, {}};
    for (const auto* n : members) u.nodes.push_back(n->node);
    for (std::size_t r = 0; r < leaves.size(); ++r) placed.emplace(leaves[r], LeafPlace{t.units.size(), r});
    t.units.push_back(std::move(u));
  }
  // Where a node's rails disagree with the units: the unit most of them reach, and the
  // first rail that reaches elsewhere. nullopt when they reach one unit's leaves in order.
  auto misfit = [&](const NodeFabric& n, const Leaves& leaves) -> std::optional<LeftOut> {
    std::map<std::size_t, std::size_t> votes;
    for (const auto& l : leaves)
      if (auto p = placed.find(l); p != placed.end()) ++votes[p->second.unit];
    std::optional<std::size_t> likely;
    std::size_t best = 0;
    for (auto [u, c] : votes)
      if (c > best) std::tie(likely, best) = std::pair{std::optional<std::size_t>(u), c};
    LeftOut o{n.node, "", -1, "", "", likely ? t.units[*likely].name : ""};
    for (std::size_t r = 0; r < leaves.size(); ++r) {
      auto p = placed.find(leaves[r]);
      bool home = likely && p != placed.end() && p->second.unit == *likely && p->second.rail == r;
      if (home) continue;
      o.rail = static_cast<int>(r);
      o.leaf = leaves[r];
      o.port = n.rails[r]->port;
      std::string what = "rail " + std::to_string(r) + " reaches " + o.leaf + " port " + o.port;
      if (p == placed.end()) o.why = what + ", a leaf of no unit";
      else if (likely && p->second.unit == *likely)
        o.why = what + ", " + o.likely_unit + "'s rail " + std::to_string(p->second.rail) +
                " leaf: two rails' cables crossed?";
      else
        o.why = what + ", a leaf of " + t.units[p->second.unit].name + ", while its other rails reach " +
                (likely ? o.likely_unit : std::string("no unit"));
      return o;
    }
    return std::nullopt;
  };
  for (const auto& [leaves, members] : miscabled)
    for (const auto* n : members) {
      auto o = misfit(*n, leaves);
      if (!o) o = LeftOut{n->node, "its rails reach one leaf on several rails", -1, "", "", ""};
      t.left_out.push_back(std::move(*o));
    }
  // A rail that heard nothing: the unit the node's other rails reach is its likely one.
  for (const auto& [n, rail] : unheard) {
    LeftOut o{n->node, "rail " + std::to_string(rail) + " heard no LLDP neighbour", rail, "", "", ""};
    std::map<std::size_t, std::size_t> votes;
    for (const auto& r : n->rails)
      if (r)
        if (auto p = placed.find(r->leaf); p != placed.end()) ++votes[p->second.unit];
    std::size_t best = 0;
    for (auto [u, c] : votes)
      if (c > best) std::tie(o.likely_unit, best) = std::pair{t.units[u].name, c};
    if (!n->passed) o.why += " (and it has no passing report)";
    t.left_out.push_back(std::move(o));
  }
  for (const auto* n : failing) {
    Leaves leaves;
    for (const auto& r : n->rails) leaves.push_back(r->leaf);
    auto o = misfit(*n, leaves);
    if (o) o->why += " (and it has no passing report)";
    else {
      o = LeftOut{n->node, "no passing report", -1, "", "", ""};
      if (auto p = placed.find(leaves.front()); p != placed.end()) {
        o->likely_unit = t.units[p->second.unit].name;
        o->why += "; its rails reach " + o->likely_unit + "'s leaves";
      }
    }
    t.left_out.push_back(std::move(*o));
  }
  for (auto& u : t.units) std::sort(u.nodes.begin(), u.nodes.end(), natural_less);
  std::sort(t.units.begin(), t.units.end(), [](const auto& a, const auto& b) { return natural_less(a.name, b.name); });
  std::stable_sort(t.left_out.begin(), t.left_out.end(),
                   [](const LeftOut& a, const LeftOut& b) { return natural_less(a.node, b.node); });
  return t;
}

std::string render_slurm_tree(const Topology& t, const std::string& spine) {
  std::string out = "# topology/tree from the rails' LLDP (railyard report topology): a switch per scalable unit\n";
  std::vector<std::string> units;
  for (const auto& u : t.units) {
    out += "SwitchName=" + u.name + " Nodes=" + hostlist(u.nodes) + "\n";
    units.push_back(u.name);
  }
  if (!units.empty()) out += "SwitchName=" + spine + " Switches=" + hostlist(units) + "\n";
  return out;
}

std::string render_slurm_block(const Topology& t, const std::vector<int>& block_sizes) {
  std::string out = "# topology/block from the rails' LLDP (railyard report topology): a block per scalable unit\n";
  for (const auto& u : t.units) out += "BlockName=" + u.name + " Nodes=" + hostlist(u.nodes) + "\n";
  if (!block_sizes.empty()) {
    std::vector<std::string> sizes;
    for (int s : block_sizes) sizes.push_back(std::to_string(s));
    out += "BlockSizes=" + join(sizes, ",") + "\n";
  }
  return out;
}

nlohmann::ordered_json to_json(const Topology& t) {
  auto units = nlohmann::ordered_json::array();
  for (const auto& u : t.units) units.push_back({{"name", u.name}, {"leaves", u.leaves}, {"nodes", u.nodes}});
  auto left = nlohmann::ordered_json::array();
  for (const auto& o : t.left_out) {
    nlohmann::ordered_json j = {{"node", o.node}, {"why", o.why}};
    j["rail"] = o.rail >= 0 ? nlohmann::ordered_json(o.rail) : nlohmann::ordered_json();
    j["leaf"] = o.leaf.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(o.leaf);
    j["port"] = o.port.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(o.port);
    j["likely_unit"] = o.likely_unit.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(o.likely_unit);
    left.push_back(std::move(j));
  }
  return {{"schema", 1}, {"units", units}, {"left_out", left}};
}

std::optional<std::string> check_k8s_label_value(const std::string& v) {
  if (v.empty()) return "empty";
  if (v.size() > 63) return std::to_string(v.size()) + " characters; at most 63";
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (!alnum(v.front()) || !alnum(v.back())) return "must begin and end with a letter or digit";
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.')
      return std::string("'") + c + "' is not allowed: letters, digits, '-', '_' and '.' only";
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> topology_labels(const ScalableUnit& unit) {
  std::vector<std::pair<std::string, std::string>> out{{std::string(kTopologyLabelPrefix) + "unit", unit.name}};
  for (std::size_t r = 0; r < unit.leaves.size(); ++r)
    out.push_back({std::string(kTopologyLabelPrefix) + "rail" + std::to_string(r) + "-leaf", unit.leaves[r]});
  return out;
}

std::optional<std::string> render_k8s_labels(const Topology& t, std::string& why) {
  std::string out;
  for (const auto& u : t.units) {
    auto labels = topology_labels(u);
    for (const auto& [k, v] : labels)
      if (auto bad = check_k8s_label_value(v)) {
        why = "unit " + u.name + ": " + k + " '" + v + "' is no Kubernetes label value: " + *bad;
        return std::nullopt;
      }
    for (const auto& n : u.nodes) {
      // A node's name goes into a command line: a DNS name's characters only.
      if (n.empty() || !std::all_of(n.begin(), n.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
          })) {
        why = "node '" + n + "' is no Kubernetes node name: letters, digits, '-' and '.' only";
        return std::nullopt;
      }
      out += "kubectl label node " + n + " --overwrite";
      for (const auto& [k, v] : labels) out += " " + k + "=" + v;
      out += "\n";
    }
  }
  return out;
}

}  // namespace railyard
