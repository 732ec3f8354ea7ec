#include "objects/change.h"

namespace railyard {

std::string rail_label(const RailPlan& rail) {
  return "rail " + std::to_string(rail.index) + " (" + rail.ifname + (rail.bond.empty() ? "" : " of " + rail.bond) +
         ")";
}

Change change_from(const std::string& object, const Status& s, const std::string& before, const std::string& after,
                   ChangeOutcome ok_outcome) {
  Change c{object, ok_outcome, before, after, s.error()};
  if (!s.ok()) c.outcome = s.unsupported() ? ChangeOutcome::unsupported : ChangeOutcome::failed;
  return c;
}

std::string to_string(ChangeOutcome o) {
  switch (o) {
    case ChangeOutcome::unchanged: return "unchanged";
    case ChangeOutcome::changed: return "changed";
    case ChangeOutcome::unsupported: return "unsupported";
    case ChangeOutcome::failed: return "failed";
  }
  return "?";
}

nlohmann::ordered_json to_json(const Change& c) {
  return {{"object", c.object},
          {"outcome", to_string(c.outcome)},
          {"before", c.before},
          {"after", c.after},
          {"detail", c.detail}};
}

nlohmann::ordered_json to_json(const std::vector<Change>& changes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& c : changes) out.push_back(to_json(c));
  return out;
}

}  // namespace railyard
