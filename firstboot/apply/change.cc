#include "change.h"

namespace railyard {

std::string to_string(Outcome o) {
  switch (o) {
    case Outcome::unchanged: return "unchanged";
    case Outcome::changed: return "changed";
    case Outcome::unsupported: return "unsupported";
    case Outcome::failed: return "failed";
  }
  return "?";
}

nlohmann::ordered_json to_json(const Change& c) {
  return {{"object", c.object}, {"outcome", to_string(c.outcome)}, {"before", c.before}, {"after", c.after},
          {"detail", c.detail}};
}

nlohmann::ordered_json to_json(const std::vector<Change>& changes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& c : changes) out.push_back(to_json(c));
  return out;
}

}  // namespace railyard
