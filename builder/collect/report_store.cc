#include "collect/report_store.h"

#include <cctype>
#include <filesystem>

#include "net.h"
#include "io/atomic_file.h"
#include "report/report_reader.h"
#include "text.h"

namespace railyard {

namespace {

bool only(const std::string& s, std::string_view allowed_punct) {
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && allowed_punct.find(c) == std::string_view::npos) return false;
  return true;
}

}  // namespace

std::string store_path(const std::string& node, const std::string& boot_id, const std::string& started_at,
                       std::string& why) {
  if (node.empty()) {
    why = "the report names no node (neither 'node' nor host.hostname)";
    return "";
  }
  if (auto bad = check_hostname(node)) {
    why = "unsafe node name: " + *bad;
    return "";
  }
  std::string boot;
  auto plain_start = [](const std::string& s) { return std::isalnum(static_cast<unsigned char>(s[0])) != 0; };
  if (!boot_id.empty() && boot_id.size() <= 64 && plain_start(boot_id) && only(boot_id, "-")) boot = boot_id;
  else if (!started_at.empty() && started_at.size() <= 64 && plain_start(started_at) && only(started_at, "-:.+")) {
    boot = started_at;
    for (char& c : boot)
      if (c == ':') c = '-';
  } else {
    why = "the report has neither a host.boot_id nor a started_at (RFC 3339) to tell its boot apart";
    return "";
  }
  std::string lower = node;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower + "/" + boot + ".json";
}

StoreReply store_report(const std::string& dir, std::string_view body, std::int64_t now,
                        const std::function<std::string(const std::string& node)>& authorize) {
  StoreReply reply;
  // Read once, whole: the grammar in full, then the report's contract.
  ReportReader reader;
  auto report = reader.whole(body);
  if (!report.ok()) {
    bool malformed = reader.fault() == ReportFault::malformed;
    reply.status = malformed ? 400 : 422;
    reply.message = malformed ? "malformed JSON: " + report.error() : report.error();
    return reply;
  }
  // Who may post for this node, before anything else is said of the report.
  if (std::string node = report->name(); authorize && !check_hostname(node)) {
    for (char& c : node) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::string refused = authorize(node); !refused.empty()) {
      reply.status = 403;
      reply.message = refused;
      return reply;
    }
  }
  const std::string& started = report->report.started_at;
  if (!started.empty()) {
    auto at = parse_rfc3339(started);
    if (!at) {
      reply.status = 422;
      reply.message = "started_at '" + started + "' is not an RFC 3339 date-time (e.g. 2026-03-10T08:01:00Z)";
      return reply;
    }
    if (*at > now + 86400) {
      reply.status = 422;
      reply.message = "started_at " + started + " is more than a day ahead of this receiver's clock";
      return reply;
    }
  }
  if (std::string c = report->contradiction(); !c.empty()) {
    reply.status = 422;
    reply.message = c;
    return reply;
  }
  std::string why;
  std::string rel = store_path(report->name(), report->report.host.boot_id, report->report.started_at, why);
  if (rel.empty()) {
    reply.status = 422;
    reply.message = why;
    return reply;
  }
  std::filesystem::path target = std::filesystem::path(dir) / rel;
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) {
    reply.status = 500;
    reply.message = target.parent_path().string() + ": " + ec.message();
    return reply;
  }
  // The report, then when it came: a receiver killed in between leaves a report without a
  // receive time, which the fleet views take from the file's modification time.
  std::filesystem::path received = target;
  received.replace_extension(kReceivedSuffix);
  Status st = write_file_atomically(target.string(), body);
  if (st.ok()) st = write_file_atomically(received.string(), format_rfc3339(now) + "\n");
  if (!st.ok()) {
    reply.status = 500;
    reply.message = st.error();
    return reply;
  }
  reply.status = 201;
  reply.stored = rel;
  reply.node = rel.substr(0, rel.find('/'));
  reply.result = report->passed ? "pass" : "fail";
  reply.message = "stored " + rel;
  return reply;
}

int remove_leftover_temporaries(const std::string& dir) {
  // write_file_atomically's temporaries: ".<name>.XXXXXX" beside the file (core/io/atomic_file.cc).
  int removed = 0;
  std::error_code ec;
  for (const auto& node : std::filesystem::directory_iterator(dir, ec)) {
    if (!node.is_directory()) continue;
    for (const auto& f : std::filesystem::directory_iterator(node.path(), ec)) {
      std::string name = f.path().filename().string();
      std::size_t dot = name.rfind('.');
      if (name.size() < 9 || name[0] != '.' || dot == std::string::npos || name.size() - dot != 7) continue;
      std::string_view stem(name.data(), dot);
      if ((stem.ends_with(".json") || stem.ends_with(kReceivedSuffix)) && f.is_regular_file() &&
          std::filesystem::remove(f.path(), ec))
        ++removed;
    }
  }
  return removed;
}

}  // namespace railyard
