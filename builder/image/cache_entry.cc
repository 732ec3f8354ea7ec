#include "cache_entry.h"

#include <cstdio>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace railyard {

using nlohmann::ordered_json;

namespace {

TreeEntry::Type type_from_letter(const std::string& s) {
  if (s == "f") return TreeEntry::Type::file;
  if (s == "d") return TreeEntry::Type::directory;
  if (s == "l") return TreeEntry::Type::symlink;
  return TreeEntry::Type::other;
}

std::string describe(const TreeEntry& e) {
  switch (e.type) {
    case TreeEntry::Type::file: return "a file of " + std::to_string(e.size) + " bytes";
    case TreeEntry::Type::directory: return "a directory";
    case TreeEntry::Type::symlink: return "a link to " + e.target;
    case TreeEntry::Type::other: return "a special file";
  }
  return "?";
}

}  // namespace

CacheEntryRecord make_record(std::string stage, std::string key, std::int64_t created, std::vector<TreeEntry> files) {
  CacheEntryRecord r{std::move(stage), std::move(key), created, 0, std::move(files)};
  for (const auto& f : r.files) r.size += f.size;
  return r;
}

std::string to_json(const CacheEntryRecord& r) {
  ordered_json files = ordered_json::array();
  for (const auto& f : r.files) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", f.mode & 07777u);  // octal, as people read modes
    ordered_json j{{"path", f.path}, {"type", std::string(1, type_letter(f.type))}, {"mode", mode}};
    if (f.type == TreeEntry::Type::file) {
      j["size"] = f.size;
      j["xxh128"] = f.digest;
    }
    if (f.type == TreeEntry::Type::symlink) j["target"] = f.target;
    files.push_back(std::move(j));
  }
  ordered_json j{{"schema", kCacheEntrySchema}, {"stage", r.stage}, {"key", r.key},
                 {"created", r.created},        {"size", r.size},   {"files", std::move(files)}};
  return j.dump(1) + "\n";
}

Outcome<CacheEntryRecord> parse_record(const std::string& text) {
  using Result = Outcome<CacheEntryRecord>;
  try {
    auto j = ordered_json::parse(text);
    if (j.at("schema").get<int>() != kCacheEntrySchema)
      return Result::fail("entry schema " + j.at("schema").dump() + ", expected " + std::to_string(kCacheEntrySchema));
    CacheEntryRecord r;
    r.stage = j.at("stage").get<std::string>();
    r.key = j.at("key").get<std::string>();
    r.created = j.at("created").get<std::int64_t>();
    r.size = j.at("size").get<std::uint64_t>();
    for (const auto& f : j.at("files")) {
      TreeEntry e;
      e.path = f.at("path").get<std::string>();
      e.type = type_from_letter(f.at("type").get<std::string>());
      e.mode = static_cast<unsigned>(std::stoul(f.at("mode").get<std::string>(), nullptr, 8));
      if (e.type == TreeEntry::Type::file) {
        e.size = f.at("size").get<std::uint64_t>();
        e.digest = f.at("xxh128").get<std::string>();
      }
      if (e.type == TreeEntry::Type::symlink) e.target = f.at("target").get<std::string>();
      r.files.push_back(std::move(e));
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    return Result::fail(std::string("entry.json is unreadable: ") + e.what());
  } catch (const std::logic_error& e) {  // std::stoul on a mode that is not octal
    return Result::fail(std::string("entry.json is unreadable: bad mode: ") + e.what());
  }
}

Status compare_output(const std::vector<TreeEntry>& recorded, const std::vector<TreeEntry>& scanned) {
  std::map<std::string, const TreeEntry*> now;
  for (const auto& e : scanned) now[e.path] = &e;
  for (const auto& want : recorded) {
    auto it = now.find(want.path);
    if (it == now.end()) return Status::fail(want.path + ": missing");
    const TreeEntry& have = *it->second;
    if (have.type != want.type || have.size != want.size || have.target != want.target)
      return Status::fail(want.path + ": " + describe(have) + ", expected " + describe(want));
    if (have.digest != want.digest) return Status::fail(want.path + ": content differs from when it was cached");
    if (have.mode != want.mode) return Status::fail(want.path + ": mode changed");
    now.erase(it);
  }
  if (!now.empty()) return Status::fail(now.begin()->first + ": not part of the entry");
  return success();
}

}  // namespace railyard
