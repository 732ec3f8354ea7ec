#include "report/report_source.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

namespace railyard {

bool is_url(const std::string& where) { return where.rfind("http://", 0) == 0 || where.rfind("https://", 0) == 0; }

Status read_text_file(const std::string& path, std::string& into) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::fail(path + ": " + std::strerror(errno));
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { ::close(*f); });
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::fail(path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return Status::fail(path + ": is a directory");
  if (static_cast<std::size_t>(st.st_size) > kMaxReportBytes)
    return Status::fail(path + ": " + std::to_string(st.st_size) + " bytes; a report is at most " +
                        std::to_string(kMaxReportBytes) + " bytes");
  into.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < into.size()) {
    ssize_t n = ::read(fd, into.data() + got, into.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::fail(path + ": " + std::strerror(errno));
    if (n == 0) break;  // shrank while read
    got += static_cast<std::size_t>(n);
  }
  into.resize(got);
  return success();
}

Outcome<std::string> read_text_file(const std::string& path) {
  std::string text;
  if (Status s = read_text_file(path, text); !s.ok()) return Outcome<std::string>::fail(s.error());
  return text;
}

Outcome<std::string> fetch_url(const std::string& url, int timeout_ms, std::size_t max_bytes) {
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!initialised) return Outcome<std::string>::fail("libcurl failed to initialise");
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Outcome<std::string>::fail("libcurl: no handle");
  struct Sink {
    std::string body;
    std::size_t max;
  } sink{"", max_bytes};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 3L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min(timeout_ms, 5000)));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_bytes));
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(
      c, CURLOPT_WRITEFUNCTION, +[](char* data, size_t size, size_t n, void* user) -> size_t {
        auto* s = static_cast<Sink*>(user);
        if (s->body.size() + size * n > s->max) return 0;  // aborts the transfer: too large
        s->body.append(data, size * n);
        return size * n;
      });
  CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_WRITE_ERROR || rc == CURLE_FILESIZE_EXCEEDED)
    return Outcome<std::string>::fail(url + ": larger than " + std::to_string(max_bytes) + " bytes");
  if (rc != CURLE_OK) return Outcome<std::string>::fail(url + ": " + curl_easy_strerror(rc));
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) return Outcome<std::string>::fail(url + ": HTTP " + std::to_string(status));
  return std::move(sink.body);
}

Outcome<std::string> read_report_text(const std::string& where) {
  return is_url(where) ? fetch_url(where) : read_text_file(where);
}

Outcome<std::vector<std::string>> list_report_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Outcome<std::vector<std::string>>::fail(dir + ": not a directory");
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return Outcome<std::vector<std::string>>::fail(dir + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Outcome<std::vector<std::string>>::fail(dir + ": " + ec.message());
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    if (name.empty() || name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (p.extension() == ".json" && it->is_regular_file(ec)) files.push_back(p.string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace railyard
