// XXH3-128 of a file's content: what cache entries record to find damage before an entry is
// used. Not a cryptographic digest, and it need not be: whoever can write a cache entry can
// rewrite its entry.json too, so the record only has to catch accidents (a killed write, a
// disk error, an edit by hand), and XXH3 reads at memory speed where SHA-256 would make
// verifying a 700 MiB base cost most of a second on every build.
#pragma once

#include <string>
#include <string_view>

#include "outcome.h"

namespace railyard {

// 32 lowercase hex digits, high half first (XXH128_canonical_t order). Safe from any thread.
Outcome<std::string> xxh128_file(const std::string& path);
std::string xxh128_hex(std::string_view data);

}  // namespace railyard
