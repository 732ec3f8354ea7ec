// libFuzzer target for core's LLDP parser (core/lldp.cc): any bytes, as a whole frame and as
// a bare LLDPDU, as a neighbour on the wire may send them. Besides not crashing (AddressSanitizer
// and UndefinedBehaviorSanitizer watch), every result must keep the parser's promises: a
// failure says why, every string is safe to print, the undecoded TLVs kept stay within
// their cap, and what was parsed encodes into an LLDPDU that parses again.
#include <cstddef>
#include <cstdint>
#include <span>

#include "lldp.h"
#include "text.h"

namespace {

using railyard::LldpNeighbor;
using railyard::Outcome;

// A broken promise stops the fuzzer here, which keeps the input as a crash.
void require(bool promise) {
  if (!promise) __builtin_trap();
}

bool printable(const std::string& s) { return railyard::first_control(s).empty(); }

void check(const Outcome<LldpNeighbor>& r) {
  if (!r.ok()) return require(!r.error().empty());
  const LldpNeighbor& n = *r;
  for (const auto* s : {&n.chassis_id, &n.port_id, &n.port_description, &n.system_name, &n.system_description})
    require(printable(*s));
  for (const auto& v : n.vlan_names) require(printable(v.name));
  require(n.other_tlvs.size() <= railyard::kLldpMaxOtherTlvs);
  require(railyard::parse_lldpdu(railyard::encode_lldpdu(n)).ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  check(railyard::parse_lldp_frame(bytes));
  check(railyard::parse_lldpdu(bytes));
  return 0;
}
