// Reading TOML documents with positions kept, including recipes' `extends` chains.
#pragma once

#include <optional>
#include <string>

#include <toml++/toml.h>

#include "diagnostic.h"
#include "source.h"

namespace railyard {

// Parses `path` read through `files`; syntax errors become diagnostics at their position.
std::optional<toml::table> read_toml(const FileSource& files, const std::string& path, Diagnostics& diags);

// Reads `path`, then the chain of `extends` files it names (relative to each file), and merges
// them base first: tables merge key by key, anything else (arrays too) is replaced. Values keep
// the position of the file that set them. The `extends` key is consumed.
std::optional<toml::table> read_toml_extends(const FileSource& files, const std::string& path, Diagnostics& diags);

}  // namespace railyard
