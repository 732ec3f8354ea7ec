// Signing keys of vendor apt repositories fetched by the build (a driver bundle's
// [apt] key_url): what a key file holds, read with gpg, and whether it is the pinned key.
//
//   auto keys = read_public_keys(runner, "/var/cache/railyard/downloads/keys/doca.asc");
//   if (keys.ok()) if (Status s = check_pinned_key(*keys, m.apt.key_fingerprint, now); !s.ok()) ...
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "command.h"
#include "outcome.h"

namespace railyard {

struct PublicKey {
  std::string fingerprint;   // of the primary key, upper-case hex
  std::int64_t expires = 0;  // Unix seconds; 0 never
  bool revoked = false;
  std::vector<std::string> uids;
};

// A fingerprint as gpg prints it and the key table compares it: spaces dropped, upper case.
std::string normalized_fingerprint(const std::string& fingerprint);

// `gpg --with-colons --show-keys` output → its primary keys, in file order.
std::vector<PublicKey> parse_gpg_colons(const std::string& text);

// The primary keys in an OpenPGP key file (armored or binary), read by gpg with a throwaway
// home directory so that nothing of the build host's keyrings is used or changed.
Outcome<std::vector<PublicKey>> read_public_keys(CommandRunner& runner, const std::string& path);

// Success when the file holds exactly one primary key, neither revoked nor expired at
// `now`, and, when `fingerprint` is set, with that fingerprint (spaces and case ignored).
// A file with other keys beside the pinned one is refused: apt would trust them all.
Status check_pinned_key(const std::vector<PublicKey>& keys, const std::string& fingerprint, std::int64_t now);

}  // namespace railyard
