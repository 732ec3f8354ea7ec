#include "fetch.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_lock.h"
#include "net.h"
#include "openssl_hasher.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

// What one transfer came to.
struct Attempt {
  enum Kind { complete, transient, permanent, restart } kind = complete;
  std::string why;
  long status = 0;
};

// One HTTP GET appending to DEST.part from `offset`.
class Transfer {
 public:
  Transfer(int fd, std::uint64_t offset) : fd_(fd), offset_(offset) {}

  Attempt run(const std::string& url, const FetchOptions& o) {
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> h(curl_easy_init(), &curl_easy_cleanup);
    if (!h) return {Attempt::permanent, "libcurl could not start a transfer", 0};
    char error[CURL_ERROR_SIZE] = "";
    std::string range = std::to_string(offset_) + "-";
    curl_easy_setopt(h.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(h.get(), CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h.get(), CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h.get(), CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h.get(), CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(h.get(), CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(h.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h.get(), CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(h.get(), CURLOPT_CONNECTTIMEOUT, o.connect_timeout_s);
    curl_easy_setopt(h.get(), CURLOPT_LOW_SPEED_LIMIT, o.low_speed_bytes);
    curl_easy_setopt(h.get(), CURLOPT_LOW_SPEED_TIME, o.low_speed_seconds);
    curl_easy_setopt(h.get(), CURLOPT_USERAGENT, "railyard");
    if (!o.ca_file.empty()) curl_easy_setopt(h.get(), CURLOPT_CAINFO, o.ca_file.c_str());
    // A plain Range header rather than CURLOPT_RESUME_FROM: a server that ignores it answers
    // 200 with the whole body, which write() then takes from the start.
    if (offset_ > 0) curl_easy_setopt(h.get(), CURLOPT_RANGE, range.c_str());
    curl_easy_setopt(h.get(), CURLOPT_HEADERFUNCTION, &Transfer::on_header);
    curl_easy_setopt(h.get(), CURLOPT_HEADERDATA, this);
    curl_easy_setopt(h.get(), CURLOPT_WRITEFUNCTION, &Transfer::on_data);
    curl_easy_setopt(h.get(), CURLOPT_WRITEDATA, this);
    handle_ = h.get();
    CURLcode rc = curl_easy_perform(h.get());
    long status = 0;
    curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, &status);
    std::string detail = error[0] ? error : curl_easy_strerror(rc);
    if (!write_error_.empty()) return {Attempt::permanent, write_error_, status};
    if (!range_error_.empty()) return {Attempt::restart, range_error_, status};
    if (rc == CURLE_OK) return {Attempt::complete, "", status};
    if (rc == CURLE_HTTP_RETURNED_ERROR) {
      if (status == 416 && offset_ > 0)
        return {Attempt::restart, "HTTP 416: the partial file is not a prefix of it", status};
      bool transient = status == 408 || status == 425 || status == 429 || status >= 500;
      return {transient ? Attempt::transient : Attempt::permanent, "HTTP " + std::to_string(status), status};
    }
    if (rc == CURLE_OPERATION_TIMEDOUT)
      detail += " (slower than " + std::to_string(o.low_speed_bytes) + " bytes/s for " +
                std::to_string(o.low_speed_seconds) + " s, or no answer)";
    switch (rc) {
      case CURLE_UNSUPPORTED_PROTOCOL:
      case CURLE_URL_MALFORMAT:
      case CURLE_NOT_BUILT_IN:
      case CURLE_PEER_FAILED_VERIFICATION:
      case CURLE_SSL_CACERT_BADFILE:
      case CURLE_SSL_CERTPROBLEM:
      case CURLE_TOO_MANY_REDIRECTS:
      case CURLE_LOGIN_DENIED:
      case CURLE_REMOTE_ACCESS_DENIED:
      case CURLE_REMOTE_FILE_NOT_FOUND:
      case CURLE_OUT_OF_MEMORY: return {Attempt::permanent, detail, status};
      default: return {Attempt::transient, detail, status};
    }
  }

  std::uint64_t written() const { return written_; }
  bool started_over() const { return started_over_; }

 private:
  static size_t on_header(char* data, size_t size, size_t n, void* self) {
    auto* t = static_cast<Transfer*>(self);
    std::string line(data, size * n);
    if (line.rfind("HTTP/", 0) == 0) t->content_range_start_.reset();  // a new response (after a redirect)
    static const char kRange[] = "content-range: bytes ";
    if (line.size() > sizeof kRange - 1 && strncasecmp(line.c_str(), kRange, sizeof kRange - 1) == 0)
      t->content_range_start_ = std::strtoull(line.c_str() + sizeof kRange - 1, nullptr, 10);
    return size * n;
  }

  static size_t on_data(char* data, size_t size, size_t n, void* self) {
    auto* t = static_cast<Transfer*>(self);
    if (!t->checked_) {
      t->checked_ = true;
      long status = 0;
      curl_easy_getinfo(t->handle_, CURLINFO_RESPONSE_CODE, &status);
      if (status == 200 && t->offset_ > 0) {
        // The server sent the whole file despite the Range: keep it, not the old part.
        if (::ftruncate(t->fd_, 0) != 0 || ::lseek(t->fd_, 0, SEEK_SET) != 0) {
          t->write_error_ = std::string("truncate: ") + std::strerror(errno);
          return 0;
        }
        t->offset_ = 0;
        t->started_over_ = true;
      } else if (status == 206 && t->content_range_start_ != t->offset_) {
        t->range_error_ =
            "HTTP 206 for other bytes than asked (Content-Range does not start at " + std::to_string(t->offset_) + ")";
        return 0;
      }
    }
    std::size_t total = size * n;
    for (std::size_t done = 0; done < total;) {
      ssize_t w = ::write(t->fd_, data + done, total - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        t->write_error_ = std::string("write: ") + std::strerror(errno);
        return 0;
      }
      done += static_cast<std::size_t>(w);
    }
    t->written_ += total;
    return total;
  }

  int fd_;
  std::uint64_t offset_;
  CURL* handle_ = nullptr;
  bool checked_ = false, started_over_ = false;
  std::optional<std::uint64_t> content_range_start_;
  std::uint64_t written_ = 0;
  std::string write_error_, range_error_;
};

std::uint64_t size_of(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

// The download loop both entry points share: `accept` judges a complete download (nothing
// when it is right, else why not).
using Acceptance = std::function<Outcome<std::optional<std::string>>(const std::string& path)>;

Outcome<FetchResult> fetch_into(const std::string& url, const Acceptance& accept, const std::string& dest,
                                const FetchOptions& o) {
  using Result = Outcome<FetchResult>;
  static std::once_flag curl_ready;
  std::call_once(curl_ready, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return Result::fail(url + ": only http:// and https:// URLs are fetched");
  Clock& clock = o.clock ? *o.clock : real_clock();
  auto log = [&](const std::string& line) {
    if (o.log) o.log(line);
  };
  FetchResult r;
  std::error_code ec;
  fs::create_directories(fs::path(dest).parent_path(), ec);
  std::string part = dest + ".part";
  auto lock = FileLock::try_lock(part, FileLock::Mode::exclusive);
  if (!lock.ok()) return Result::fail(lock.error());
  if (!*lock) return Result::fail(part + ": another process is downloading it");
  int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Result::fail(part + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  (void)closer;

  const int attempts = std::max(1, o.attempts);
  auto delay = o.backoff;
  bool assembled = false;  // DEST.part holds bytes of more than one transfer
  std::string last;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    std::uint64_t offset = size_of(fd);
    if (offset > 0) {
      assembled = true;
      log(url + ": resuming at byte " + std::to_string(offset));
    }
    Transfer t(fd, offset);
    Attempt a = t.run(url, o);
    r.attempts = attempt;
    if (t.started_over()) assembled = false;
    if (offset > 0 && !t.started_over() && t.written() > 0) r.resumed = true;
    if (a.kind == Attempt::permanent)
      return Result::fail(url + ": " + a.why +
                          (attempt > 1 ? " (attempt " + std::to_string(attempt) + ")" : " (not retried)"));
    if (a.kind == Attempt::restart) {
      log(url + ": " + a.why + "; starting over");
      if (::ftruncate(fd, 0) != 0) return Result::fail(part + ": " + std::strerror(errno));
      assembled = false;
      last = a.why;
      continue;
    }
    if (a.kind == Attempt::transient) {
      last = a.why;
      if (attempt == attempts) break;
      log(url + ": " + a.why + "; retrying in " + std::to_string(delay.count()) + " ms");
      clock.sleep(delay);
      delay = std::min(delay * 2, o.max_backoff);
      continue;
    }
    auto wrong = accept(part);
    if (!wrong.ok()) return Result::fail(wrong.error());
    if (*wrong) {
      std::string why = **wrong + " (" + std::to_string(size_of(fd)) + " bytes; deleted)";
      if (::ftruncate(fd, 0) != 0)
        return Result::fail(part + ": cannot empty the corrupt download: " + std::strerror(errno));
      // Pieces of two transfers may not belong together (the file changed in between):
      // once more from scratch. A whole transfer that is wrong stays wrong.
      if (!assembled || attempt == attempts) {
        ::unlink(part.c_str());
        return Result::fail(url + ": " + why);
      }
      log(url + ": " + why + "; fetching it whole once more");
      assembled = false;
      continue;
    }
    if (::fsync(fd) != 0) return Result::fail(part + ": fsync: " + std::strerror(errno));
    if (::rename(part.c_str(), dest.c_str()) != 0) return Result::fail(dest + ": " + std::strerror(errno));
    r.bytes = size_of(fd);
    return r;
  }
  return Result::fail(url + ": gave up after " + std::to_string(r.attempts) + " attempts; last: " + last);
}

}  // namespace

Outcome<FetchResult> fetch_verified(const std::string& url, const std::string& expected_sha256, const std::string& dest,
                                    const FetchOptions& o) {
  using Result = Outcome<FetchResult>;
  if (auto why = check_hex(expected_sha256, 64))
    return Result::fail(url + ": expected sha256 '" + expected_sha256 + "': " + *why);
  OpenSslHasher hasher;
  std::error_code ec;
  if (fs::is_regular_file(dest, ec)) {
    auto have = hasher.sha256_file(dest);
    if (have.ok() && *have == expected_sha256) {
      FetchResult r;
      r.bytes = fs::file_size(dest, ec);
      r.already_present = true;
      return r;
    }
  }
  auto accept = [&](const std::string& part) -> Outcome<std::optional<std::string>> {
    auto got = hasher.sha256_file(part);
    if (!got.ok()) return Outcome<std::optional<std::string>>::fail(got.error());
    if (*got == expected_sha256) return std::optional<std::string>();
    return std::optional<std::string>("sha256 mismatch: expected " + expected_sha256 + ", got " + *got);
  };
  return fetch_into(url, accept, dest, o);
}

Outcome<FetchResult> fetch_checked(const std::string& url, const FetchCheck& check, const std::string& dest,
                                   const FetchOptions& o) {
  auto accept = [&](const std::string& part) -> Outcome<std::optional<std::string>> {
    Status s = check(part);
    if (s.ok()) return std::optional<std::string>();
    return std::optional<std::string>(s.error());
  };
  return fetch_into(url, accept, dest, o);
}

}  // namespace railyard
