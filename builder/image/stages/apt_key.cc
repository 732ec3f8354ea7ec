#include "apt_key.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

std::string describe(const PublicKey& k) { return k.fingerprint + (k.uids.empty() ? "" : " (" + k.uids.front() + ")"); }

}  // namespace

std::string normalized_fingerprint(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<PublicKey> parse_gpg_colons(const std::string& text) {
  // pub:-:255:22:KEYID:CREATED:EXPIRES::-:::scSC::::ed25519:::0:
  // fpr:::::::::FINGERPRINT:
  // uid:-::::CREATED::HASH::Name <mail>::::::::::0:
  // sub / fpr lines of subkeys follow; their fingerprints are not the key's.
  std::vector<PublicKey> keys;
  bool in_primary = false;  // the next fpr line belongs to the primary key
  for (const auto& line : split(text, '\n')) {
    auto f = split(line, ':');
    if (f.empty()) continue;
    const std::string& type = f[0];
    if (type == "pub") {
      PublicKey k;
      k.revoked = f.size() > 1 && f[1] == "r";
      if (f.size() > 6 && !f[6].empty()) k.expires = std::strtoll(f[6].c_str(), nullptr, 10);
      keys.push_back(std::move(k));
      in_primary = true;
    } else if (type == "fpr" && in_primary && !keys.empty() && f.size() > 9) {
      keys.back().fingerprint = normalized_fingerprint(f[9]);
      in_primary = false;
    } else if (type == "uid" && !keys.empty() && f.size() > 9) {
      keys.back().uids.push_back(f[9]);
    } else if (type == "sub" || type == "ssb") {
      in_primary = false;
    }
  }
  return keys;
}

Outcome<std::vector<PublicKey>> read_public_keys(CommandRunner& runner, const std::string& path) {
  using Result = Outcome<std::vector<PublicKey>>;
  std::string tmpl = (fs::temp_directory_path() / "railyard-gpg.XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return Result::fail("cannot create a temporary gpg home directory");
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{tmpl};
  Command c;
  c.argv = {"gpg", "--batch",       "--no-tty",          "--no-options", "--homedir",
            tmpl,  "--with-colons", "--fixed-list-mode", "--show-keys",  path};
  c.env = {{"LC_ALL", "C.UTF-8"}};
  c.what = "read the OpenPGP key " + path;
  auto out = runner.capture(c);
  if (!out.ok()) return Result::fail(path + " is not an OpenPGP public key file gpg can read: " + out.error());
  auto keys = parse_gpg_colons(*out);
  if (keys.empty()) return Result::fail(path + " holds no OpenPGP public key");
  return keys;
}

Status check_pinned_key(const std::vector<PublicKey>& keys, const std::string& fingerprint, std::int64_t now) {
  std::string want = normalized_fingerprint(fingerprint);
  if (keys.empty()) return Status::fail("no OpenPGP public key in it");
  if (keys.size() > 1) {
    std::string all;
    for (const auto& k : keys) all += (all.empty() ? "" : ", ") + describe(k);
    return Status::fail("it holds " + std::to_string(keys.size()) + " keys (" + all +
                        "); apt would trust every one of them, so exactly one is accepted");
  }
  const PublicKey& k = keys.front();
  if (!want.empty() && k.fingerprint != want)
    return Status::fail("the key's fingerprint is " + describe(k) + ", not the pinned " + want);
  if (k.revoked) return Status::fail("the key " + describe(k) + " is revoked");
  if (k.expires != 0 && k.expires <= now)
    return Status::fail("the key " + describe(k) + " expired at " + std::to_string(k.expires) + " (Unix time)");
  return success();
}

}  // namespace railyard
