#include "downloads.h"

namespace railyard {

FetchOptions stage_fetch_options(StageContext& ctx) {
  FetchOptions o;
  o.log = [&ctx](const std::string& line) { ctx.step(line); };
  return o;
}

Outcome<FetchedArchive> fetch_pinned_archive(StageContext& ctx, const std::string& url, const std::string& sha256,
                                             const std::string& fallback_name) {
  FetchedArchive out;
  out.name = url.substr(url.find_last_of('/') + 1);
  if (out.name.empty()) out.name = fallback_name;
  out.path = ctx.downloads + "/" + sha256.substr(0, 16) + "-" + out.name;
  ctx.step("fetch " + url);
  auto got = fetch_verified(url, sha256, out.path, stage_fetch_options(ctx));
  if (!got.ok()) return Outcome<FetchedArchive>::fail(got.error());
  out.bytes = got->bytes;
  return out;
}

}  // namespace railyard
