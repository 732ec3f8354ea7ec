// XXH3-128 of a file's content: what cache entries record to find damage before an entry is
// used. Not a cryptographic digest, and it need not be: whoever can write a cache entry can
// rewrite its entry.json too, so the record only has to catch accidents (a killed write, a
// disk error, an edit by hand), and XXH3 reads at memory speed where SHA-256 would make
// verifying a 700 MiB base cost most of a second on every build.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "outcome.h"

namespace railyard {

// Feeds a file's content to `consume` in blocks of up to 1 MiB, through one buffer per
// thread (a fresh buffer per file costs more, in mmap, page faults and zeroing, than hashing
// the thousands of small files of a root filesystem). Never follows a symlink.
Status read_in_blocks(const std::string& path, const std::function<void(const char*, std::size_t)>& consume);

// 32 lowercase hex digits, high half first (XXH128_canonical_t order). Safe from any thread.
Outcome<std::string> xxh128_file(const std::string& path);
std::string xxh128_hex(std::string_view data);

}  // namespace railyard
