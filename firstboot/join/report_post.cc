// The report POST over libcurl: HTTPS with the recipe's CA, a bounded timeout, an
// optional bearer token.
#include <curl/curl.h>

#include <memory>

#include "join/join.h"

namespace railyard {

std::string NativeJoinEffects::post(const std::string& url, const std::string& body, const std::string& ca_file,
                                    const std::string& bearer_token, int timeout_ms) {
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!initialised) return "libcurl failed to initialise";
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return "libcurl: no handle";
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  std::string auth = "Authorization: Bearer " + bearer_token;
  if (!bearer_token.empty()) headers = curl_slist_append(headers, auth.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> hold(headers, curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min(timeout_ms, 5000)));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(
      c, CURLOPT_WRITEFUNCTION, +[](char*, size_t size, size_t n, void*) { return size * n; });
  if (!ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, ca_file.c_str());
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) return url + ": " + curl_easy_strerror(rc);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) return url + ": HTTP " + std::to_string(status);
  return "";
}

}  // namespace railyard
