#include "toml_file.h"

#include <algorithm>
#include <vector>

#include "schema.h"
#include "text.h"

namespace railyard {

std::optional<toml::table> read_toml(const FileSource& files, const std::string& path, Diagnostics& diags) {
  auto text = files.read(path);
  if (!text) {
    diags.error({path, 0, 0}, "cannot read file: " + files.why_unreadable(path));
    return std::nullopt;
  }
  try {
    return toml::parse(*text, path);
  } catch (const toml::parse_error& e) {
    diags.error(schema::position_of(e.source(), path), "TOML syntax: " + std::string(e.description()));
    return std::nullopt;
  }
}

namespace {

// Moves (not copies) nodes so that they keep their source positions.
void merge_into(toml::table& base, toml::table&& over) {
  for (auto&& [key, node] : over) {
    toml::node* existing = base.get(key.str());
    if (existing && existing->is_table() && node.is_table()) {
      merge_into(*existing->as_table(), std::move(*node.as_table()));
      continue;
    }
    base.insert_or_assign(key, std::move(node));
  }
}

std::optional<toml::table> read_chain(const FileSource& files, const std::string& path, Diagnostics& diags,
                                      std::vector<std::string>& seen) {
  seen.push_back(normalize_path(path));
  auto table = read_toml(files, path, diags);
  if (!table) return std::nullopt;
  toml::node* ext = table->get("extends");
  if (!ext) return table;
  SourcePos pos = schema::position_of(ext->source(), path);
  if (!ext->is_string()) {
    diags.error(pos,
                "extends: expected a string (a recipe path relative to this file), found " + schema::type_name(*ext));
    return std::nullopt;
  }
  std::string base_path = path_join(dir_name(path), ext->as_string()->get());
  if (std::find(seen.begin(), seen.end(), base_path) != seen.end()) {
    diags.error(pos,
                "extends: '" + ext->as_string()->get() + "' forms a cycle: " + join(seen, " -> ") + " -> " + base_path);
    return std::nullopt;
  }
  if (!files.is_file(base_path)) {
    diags.error(pos, "extends: cannot read base recipe '" + base_path + "'");
    return std::nullopt;
  }
  table->erase("extends");
  auto base = read_chain(files, base_path, diags, seen);
  if (!base) return std::nullopt;
  base->erase("name");  // a SKU's name is its own: never inherited from its base
  merge_into(*base, std::move(*table));
  return base;
}

}  // namespace

std::optional<toml::table> read_toml_extends(const FileSource& files, const std::string& path, Diagnostics& diags) {
  std::vector<std::string> seen;
  return read_chain(files, path, diags, seen);
}

}  // namespace railyard
