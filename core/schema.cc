#include "schema.h"

namespace railyard::schema {

SourcePos position_of(const toml::source_region& src, const std::string& fallback_file) {
  SourcePos p;
  p.file = src.path ? *src.path : fallback_file;
  p.line = src.begin.line;
  p.column = src.begin.column;
  return p;
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

namespace detail {

std::string quote(const std::string& s) { return "\"" + s + "\""; }

std::optional<std::string> control_in(const std::string& v) {
  std::string c = first_control(v);
  if (c.empty()) return std::nullopt;
  return "\"" + escape_control(v) + "\" holds a control character (" + c +
         "); no value may hold a line break, tab or other control character";
}

std::string render_list(const std::vector<std::string>& v) {
  std::vector<std::string> q;
  for (auto& s : v) q.push_back(quote(s));
  return join(q, ", ");
}

void unknown_key(const toml::key& key, const std::string& where, const std::vector<std::string>& known,
                 ParseContext& ctx) {
  std::string name(key.str());
  std::string path = where.empty() ? name : where + "." + name;
  std::string msg = "unknown key '" + path + "'";
  if (auto c = closest(name, known)) msg += "; did you mean '" + (where.empty() ? *c : where + "." + *c) + "'?";
  else msg += "; allowed here: " + join(known, ", ");
  ctx.diags.error(position_of(key.source(), ctx.file), msg);
}

}  // namespace detail

static std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string markdown(const std::vector<SectionDoc>& sections) {
  std::string out;
  for (const auto& s : sections) {
    out +=
        s.name.empty() ? "## Top level\n\n" : (s.array ? "## `[[" + s.name + "]]`\n\n" : "## `[" + s.name + "]`\n\n");
    if (!s.help.empty()) out += s.help + "\n\n";
    out += "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
    for (const auto& k : s.keys)
      out += "| `" + k.name + "` | " + cell(k.type) + " | `" + cell(k.default_text) + "` | " + cell(k.allowed) + " | " +
             cell(k.help) + " |\n";
    out += "\n";
  }
  return out;
}

}  // namespace railyard::schema
