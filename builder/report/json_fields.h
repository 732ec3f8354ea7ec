// Fields of a report's JSON read leniently, as every report view reads them: a key that is
// missing or of another type (an older or newer agent's report) gives the fallback.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railyard::json_fields {

using nlohmann::ordered_json;

std::string str(const ordered_json& j, const char* key);
int num(const ordered_json& j, const char* key, int fallback = -1);
std::vector<std::string> strings(const ordered_json& j, const char* key);
// The array at `key`, or an empty one.
const ordered_json& array_at(const ordered_json& j, const char* key);

}  // namespace railyard::json_fields
