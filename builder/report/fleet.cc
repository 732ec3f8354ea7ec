#include "report/fleet.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <unordered_map>

#include "report/report_source.h"
#include "text.h"

namespace railyard {

namespace {

// Newer first: by when the receiver took it, never by what the node claims; within a second,
// by started_at (RFC 3339 UTC, so text order is time order), then the path.
bool newer(const ReportDigest& a, const ReportDigest& b) {
  if (a.received_at != b.received_at) return a.received_at > b.received_at;
  return a.started_at != b.started_at ? a.started_at > b.started_at : a.path > b.path;
}

// DIR/<node>/<boot>.received beside DIR/<node>/<boot>.json (collect/report_store.h), else
// the report file's modification time.
void read_receive_time(ReportDigest& d) {
  std::string sidecar = d.path.substr(0, d.path.size() - 5) + ".received";
  std::string text;
  if (d.path.ends_with(".json") && read_text_file(sidecar, text).ok()) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (auto at = parse_rfc3339(text)) {
      d.received_at = *at;
      d.received_recorded = true;
      return;
    }
  }
  struct stat st {};
  if (::stat(d.path.c_str(), &st) == 0) d.received_at = st.st_mtim.tv_sec;
}

}  // namespace

Outcome<Fleet> read_fleet(const std::string& dir, unsigned threads) {
  auto files = list_report_files(dir);
  if (!files.ok()) return Outcome<Fleet>::fail(files.error());
  std::vector<Outcome<ReportDigest>> results(files->size(), Outcome<ReportDigest>::fail("not read"));

  std::atomic<std::size_t> next{0};
  auto work = [&] {
    ReportReader reader;  // one per thread, its buffer grown to the largest report
    for (std::size_t i; (i = next.fetch_add(1)) < files->size();) {
      const std::string& path = (*files)[i];
      auto d = reader.digest_file(path);
      if (d.ok()) {
        d->path = path;
        read_receive_time(*d);
      }
      bool named = d.ok() || reader.fault() == ReportFault::unreadable;  // read errors name the file
      results[i] = named ? std::move(d) : Outcome<ReportDigest>::fail(path + ": " + d.error());
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, files->size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();

  Fleet fleet;
  fleet.dir = dir;
  std::unordered_map<std::string, std::size_t> by_node, passing_by_node;
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto& r = results[i];
    if (!r.ok()) {
      // The path is in the message already when the file was read.
      const std::string& e = r.error();
      const std::string& path = (*files)[i];
      fleet.unreadable.push_back({path, e.rfind(path + ": ", 0) == 0 ? e.substr(path.size() + 2) : e});
      continue;
    }
    ++fleet.reports;
    std::string key = r->node.empty() ? r->path : r->node;
    if (r->passed && r->contradiction().empty()) {
      auto [p, fresh] = passing_by_node.try_emplace(key, fleet.passing.size());
      if (fresh) fleet.passing.push_back(*r);
      else if (newer(*r, fleet.passing[p->second])) fleet.passing[p->second] = *r;
    }
    auto [it, inserted] = by_node.try_emplace(key, fleet.nodes.size());
    if (inserted) fleet.nodes.push_back(std::move(*r));
    else if (newer(*r, fleet.nodes[it->second])) fleet.nodes[it->second] = std::move(*r);
  }
  auto by_name = [](const ReportDigest& a, const ReportDigest& b) {
    return a.node != b.node ? a.node < b.node : a.path < b.path;
  };
  std::sort(fleet.nodes.begin(), fleet.nodes.end(), by_name);
  std::sort(fleet.passing.begin(), fleet.passing.end(), by_name);
  return fleet;
}

}  // namespace railyard
