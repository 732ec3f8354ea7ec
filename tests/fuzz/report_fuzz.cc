// libFuzzer target for the report reader (builder/report/report_reader.cc): any bytes, as a
// receiver, `report show` and the fleet views take them. Besides not crashing or throwing
// (AddressSanitizer and UndefinedBehaviorSanitizer watch; an exception escaping aborts), each
// read must keep the reader's promises: a refusal says why and what kind of refusal it is,
// the three reads agree on what is a report, and every error is safe to print.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "report/report_reader.h"
#include "text.h"

namespace {

using namespace railyard;

// A broken promise stops the fuzzer here, which keeps the input as a crash.
void require(bool promise) {
  if (!promise) __builtin_trap();
}

// An error names what is wrong and can be printed as it is.
void refusal(const std::string& error, ReportFault fault) {
  require(!error.empty());
  require(fault == ReportFault::malformed || fault == ReportFault::not_a_report);
  require(escape_control(error) == error);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static ReportReader reader;

  auto whole = reader.whole(text);
  ReportFault whole_fault = reader.fault();
  if (!whole.ok()) refusal(whole.error(), whole_fault);

  // The receiver's read refuses exactly what the whole read refuses, the same way.
  auto checked = reader.checked(text);
  require(checked.ok() == whole.ok());
  if (!checked.ok()) {
    require(reader.fault() == whole_fault);
    require(checked.error() == whole.error());
  } else {
    require(checked->name() == whole->name());
    require(checked->verdict() == whole->verdict());
    require(checked->report.checks.size() == whole->report.checks.size());
  }

  // The digest steps over what it does not show: it may take a file the whole read
  // refuses, never the other way round.
  auto digest = reader.digest(text);
  if (!digest.ok()) {
    refusal(digest.error(), reader.fault());
    require(!whole.ok());
  } else if (whole.ok()) {
    require(digest->node == whole->name());
    require(digest->passed == whole->passed);
    require(digest->check_count == static_cast<int>(whole->report.checks.size()));
  }

  // The skim for a per-node token names the report's node whenever the whole read does.
  auto node = reader.node_name(text);
  if (whole.ok() && !whole->name().empty()) require(node && *node == whole->name());
  return 0;
}
