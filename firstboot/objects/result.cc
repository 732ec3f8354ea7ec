#include "objects/result.h"

namespace railyard::checks {

CheckResult start(const PlannedCheck& c) {
  CheckResult r;
  r.id = c.id;
  r.expected = c.expected;
  r.required = c.required;
  return r;
}

namespace {

void set(CheckResult& r, CheckStatus status, std::string observed, std::string detail) {
  r.status = status;
  r.observed = std::move(observed);
  r.detail = std::move(detail);
}

}  // namespace

void pass(CheckResult& r, std::string observed, std::string detail) {
  set(r, CheckStatus::pass, std::move(observed), std::move(detail));
}

void fail(CheckResult& r, std::string observed, std::string detail) {
  set(r, CheckStatus::fail, std::move(observed), std::move(detail));
}

void warn(CheckResult& r, std::string observed, std::string detail) {
  set(r, CheckStatus::warn, std::move(observed), std::move(detail));
}

void unsupported(CheckResult& r, std::string observed, std::string detail) {
  set(r, CheckStatus::unsupported, std::move(observed), std::move(detail));
}

void from_status(CheckResult& r, const Status& s) {
  r.status = s.unsupported() ? CheckStatus::unsupported : CheckStatus::fail;
  if (r.observed.empty()) r.observed = s.unsupported() ? "unsupported" : "error";
  r.detail = s.error();
}

}  // namespace railyard::checks
