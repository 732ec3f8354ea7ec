// The one table of keys per file format: each key is declared once (type, default,
// allowed values, help) and that declaration parses, validates, renders and documents it.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "diagnostic.h"
#include "text.h"

namespace railyard::schema {

// Where each resolved key came from ("fabric.mtu" → file:line:col), for later checks.
using Positions = std::map<std::string, SourcePos>;

SourcePos position_of(const toml::source_region& src, const std::string& fallback_file);
std::string type_name(const toml::node& n);

// Returns nothing when valid, else what is wrong and what is allowed.
using Check = std::function<std::optional<std::string>(const std::string&)>;

// Why a value was rejected; `element` points into an array so the error lands on its line.
struct Rejection {
  Rejection(std::string m, std::optional<std::size_t> e = std::nullopt) : message(std::move(m)), element(e) {}
  std::string message;
  std::optional<std::size_t> element;
};
using Result = std::optional<Rejection>;

struct KeyDoc {
  std::string name;
  std::string type;
  std::string default_text;
  std::string allowed;
  std::string help;
};

struct ParseContext {
  Diagnostics& diags;
  Positions& positions;
  std::string file;  // for nodes without a source (never expected; keeps messages useful)
  // Keys whose value was rejected: later cross-key checks skip them rather than pile on.
  std::set<std::string>* failed = nullptr;
};

namespace detail {
std::string quote(const std::string& s);
std::string render_list(const std::vector<std::string>& v);
// Why a value holds a control character (a line break would start a new line in nccl.conf,
// dnsmasq or iPXE), or nullopt.
std::optional<std::string> control_in(const std::string& v);
void unknown_key(const toml::key& key, const std::string& where, const std::vector<std::string>& known,
                 ParseContext& ctx);
}  // namespace detail

// The keys of one table, bound to the members of struct S.
template <class S>
class Fields {
 public:
  struct Field {
    explicit Field(KeyDoc d) : doc(std::move(d)) {}
    KeyDoc doc;
    bool required = false;
    std::function<void(S&)> set_default;
    // Returns an error message, or nothing when the node was taken.
    std::function<Result(const toml::node&, S&)> parse;
    std::function<void(const S&, toml::table&)> render;
  };

  Fields& boolean(std::string name, bool S::*m, bool def, std::string help) {
    Field f{{name, "boolean", def ? "true" : "false", "true, false", std::move(help)}};
    f.set_default = [m, def](S& s) { s.*m = def; };
    f.parse = [m](const toml::node& n, S& s) -> Result {
      if (!n.is_boolean()) return "expected true or false, found " + type_name(n);
      s.*m = n.as_boolean()->get();
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) { t.insert_or_assign(name, s.*m); };
    return add(std::move(f));
  }

  // Integers in [lo, hi]; `extra` may reject values inside the range (e.g. a gap).
  Fields& integer(std::string name, int S::*m, int def, int lo, int hi, std::string help,
                  std::function<std::optional<std::string>(int)> extra = {}, std::string allowed = {}) {
    if (allowed.empty()) allowed = lo == hi ? std::to_string(lo) : std::to_string(lo) + "–" + std::to_string(hi);
    Field f{{name, "integer", std::to_string(def), allowed, std::move(help)}};
    f.set_default = [m, def](S& s) { s.*m = def; };
    f.parse = [m, lo, hi, extra, allowed](const toml::node& n, S& s) -> Result {
      auto v = take_int(n, lo, hi, allowed);
      if (!v.first) return v.second;
      if (extra)
        if (auto e = extra(*v.first)) return e;
      s.*m = *v.first;
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) { t.insert_or_assign(name, static_cast<int64_t>(s.*m)); };
    return add(std::move(f));
  }

  // A 64-bit integer in [lo, hi] (BGP AS numbers reach 2^32 - 1).
  Fields& integer64(std::string name, std::int64_t S::*m, std::int64_t def, std::int64_t lo, std::int64_t hi,
                    std::string help, std::function<std::optional<std::string>(std::int64_t)> extra = {},
                    std::string allowed = {}) {
    if (allowed.empty()) allowed = std::to_string(lo) + "–" + std::to_string(hi);
    Field f{{name, "integer", std::to_string(def), allowed, std::move(help)}};
    f.set_default = [m, def](S& s) { s.*m = def; };
    f.parse = [m, lo, hi, extra, allowed](const toml::node& n, S& s) -> Result {
      auto v = take_int64(n, lo, hi, allowed);
      if (!v.first) return v.second;
      if (extra)
        if (auto e = extra(*v.first)) return e;
      s.*m = *v.first;
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) { t.insert_or_assign(name, s.*m); };
    return add(std::move(f));
  }

  // A number in [lo, hi], written as an integer or a float ("0.02", "25"); NaN and the
  // infinities are out of range.
  Fields& number(std::string name, double S::*m, double def, double lo, double hi, std::string help) {
    std::string allowed = format_number(lo) + "–" + format_number(hi);
    Field f{{name, "number", format_number(def), allowed, std::move(help)}};
    f.set_default = [m, def](S& s) { s.*m = def; };
    f.parse = [m, lo, hi, allowed](const toml::node& n, S& s) -> Result {
      double v = 0;
      if (n.is_integer()) v = static_cast<double>(n.as_integer()->get());
      else if (n.is_floating_point()) v = n.as_floating_point()->get();
      else return "expected a number (" + allowed + "), found " + type_name(n);
      if (!(v >= lo && v <= hi)) return format_number(v) + " is out of range; allowed: " + allowed;
      s.*m = v;
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) { t.insert_or_assign(name, s.*m); };
    return add(std::move(f));
  }

  // An integer that may be absent (absent means "not used").
  Fields& optional_integer(std::string name, std::optional<int> S::*m, int lo, int hi, std::string help) {
    std::string allowed = std::to_string(lo) + "–" + std::to_string(hi);
    Field f{{name, "integer", "(unset)", allowed, std::move(help)}};
    f.set_default = [m](S& s) { s.*m = std::nullopt; };
    f.parse = [m, lo, hi, allowed](const toml::node& n, S& s) -> Result {
      auto v = take_int(n, lo, hi, allowed);
      if (!v.first) return v.second;
      s.*m = *v.first;
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) {
      if (s.*m) t.insert_or_assign(name, static_cast<int64_t>(*(s.*m)));
    };
    return add(std::move(f));
  }

  Fields& string(std::string name, std::string S::*m, std::string def, std::string help, Check check = {},
                 std::string allowed = "any string") {
    Field f{{name, "string", def.empty() ? "\"\"" : detail::quote(def), std::move(allowed), std::move(help)}};
    f.set_default = [m, def](S& s) { s.*m = def; };
    f.parse = [m, check, def](const toml::node& n, S& s) -> Result {
      if (!n.is_string()) return "expected a string, found " + type_name(n);
      std::string v = n.as_string()->get();
      if (auto e = detail::control_in(v)) return *e;
      // A key with a default means something by it: "" would not say "the default".
      if (v.empty() && !def.empty()) return "an empty string; leave the key out for the default, " + detail::quote(def);
      if (check && !v.empty())
        if (auto e = check(v)) return e;
      s.*m = std::move(v);
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) { t.insert_or_assign(name, s.*m); };
    return add(std::move(f));
  }

  Fields& required_string(std::string name, std::string S::*m, std::string help, Check check = {},
                          std::string allowed = "any string") {
    string(std::move(name), m, "", std::move(help), std::move(check), std::move(allowed));
    fields_.back().required = true;
    fields_.back().doc.default_text = "(required)";
    return *this;
  }

  template <class E>
  Fields& choice(std::string name, E S::*m, E def, std::vector<std::pair<std::string, E>> names, std::string help) {
    std::vector<std::string> words;
    std::string def_word;
    for (auto& [w, e] : names) {
      words.push_back(w);
      if (e == def) def_word = w;
    }
    Field f{{name, "string", detail::quote(def_word), "one of " + detail::render_list(words), std::move(help)}};
    f.set_default = [m, def](S& s) { s.*m = def; };
    f.parse = [m, names, words](const toml::node& n, S& s) -> Result {
      if (!n.is_string()) return "expected a string, found " + type_name(n);
      const std::string& v = n.as_string()->get();
      for (auto& [w, e] : names)
        if (w == v) {
          s.*m = e;
          return std::nullopt;
        }
      std::string msg = detail::quote(v) + " is not allowed; allowed: " + detail::render_list(words);
      if (auto c = closest(v, words)) msg += " (did you mean " + detail::quote(*c) + "?)";
      return msg;
    };
    f.render = [m, name, names](const S& s, toml::table& t) {
      for (auto& [w, e] : names)
        if (e == s.*m) t.insert_or_assign(name, w);
    };
    return add(std::move(f));
  }

  // `allow_empty`: "" is an element of its own ("none here"), never handed to `check`.
  Fields& strings(std::string name, std::vector<std::string> S::*m, std::vector<std::string> def, std::string help,
                  Check check = {}, std::string allowed = "list of strings", bool allow_empty = false) {
    std::vector<std::string> quoted;
    for (auto& d : def) quoted.push_back(detail::quote(d));
    Field f{{name, "array of strings", "[" + join(quoted, ", ") + "]", std::move(allowed), std::move(help)}};
    f.set_default = [m, def](S& s) { s.*m = def; };
    f.parse = [m, check, allow_empty](const toml::node& n, S& s) -> Result {
      if (!n.is_array()) return "expected an array of strings, found " + type_name(n);
      std::vector<std::string> out;
      std::size_t i = 0;
      for (const auto& el : *n.as_array()) {
        if (!el.is_string())
          return Rejection("element " + std::to_string(i) + ": expected a string, found " + type_name(el), i);
        std::string v = el.as_string()->get();
        if (v.empty() && !allow_empty) return Rejection("element " + std::to_string(i) + ": empty string", i);
        if (auto e = detail::control_in(v)) return Rejection("element " + std::to_string(i) + ": " + *e, i);
        if (check && !v.empty())
          if (auto e = check(v)) return Rejection("element " + std::to_string(i) + ": " + *e, i);
        out.push_back(std::move(v));
        ++i;
      }
      s.*m = std::move(out);
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) {
      toml::array a;
      for (auto& v : s.*m) a.push_back(v);
      t.insert_or_assign(name, std::move(a));
    };
    return add(std::move(f));
  }

  // An array of integers, each in [lo, hi] (XID numbers, ports).
  Fields& integers(std::string name, std::vector<int> S::*m, std::vector<int> def, int lo, int hi, std::string help) {
    std::vector<std::string> shown;
    for (int d : def) shown.push_back(std::to_string(d));
    std::string allowed = "integers " + std::to_string(lo) + "–" + std::to_string(hi);
    Field f{{name, "array of integers", "[" + join(shown, ", ") + "]", allowed, std::move(help)}};
    f.set_default = [m, def](S& s) { s.*m = def; };
    f.parse = [m, lo, hi, allowed](const toml::node& n, S& s) -> Result {
      if (!n.is_array()) return "expected an array of integers, found " + type_name(n);
      std::vector<int> out;
      std::size_t i = 0;
      for (const auto& el : *n.as_array()) {
        auto v = take_int(el, lo, hi, allowed);
        if (!v.first) return Rejection("element " + std::to_string(i) + ": " + v.second, i);
        out.push_back(*v.first);
        ++i;
      }
      s.*m = std::move(out);
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) {
      toml::array a;
      for (int v : s.*m) a.push_back(static_cast<int64_t>(v));
      t.insert_or_assign(name, std::move(a));
    };
    return add(std::move(f));
  }

  // A table of string values under free-form keys (e.g. extra environment variables).
  Fields& string_map(std::string name, std::map<std::string, std::string> S::*m, std::string help, Check key_check = {},
                     std::string allowed = "table of strings") {
    Field f{{name, "table of strings", "{}", std::move(allowed), std::move(help)}};
    f.set_default = [m](S& s) { (s.*m).clear(); };
    f.parse = [m, key_check](const toml::node& n, S& s) -> Result {
      if (!n.is_table()) return "expected a table of strings, found " + type_name(n);
      std::map<std::string, std::string> out;
      std::size_t i = 0;
      for (const auto& [k, v] : *n.as_table()) {
        std::string key(k.str());
        std::string shown = "key '" + escape_control(key) + "': ";
        if (auto e = detail::control_in(key)) return Rejection(shown + *e, i);
        if (key_check)
          if (auto e = key_check(key)) return Rejection(shown + *e, i);
        if (!v.is_string()) return Rejection(shown + "expected a string, found " + type_name(v), i);
        if (auto e = detail::control_in(v.as_string()->get())) return Rejection(shown + *e, i);
        out[key] = v.as_string()->get();
        ++i;
      }
      s.*m = std::move(out);
      return std::nullopt;
    };
    f.render = [m, name](const S& s, toml::table& t) {
      toml::table sub;
      for (auto& [k, v] : s.*m) sub.insert_or_assign(k, v);
      t.insert_or_assign(name, std::move(sub));
    };
    return add(std::move(f));
  }

  // Fill `out` from table `t`; `where` is the dotted path of the table ("" at the top).
  // `t` null: the table is absent (defaults apply, required keys are missing) unless
  // `rejected`, when the table was there but of the wrong type (already reported).
  void parse(const toml::table* t, S& out, const std::string& where, const SourcePos& table_pos, ParseContext& ctx,
             const std::vector<std::string>& also_known = {}, bool rejected = false) const {
    for (const auto& f : fields_) f.set_default(out);
    std::vector<std::string> known;
    for (const auto& f : fields_) known.push_back(f.doc.name);
    known.insert(known.end(), also_known.begin(), also_known.end());
    if (t) {
      for (const auto& [key, node] : *t) {
        std::string name(key.str());
        const Field* f = find(name);
        if (!f) {
          if (std::find(also_known.begin(), also_known.end(), name) == also_known.end())
            detail::unknown_key(key, where, known, ctx);
          continue;
        }
        std::string path = where.empty() ? name : where + "." + name;
        SourcePos pos = position_of(node.source(), ctx.file);
        ctx.positions[path] = pos;
        if (const auto* arr = node.as_array()) {
          std::size_t i = 0;
          for (const auto& el : *arr)
            ctx.positions[path + "[" + std::to_string(i++) + "]"] = position_of(el.source(), ctx.file);
        } else if (const auto* tab = node.as_table()) {  // a table of strings: its entries in order, for errors
          std::size_t i = 0;
          for (const auto& [k, v] : *tab)
            ctx.positions[path + "[" + std::to_string(i++) + "]"] = position_of(v.source(), ctx.file);
        }
        auto err = f->parse(node, out);
        if (!err && f->required && node.is_string() && node.as_string()->get().empty())
          err = Rejection("must not be empty: " + f->doc.help);
        if (err) {
          SourcePos where_pos = pos;
          if (err->element) where_pos = ctx.positions[path + "[" + std::to_string(*err->element) + "]"];
          ctx.diags.error(where_pos, path + ": " + err->message);
          if (ctx.failed) ctx.failed->insert(path);
        }
      }
    }
    for (const auto& f : fields_) {
      if (!f.required || rejected) continue;
      if (t && t->contains(f.doc.name)) continue;
      std::string path = where.empty() ? f.doc.name : where + "." + f.doc.name;
      ctx.diags.error(table_pos, "missing required key '" + path + "': " + f.doc.help);
    }
  }

  void render(const S& s, toml::table& t) const {
    for (const auto& f : fields_) f.render(s, t);
  }

  std::vector<KeyDoc> docs() const {
    std::vector<KeyDoc> out;
    for (const auto& f : fields_) out.push_back(f.doc);
    return out;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& f : fields_) out.push_back(f.doc.name);
    return out;
  }

 private:
  static std::pair<std::optional<std::int64_t>, std::string> take_int64(const toml::node& n, std::int64_t lo,
                                                                        std::int64_t hi, const std::string& allowed) {
    if (!n.is_integer()) return {std::nullopt, "expected an integer (" + allowed + "), found " + type_name(n)};
    int64_t v = n.as_integer()->get();
    if (v < lo || v > hi) return {std::nullopt, std::to_string(v) + " is out of range; allowed: " + allowed};
    return {v, ""};
  }
  static std::pair<std::optional<int>, std::string> take_int(const toml::node& n, int lo, int hi,
                                                             const std::string& allowed) {
    auto v = take_int64(n, lo, hi, allowed);
    if (!v.first) return {std::nullopt, v.second};
    return {static_cast<int>(*v.first), ""};
  }

  Fields& add(Field f) {
    fields_.push_back(std::move(f));
    return *this;
  }
  const Field* find(const std::string& name) const {
    for (const auto& f : fields_)
      if (f.doc.name == name) return &f;
    return nullptr;
  }

  std::vector<Field> fields_;
};

struct SectionDoc {
  std::string name;  // "fabric", or "" for top-level keys
  bool array = false;
  std::string help;
  std::vector<KeyDoc> keys;
};

// A file format: top-level keys plus named tables ([name]) and arrays of tables ([[name]]).
template <class Root>
class Schema {
 public:
  Fields<Root>& top(std::string help) {
    top_help_ = std::move(help);
    return top_;
  }

  template <class S>
  Fields<S>& section(std::string name, S Root::*member, std::string help) {
    auto fields = std::make_shared<Fields<S>>();
    Section sec;
    sec.name = name;
    sec.help = std::move(help);
    sec.parse = [fields, member, name](const toml::node* n, Root& r, const SourcePos& file_pos, ParseContext& ctx,
                                       const std::vector<std::string>& children) {
      const toml::table* t = nullptr;
      SourcePos pos = file_pos;
      bool rejected = false;
      if (n) {
        pos = position_of(n->source(), ctx.file);
        ctx.positions[name] = pos;
        if (!n->is_table()) {
          ctx.diags.error(pos, name + ": expected a table ([" + name + "]), found " + type_name(*n));
          if (ctx.failed) ctx.failed->insert(name);
          rejected = true;
        } else {
          t = n->as_table();
        }
      }
      fields->parse(t, r.*member, name, pos, ctx, children, rejected);
    };
    sec.render = [fields, member, name](const Root& r, toml::table& out) {
      toml::table t;
      fields->render(r.*member, t);
      // A nested section ("fabric.lldp") goes inside its parent's table, rendered before it.
      toml::table* parent = &out;
      std::string leaf = name;
      for (auto dot = leaf.find('.'); dot != std::string::npos; dot = leaf.find('.')) {
        std::string head = leaf.substr(0, dot);
        if (!parent->contains(head)) parent->insert_or_assign(head, toml::table{});
        parent = parent->get(head)->as_table();
        leaf = leaf.substr(dot + 1);
      }
      parent->insert_or_assign(leaf, std::move(t));
    };
    sec.docs = [fields] { return fields->docs(); };
    sections_.push_back(std::move(sec));
    return *fields;
  }

  template <class S>
  Fields<S>& array_section(std::string name, std::vector<S> Root::*member, std::string help) {
    auto fields = std::make_shared<Fields<S>>();
    Section sec;
    sec.name = name;
    sec.array = true;
    sec.help = std::move(help);
    sec.parse = [fields, member, name](const toml::node* n, Root& r, const SourcePos&, ParseContext& ctx,
                                       const std::vector<std::string>&) {
      (r.*member).clear();
      if (!n) return;
      SourcePos pos = position_of(n->source(), ctx.file);
      ctx.positions[name] = pos;
      if (n->is_array() && n->as_array()->empty()) return;  // `name = []` clears inherited entries
      if (!n->is_array_of_tables()) {
        ctx.diags.error(pos, name + ": expected an array of tables ([[" + name + "]]), found " + type_name(*n));
        if (ctx.failed) ctx.failed->insert(name);
        return;
      }
      std::size_t i = 0;
      for (const auto& el : *n->as_array()) {
        S item{};
        std::string where = name + "[" + std::to_string(i++) + "]";
        ctx.positions[where] = position_of(el.source(), ctx.file);
        fields->parse(el.as_table(), item, where, ctx.positions[where], ctx);
        (r.*member).push_back(std::move(item));
      }
    };
    sec.render = [fields, member, name](const Root& r, toml::table& out) {
      if ((r.*member).empty()) return;
      toml::array a;
      for (const auto& item : r.*member) {
        toml::table t;
        fields->render(item, t);
        a.push_back(std::move(t));
      }
      out.insert_or_assign(name, std::move(a));
    };
    sec.docs = [fields] { return fields->docs(); };
    sections_.push_back(std::move(sec));
    return *fields;
  }

  // `consumed` names top-level keys handled before the schema (e.g. "extends"). A section
  // named "a.b" is the table b inside [a] ([a.b] in TOML); [a] does not take b for a key.
  void parse(const toml::table& root, Root& out, ParseContext& ctx,
             const std::vector<std::string>& consumed = {}) const {
    std::vector<std::string> also = consumed;
    for (const auto& s : sections_)
      if (s.name.find('.') == std::string::npos) also.push_back(s.name);
    SourcePos file_pos{ctx.file, 1, 1};
    top_.parse(&root, out, "", file_pos, ctx, also);
    for (const auto& s : sections_) {
      std::vector<std::string> children;
      for (const auto& c : sections_)
        if (c.name.size() > s.name.size() && c.name.starts_with(s.name + ".") &&
            c.name.find('.', s.name.size() + 1) == std::string::npos)
          children.push_back(c.name.substr(s.name.size() + 1));
      s.parse(lookup(root, s.name), out, file_pos, ctx, children);
    }
  }

  toml::table render(const Root& r) const {
    toml::table out;
    top_.render(r, out);
    for (const auto& s : sections_) s.render(r, out);
    return out;
  }

  std::vector<SectionDoc> docs() const {
    std::vector<SectionDoc> out{{"", false, top_help_, top_.docs()}};
    for (const auto& s : sections_) out.push_back({s.name, s.array, s.help, s.docs()});
    return out;
  }

 private:
  // The node at a dotted section name; none when a parent is missing or not a table (the
  // parent's own parse reports that).
  static const toml::node* lookup(const toml::table& root, const std::string& name) {
    const toml::table* t = &root;
    std::string rest = name;
    for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      const toml::node* n = t->get(rest.substr(0, dot));
      if (!n || !n->is_table()) return nullptr;
      t = n->as_table();
      rest = rest.substr(dot + 1);
    }
    return t->get(rest);
  }

  struct Section {
    std::string name;
    bool array = false;
    std::string help;
    std::function<void(const toml::node*, Root&, const SourcePos&, ParseContext&, const std::vector<std::string>&)>
        parse;
    std::function<void(const Root&, toml::table&)> render;
    std::function<std::vector<KeyDoc>()> docs;
  };
  Fields<Root> top_;
  std::string top_help_;
  std::vector<Section> sections_;
};

// Markdown reference of a schema, for docs/.
std::string markdown(const std::vector<SectionDoc>& sections);

}  // namespace railyard::schema
