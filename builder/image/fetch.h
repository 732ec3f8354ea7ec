// Downloads that land whole and verified, or not at all: tarball driver bundles and vendor
// root filesystems, fetched over HTTP(S) by the build.
//
//   FetchOptions o;
//   o.log = [](const std::string& line) { spdlog::info("{}", line); };
//   auto got = fetch_verified(bundle.url, bundle.sha256, cache_dir + "/doca.tgz", o);
//   if (!got.ok()) return Status::fail("bundle doca-ofed: " + got.error());
//
// What it guarantees:
// - Bytes go to DEST.part. DEST appears (one rename, after fsync) only once the whole file's
//   sha256 is the expected one; a half or wrong file never sits under DEST.
// - A broken transfer resumes where it stopped (HTTP Range), in the same call or a later one
//   (DEST.part is kept across failures for that). A server that ignores Range starts over.
// - Transient failures (refused or reset connections, timeouts, HTTP 408/429/5xx, a transfer
//   slower than low_speed_bytes per second for low_speed_seconds) are retried up to
//   `attempts` times in all, waiting `backoff`, then twice as long each time. Permanent ones
//   (other HTTP 4xx, a bad URL, TLS verification) fail at once, so a 404 costs one request.
// - A body with the wrong sha256 is deleted and reported with expected and actual digests.
//   It is fetched once more from scratch only when it was assembled from a resumed transfer.
// - Only http:// and https:// (redirects included); https verifies the peer against the
//   system's CAs or `ca_file`.
// - When DEST already holds the expected content, nothing is fetched.
// - One process at a time per DEST: another one holding DEST.part is an error, not a race.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "clock.h"
#include "outcome.h"

namespace railyard {

struct FetchOptions {
  int attempts = 5;                         // in all, the first one included
  std::chrono::milliseconds backoff{1000};  // before the second attempt; doubled after each
  std::chrono::milliseconds max_backoff{60000};
  long connect_timeout_s = 30;
  long low_speed_bytes = 1024;  // a transfer slower than this (bytes/s) …
  long low_speed_seconds = 60;  // … for this long is abandoned, then retried
  std::string ca_file;          // PEM bundle for https; "" = the system's
  // What waits between attempts (a test's clock records instead of sleeping) and where
  // progress lines go ("retrying in 2 s: …"); they default to the real clock and silence.
  Clock* clock = nullptr;
  std::function<void(const std::string&)> log;
};

struct FetchResult {
  std::uint64_t bytes = 0;       // DEST's size
  int attempts = 0;              // transfers started (0 when DEST was already right)
  bool resumed = false;          // some bytes came from an earlier, broken transfer
  bool already_present = false;  // DEST held the expected content; nothing was fetched
};

Outcome<FetchResult> fetch_verified(const std::string& url, const std::string& expected_sha256, const std::string& dest,
                                    const FetchOptions& options = {});

// For what is pinned otherwise than by digest (an apt signing key by its fingerprint, or by
// TLS alone): always fetched, with the same resume and retry rules; `check` judges the
// complete file, and DEST appears only when it passes. A rejected file is deleted and the
// error says why.
using FetchCheck = std::function<Status(const std::string& path)>;
Outcome<FetchResult> fetch_checked(const std::string& url, const FetchCheck& check, const std::string& dest,
                                   const FetchOptions& options = {});

}  // namespace railyard
