// Test helper: every interface of the host in one object whose files, directories, modules,
// RDMA devices, PCI config spaces and NVMe-oF connections live in memory; errors can be
// injected per path. A FakeHost is a Host (the Kernel's member) where one is wanted.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernel/host.h"

namespace railyard::test {

class FakeHost : public Files, public Modules, public RdmaLinks, public PciConfig, public NvmeFabrics, public Icmp {
 public:
  FakeHost() = default;
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;
  operator Host() { return {*this, *this, *this, *this, *this, *this}; }

  std::map<std::string, std::string> files;
  std::set<std::string> dirs;
  std::set<std::string> modules;            // loaded
  std::set<std::string> available_modules;  // load_module succeeds for these
  std::map<std::string, int> read_errors;   // path → errno
  std::map<std::string, int> write_errors;  // path → errno
  std::vector<std::string> writes;          // "path=value", in order
  // Kernel files exist before they are written (/proc/sys): by default a write to a
  // missing path fails like the kernel's would. Set for ordinary files (/etc/nvme/...).
  bool writes_create = false;
  std::vector<std::pair<std::string, std::string>> rxe_added;  // name, netdev
  std::set<std::string> answering;                             // addresses that answer an ICMP echo
  std::vector<std::string> echoes;                             // "from>to", in order
  std::map<std::string, std::vector<std::uint8_t>> config;     // PCI config spaces
  std::vector<std::string> connects;                           // options written to /dev/nvme-fabrics
  int connect_errno = 0;

  Outcome<std::string> read_file(const std::string& path) override {
    if (auto e = read_errors.find(path); e != read_errors.end())
      return Outcome<std::string>::from_errno(e->second, "read " + path);
    auto it = files.find(path);
    if (it == files.end()) return Outcome<std::string>::from_errno(ENOENT, "read " + path);
    return Outcome<std::string>(it->second);
  }
  Status write_file(const std::string& path, const std::string& value) override {
    if (auto e = write_errors.find(path); e != write_errors.end())
      return Status::from_errno(e->second, "write " + path + " = " + value);
    if (!writes_create && !files.count(path)) return Status::from_errno(ENOENT, "write " + path + " = " + value);
    files[path] = value;
    writes.push_back(path + "=" + value);
    return success();
  }
  Status make_directory(const std::string& path) override {
    dirs.insert(path);
    return success();
  }
  Outcome<std::vector<std::string>> list_directory(const std::string& path) override {
    std::set<std::string> names;
    std::string prefix = path + "/";
    bool found = dirs.count(path) > 0;
    auto collect = [&](const std::string& p) {
      if (p.rfind(prefix, 0) != 0) return;
      found = true;
      names.insert(p.substr(prefix.size(), p.find('/', prefix.size()) - prefix.size()));
    };
    for (const auto& [p, v] : files) collect(p);
    for (const auto& d : dirs) collect(d);
    if (!found) return Outcome<std::vector<std::string>>::from_errno(ENOENT, "list " + path);
    return Outcome<std::vector<std::string>>({names.begin(), names.end()});
  }
  Outcome<std::size_t> read_block(const std::string& path, std::size_t bytes) override {
    auto it = files.find(path);
    if (it == files.end()) return Outcome<std::size_t>::from_errno(ENOENT, "open " + path);
    return Outcome<std::size_t>(std::min(bytes, it->second.size()));
  }
  bool module_loaded(const std::string& name) override { return modules.count(name) > 0; }
  Status load_module(const std::string& name) override {
    if (!available_modules.count(name)) return Status::fail(ENOENT, "modprobe " + name + ": no such module");
    modules.insert(name);
    return success();
  }
  Status add_rxe(const std::string& name, const std::string& netdev) override {
    rxe_added.push_back({name, netdev});
    files["/sys/class/infiniband/" + name + "/parent"] = netdev;
    return success();
  }
  Outcome<std::vector<std::uint8_t>> pci_config(const std::string& bdf) override {
    auto it = config.find(bdf);
    if (it == config.end()) return Outcome<std::vector<std::uint8_t>>::from_errno(ENODEV, bdf);
    return Outcome<std::vector<std::uint8_t>>(it->second);
  }
  Status write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) override {
    auto& c = config.at(bdf);
    c[offset] = static_cast<std::uint8_t>(value & 0xff);
    c[offset + 1] = static_cast<std::uint8_t>(value >> 8);
    return success();
  }
  Outcome<bool> echo(const std::string& from, const std::string& to, int) override {
    echoes.push_back(from + ">" + to);
    return Outcome<bool>(answering.count(to) > 0);
  }

  Outcome<std::string> nvme_fabrics_connect(const std::string& options) override {
    if (connect_errno) return Outcome<std::string>::from_errno(connect_errno, "connect");
    connects.push_back(options);
    return Outcome<std::string>("instance=" + std::to_string(connects.size()) + ",cntlid=1");
  }
};

// Ordinary files appear when written (the NVMe identity); kernel files are set up by each test.
struct OpenHost : FakeHost {
  OpenHost() { writes_create = true; }
};

}  // namespace railyard::test
