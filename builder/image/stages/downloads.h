// What stages fetch over HTTP(S) (vendor root filesystems, driver tarballs, signing keys)
// goes into the build's downloads directory: the cache's, so later builds find it there.
#pragma once

#include <cstdint>
#include <string>

#include "image/fetch.h"
#include "stage.h"

namespace railyard {

// Fetch options whose progress lines ("retrying in 2 s: …") are the stage's steps.
FetchOptions stage_fetch_options(StageContext& ctx);

struct FetchedArchive {
  std::string path;
  std::string name;  // as the URL names it (or the fallback), for messages
  std::uint64_t bytes = 0;
};

// An archive pinned by sha256, kept as DOWNLOADS/<first 16 hex digits>-<name in the URL, or
// `fallback_name`>: fetched once, verified each time (fetch_verified).
Outcome<FetchedArchive> fetch_pinned_archive(StageContext& ctx, const std::string& url, const std::string& sha256,
                                             const std::string& fallback_name);

}  // namespace railyard
