#include "verify.h"

#include "checks.h"

namespace railyard {

namespace checks {

CheckResult start(const PlannedCheck& c) {
  CheckResult r;
  r.name = c.name;
  r.expected = c.expected;
  r.required = c.required;
  return r;
}

void pass(CheckResult& r, std::string observed, std::string detail) {
  r.status = CheckStatus::pass;
  r.observed = std::move(observed);
  r.detail = std::move(detail);
}

void fail(CheckResult& r, std::string observed, std::string detail) {
  r.status = CheckStatus::fail;
  r.observed = std::move(observed);
  r.detail = std::move(detail);
}

void from_status(CheckResult& r, const Status& s) {
  r.status = s.unsupported() ? CheckStatus::unsupported : CheckStatus::fail;
  if (r.observed.empty()) r.observed = s.unsupported() ? "unsupported" : "error";
  r.detail = s.message;
}

RailCheck rail_check(const Plan& plan, const std::string& name) {
  if (name.rfind("rail.", 0) != 0) return {};
  auto dot = name.find('.', 5);
  if (dot == std::string::npos) return {};
  int index = std::atoi(name.substr(5, dot - 5).c_str());
  for (const auto& r : plan.rails)
    if (r.index == index) return {&r, name.substr(dot + 1)};
  return {};
}

}  // namespace checks

std::vector<CheckResult> verify(const VerifyContext& ctx) {
  std::vector<CheckResult> out;
  for (const auto& planned : ctx.plan.checks) {
    CheckResult r = checks::start(planned);
    bool known = checks::hardware(ctx, r) || checks::network(ctx, r) || checks::fabric(ctx, r) ||
                 checks::data_path(ctx, r);
    if (!known) {
      r.status = CheckStatus::skip;
      r.detail = "this agent has no evaluator for the check";
    }
    // A check the recipe does not require never fails the node: it warns.
    if (!r.required && r.status == CheckStatus::fail) r.status = CheckStatus::warn;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace railyard
