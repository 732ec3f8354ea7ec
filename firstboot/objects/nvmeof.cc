// NVMe over Fabrics: the host identity derived from the machine (so a stateless node keeps
// it across boots and targets can grant access by NQN), discovery.conf for nvme-cli's
// autoconnect, and each planned connection made over its rail.
#include "objects/nvmeof.h"

#include <algorithm>
#include <cctype>

#include "text.h"
#include "objects/result.h"

namespace railyard {

namespace {

bool is_zero_uuid(const std::string& u) { return u.find_first_not_of("0-") == std::string::npos; }

// The SMBIOS system UUID (type 1 structure, bytes 8..23) as text: its first three fields
// are little-endian (DMTF SMBIOS 3.0, 7.2.1), as the kernel prints product_uuid.
std::string smbios_uuid(const std::string& raw) {
  static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    auto b = static_cast<unsigned char>(raw[8 + static_cast<std::size_t>(order[i])]);
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

// The host's UUID as `nvme gen-hostnqn` (libnvme) finds it, in its order: the DMI
// product_uuid exactly as the kernel prints it (upper case on some kernels: libnvme keeps
// the case, so must we), the SMBIOS type 1 entry under /sys/firmware/dmi/entries, the
// device tree's partition UUID (POWER). An all-zero UUID, which some firmware reports, is
// passed over: it would give every such machine the same identity. Where libnvme would then
// make a random one, /etc/machine-id, so that the identity at least lasts the boot image's
// life.
std::pair<std::string, std::string> host_uuid(Kernel& k) {
  auto dmi = k.host.files.read_file("/sys/class/dmi/id/product_uuid");
  if (dmi.ok() && dmi->size() == 36 && !is_zero_uuid(*dmi)) return {*dmi, "DMI product UUID"};
  if (auto entries = k.host.files.list_directory("/sys/firmware/dmi/entries"); entries.ok())
    for (const auto& e : *entries) {
      std::string dir = "/sys/firmware/dmi/entries/" + e;
      auto type = k.host.files.read_file(dir + "/type");
      if (!type.ok() || *type != "1") continue;
      auto raw = k.host.files.read_file(dir + "/raw");
      if (!raw.ok() || raw->size() < 24) continue;
      std::string u = smbios_uuid(*raw);
      if (!is_zero_uuid(u)) return {u, "SMBIOS system UUID (" + dir + ")"};
    }
  auto tree = k.host.files.read_file("/proc/device-tree/ibm,partition-uuid");
  if (tree.ok() && !tree->empty()) {
    std::string u = tree->substr(0, tree->find('\0'));
    if (!u.empty() && first_control(u).empty()) return {u, "device tree partition UUID"};
  }
  auto mid = k.host.files.read_file("/etc/machine-id");
  if (mid.ok() && mid->size() == 32) {
    const std::string& m = *mid;
    return {m.substr(0, 8) + "-" + m.substr(8, 4) + "-" + m.substr(12, 4) + "-" + m.substr(16, 4) + "-" + m.substr(20),
            "/etc/machine-id (no DMI product UUID: the identity lasts only as long as the machine id)"};
  }
  return {"", "neither a DMI product UUID nor /etc/machine-id"};
}

void put_file(Kernel& k, const std::string& path, const std::string& content, std::vector<Change>& out,
              const std::string& why) {
  auto now = k.host.files.read_file(path);
  std::string before = now.ok() ? *now : "";
  if (now.ok() && before == content) {
    out.push_back({path, ChangeOutcome::unchanged, "", "", why});
    return;
  }
  Change c = change_from(path, k.host.files.write_file(path, content), before, content);
  c.detail = c.detail.empty() ? why : c.detail;
  out.push_back(c);
}

std::string transport_name(NvmeTransport t) { return t == NvmeTransport::rdma ? "rdma" : "tcp"; }

// An existing controller to the same subsystem over the same transport and address.
bool connected(Kernel& k, const NvmeofConnection& c) {
  auto ctrls = k.host.files.list_directory("/sys/class/nvme");
  if (!ctrls.ok()) return false;
  std::string want = "traddr=" + c.address + ",trsvcid=" + std::to_string(c.port);
  for (const auto& name : *ctrls) {
    std::string d = "/sys/class/nvme/" + name + "/";
    auto transport = k.host.files.read_file(d + "transport");
    auto nqn = k.host.files.read_file(d + "subsysnqn");
    auto address = k.host.files.read_file(d + "address");
    if (transport.ok() && nqn.ok() && address.ok() && *transport == transport_name(c.transport) && *nqn == c.nqn &&
        address->rfind(want, 0) == 0)
      return true;
  }
  return false;
}

}  // namespace

void apply_nvmeof(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  if (plan.nvmeof.empty()) return;
  auto [uuid, source] = host_uuid(k);
  if (uuid.empty()) {
    out.push_back({"NVMe host identity", ChangeOutcome::failed, "", "", "no stable machine identity: " + source});
    return;
  }
  std::string hostnqn = "nqn.2014-08.org.nvmexpress:uuid:" + uuid;
  put_file(k, "/etc/nvme/hostnqn", hostnqn, out, "from the " + source);
  put_file(k, "/etc/nvme/hostid", uuid, out, "from the " + source);

  std::string conf = "# Written by railyard-firstboot: the fabric targets, for nvme connect-all / nvmf-autoconnect.\n";
  for (const auto& c : plan.nvmeof) {
    conf += "--transport=" + transport_name(c.transport) + " --traddr=" + c.address +
            " --trsvcid=" + std::to_string(c.port);
    if (!c.host_traddr.empty()) conf += " --host-traddr=" + c.host_traddr;
    if (c.transport == NvmeTransport::tcp) conf += " --host-iface=" + c.host_iface;
    conf += "\n";
  }
  put_file(k, "/etc/nvme/discovery.conf", conf.substr(0, conf.size() - 1), out, "");

  for (const auto& c : plan.nvmeof) {
    std::string object = "NVMe-oF " + c.nqn + " at " + c.address + ":" + std::to_string(c.port) + " via rail " +
                         std::to_string(c.rail) + " (" + c.host_iface + ")";
    if (connected(k, c)) {
      out.push_back({object, ChangeOutcome::unchanged, "connected", "connected", ""});
      continue;
    }
    std::string options = "nqn=" + c.nqn + ",transport=" + transport_name(c.transport) + ",traddr=" + c.address +
                          ",trsvcid=" + std::to_string(c.port) + ",hostnqn=" + hostnqn + ",hostid=" + uuid;
    if (!c.host_traddr.empty()) options += ",host_traddr=" + c.host_traddr;
    if (c.transport == NvmeTransport::tcp) options += ",host_iface=" + c.host_iface;
    auto reply = k.host.nvme_fabrics.nvme_fabrics_connect(options);
    Change ch = change_from(object, reply.status(), "not connected", "connected");
    if (reply.ok()) ch.detail = *reply;
    else if (ch.outcome == ChangeOutcome::unsupported)
      ch.outcome = ChangeOutcome::failed;  // an unreachable target is a failure
    out.push_back(ch);
  }
}

namespace {

bool failed_connection(const Change& c) {
  return c.outcome == ChangeOutcome::failed && c.object.rfind("NVMe-oF ", 0) == 0;
}

}  // namespace

void retry_nvmeof(const Plan& plan, Kernel& k, std::vector<Change>& changes, std::chrono::milliseconds wait,
                  std::chrono::milliseconds interval, Clock& clock) {
  using std::chrono::milliseconds;
  const auto start = clock.now();
  auto elapsed = [&] { return std::chrono::duration_cast<milliseconds>(clock.now() - start); };
  auto text = [](milliseconds d) {
    return std::to_string(d.count() / 1000) + "." + std::to_string(d.count() % 1000 / 100) + " s";
  };
  while (elapsed() < wait && std::any_of(changes.begin(), changes.end(), failed_connection)) {
    milliseconds step = std::min(interval, wait - elapsed());
    clock.sleep(step);
    std::vector<Change> again;
    apply_nvmeof(plan, k, again);
    for (const auto& a : again) {
      auto it = std::find_if(changes.begin(), changes.end(), [&](const Change& c) { return c.object == a.object; });
      if (it == changes.end() || !failed_connection(*it)) continue;
      std::string first = it->detail;
      auto pos = first.find(" (still failing after ");
      if (pos != std::string::npos) first = first.substr(0, pos);
      *it = a;
      if (a.outcome == ChangeOutcome::failed)
        it->detail = a.detail + " (still failing after " + text(elapsed()) + " of retries)";
      else
        it->detail = (a.detail.empty() ? "" : a.detail + "; ") + "connected after " + text(elapsed()) +
                     " of retries (first: " + first + ")";
    }
  }
}

namespace {

// The controller that serves connection `c` now: its subsystem NQN at its address.
const NvmeController* controller_of(const VerifyContext& ctx, const NvmeofConnection& c, CheckResult& r) {
  for (const auto& n : ctx.now.nvme)
    if (n.subsysnqn == c.nqn && n.address.find("traddr=" + c.address + ",") != std::string::npos) return &n;
  checks::fail(r, "no controller",
               "not connected to " + c.address + ":" + std::to_string(c.port) + ": target down, no route over rail " +
                   std::to_string(c.rail) + ", or host NQN not allowed");
  return nullptr;
}

}  // namespace

void verify_nvmeof_connected(const VerifyContext& ctx, const NvmeofConnection& c, CheckResult& r) {
  const NvmeController* found = controller_of(ctx, c, r);
  if (!found) return;
  std::string transport = c.transport == NvmeTransport::rdma ? "rdma" : "tcp";
  std::string obs = found->name + " " + found->state + " over " + found->transport;
  if (found->state == "live" && found->transport == transport) checks::pass(r, obs);
  else checks::fail(r, obs);
}

void verify_nvmeof_namespace(const VerifyContext& ctx, const NvmeofConnection& c, CheckResult& r) {
  const NvmeController* found = controller_of(ctx, c, r);
  if (!found) return;
  // The first namespace's first 4 KiB.
  std::string dev = "/dev/" + found->name + "n1";
  auto ns = ctx.kernel.host.files.read_block(dev, 4096);
  if (ns.ok()) checks::pass(r, dev + ": " + std::to_string(*ns) + " bytes read");
  else checks::fail(r, "unreadable", ns.error() + " (the controller is up but exposes no readable namespace)");
}

}  // namespace railyard
