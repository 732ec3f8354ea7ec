#include "report/json_fields.h"

namespace railyard::json_fields {

std::string str(const ordered_json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

int num(const ordered_json& j, const char* key, int fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

std::vector<std::string> strings(const ordered_json& j, const char* key) {
  std::vector<std::string> out;
  for (const auto& v : array_at(j, key))
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

const ordered_json& array_at(const ordered_json& j, const char* key) {
  static const ordered_json empty = ordered_json::array();
  if (!j.is_object()) return empty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

}  // namespace railyard::json_fields
