#include "collect/node_token.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cctype>

#include "report/report_source.h"

namespace railyard {

std::string node_token(std::string_view secret, std::string_view hostname) {
  std::string name(hostname);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(name.data()), name.size(), mac, &size);
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += digits[mac[i] >> 4];
    hex += digits[mac[i] & 15];
  }
  return hex;
}

Outcome<std::string> read_node_secret(const std::string& path) {
  auto text = read_text_file(path);
  if (!text.ok()) return text;
  std::string secret = *text;
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.size() < 16)
    return Outcome<std::string>::fail(path + ": the node secret is " + std::to_string(secret.size()) +
                                      " bytes; at least 16 are needed (e.g. head -c 32 /dev/urandom | base64)");
  return secret;
}

}  // namespace railyard
