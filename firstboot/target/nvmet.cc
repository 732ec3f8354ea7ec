#include "nvmet.h"

#include <algorithm>
#include <cstdlib>

namespace railyard {

namespace {

std::string value_of(const Configfs& cfs, const std::string& path) {
  auto v = cfs.read(path);
  return v.ok() ? *v : "";
}

Change from(const std::string& object, const Status& s, const std::string& before, const std::string& after) {
  Change c{object, ChangeOutcome::changed, before, after, s.error()};
  if (!s.ok()) c.outcome = ChangeOutcome::failed;  // a target that cannot serve is a failure, never "unsupported"
  return c;
}

// A directory (a configfs object); false when it could not be made.
bool ensure_object(const Configfs& cfs, const std::string& path, const std::string& object, std::vector<Change>& out) {
  if (cfs.exists(path)) {
    out.push_back({object, ChangeOutcome::unchanged, "present", "present", ""});
    return true;
  }
  Status s = cfs.make_directory(path);
  out.push_back(from(object, s, "absent", "present"));
  return s.ok();
}

bool ensure_attribute(const Configfs& cfs, const std::string& path, const std::string& want, const std::string& object,
                      std::vector<Change>& out) {
  std::string now = value_of(cfs, path);
  if (now == want) {
    out.push_back({object, ChangeOutcome::unchanged, now, want, ""});
    return true;
  }
  Status s = cfs.write(path, want);
  out.push_back(from(object, s, now, want));
  return s.ok();
}

bool ensure_namespace(const NvmetExport& e, const Configfs& cfs, const std::string& sub, std::vector<Change>& out) {
  std::string ns = sub + "/namespaces/1";
  std::string object = "nvmet " + e.nqn + " namespace 1";
  if (!ensure_object(cfs, ns, object, out)) return false;
  std::string device = value_of(cfs, ns + "/device_path");
  if (value_of(cfs, ns + "/enable") == "1") {
    if (device == e.device) {
      out.push_back({object + " on " + e.device, ChangeOutcome::unchanged, "enabled", "enabled", ""});
      return true;
    }
    out.push_back({object + " on " + e.device, ChangeOutcome::failed, "enabled on " + device, "enabled on " + e.device,
                   "namespace 1 already serves " + device + "; not modified"});
    return false;
  }
  // The device is set while the namespace is disabled; enabling opens it.
  if (!ensure_attribute(cfs, ns + "/device_path", e.device, object + " device", out)) return false;
  Status s = cfs.write(ns + "/enable", "1");
  out.push_back(from(object + " on " + e.device, s, "disabled", "enabled"));
  return s.ok();
}

// The port already listening on this transport, address and service id, if any.
std::string find_port(const NvmetExport& e, const Configfs& cfs, const std::vector<std::string>& ports) {
  for (const auto& id : ports) {
    std::string p = std::string(kNvmetRoot) + "/ports/" + id + "/";
    if (value_of(cfs, p + "addr_trtype") == e.transport && value_of(cfs, p + "addr_traddr") == e.address &&
        value_of(cfs, p + "addr_trsvcid") == std::to_string(e.port))
      return id;
  }
  return "";
}

std::string next_port_id(const std::vector<std::string>& ports) {
  long highest = 0;
  for (const auto& id : ports) highest = std::max(highest, std::strtol(id.c_str(), nullptr, 10));
  return std::to_string(highest + 1);
}

}  // namespace

void apply_nvmet_export(const NvmetExport& e, const Configfs& cfs, std::vector<Change>& out) {
  std::string root = kNvmetRoot;
  if (!cfs.exists(root)) {
    out.push_back({"nvmet", ChangeOutcome::failed, "absent", "present",
                   root + " is missing: the nvmet module is not loaded or configfs is not mounted"});
    return;
  }
  std::string sub = root + "/subsystems/" + e.nqn;
  if (!ensure_object(cfs, sub, "nvmet subsystem " + e.nqn, out)) return;
  // Lab targets serve any host; the node's host NQN is its own (derived on the node).
  if (!ensure_attribute(cfs, sub + "/attr_allow_any_host", "1", "nvmet " + e.nqn + " allow any host", out)) return;
  if (!ensure_namespace(e, cfs, sub, out)) return;

  auto ports = cfs.list(root + "/ports");
  if (!ports.ok()) {
    out.push_back({"nvmet ports", ChangeOutcome::failed, "", "", ports.error()});
    return;
  }
  std::string where = e.transport + " " + e.address + ":" + std::to_string(e.port);
  std::string id = find_port(e, cfs, *ports);
  if (id.empty()) {
    id = next_port_id(*ports);
    std::string p = root + "/ports/" + id;
    std::string object = "nvmet port " + id + " (" + where + ")";
    Status s = cfs.make_directory(p);
    // Address first, while the port serves nothing: the kernel refuses changes once it is enabled.
    for (const auto& [attr, v] :
         std::vector<std::pair<std::string, std::string>>{{"addr_trtype", e.transport},
                                                          {"addr_adrfam", "ipv4"},
                                                          {"addr_traddr", e.address},
                                                          {"addr_trsvcid", std::to_string(e.port)}})
      if (s.ok()) s = cfs.write(p + "/" + attr, v);
    out.push_back(from(object, s, "absent", where));
    if (!s.ok()) return;
  } else {
    out.push_back({"nvmet port " + id + " (" + where + ")", ChangeOutcome::unchanged, where, where, ""});
  }
  std::string link = root + "/ports/" + id + "/subsystems/" + e.nqn;
  std::string object = "nvmet port " + id + " serves " + e.nqn;
  if (cfs.exists(link)) {
    out.push_back({object, ChangeOutcome::unchanged, "linked", "linked", ""});
    return;
  }
  // Linking enables the port: the kernel binds the listener to the address now.
  out.push_back(from(object, cfs.make_link(sub, link), "not linked", "linked"));
}

}  // namespace railyard
