# The fuzzers, a row each. Fuzzer NAME is tests/fuzz/NAME_fuzz.cc, run over a copy of
# tests/fuzz/corpus/NAME/ (test fuzz_NAME), and built by clang++ with:
#   RAILYARD_FUZZ_<NAME>_SOURCES    the repository's sources it reads, compiled again with
#                                   coverage and sanitizers (paths from the repository's root)
#   RAILYARD_FUZZ_<NAME>_INCLUDES   include directories, from the root (default: core)
#   RAILYARD_FUZZ_<NAME>_PACKAGES   CMake packages to find (CONFIG mode) for ...
#   RAILYARD_FUZZ_<NAME>_LIBRARIES  ... the imported targets it links
# Read by tests/fuzz/CMakeLists.txt (the tests) and tests/fuzz/clang/CMakeLists.txt (the build).
set(RAILYARD_FUZZERS lldp)

# core/lldp.cc: LLDP frames as the agent's listener reads them from every rail.
set(RAILYARD_FUZZ_lldp_SOURCES core/lldp.cc core/net.cc core/text.cc)

# builder/report/report_reader.cc: report bodies as the receiver, report show and the fleet
# views read them (a POST from anyone who reaches the receiver, a file in a fleet directory).
list(APPEND RAILYARD_FUZZERS report)
set(RAILYARD_FUZZ_report_SOURCES builder/report/report_reader.cc builder/report/report_source.cc core/report.cc core/topology.cc
    core/check_id.cc core/text.cc)
set(RAILYARD_FUZZ_report_INCLUDES core builder)
set(RAILYARD_FUZZ_report_PACKAGES simdjson nlohmann_json)
set(RAILYARD_FUZZ_report_LIBRARIES simdjson::simdjson nlohmann_json::nlohmann_json curl)
