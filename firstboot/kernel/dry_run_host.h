// The host for --dry-run: reads go to the real host, writes are logged instead of made. One
// class per interface that writes; ICMP echo changes nothing on the node and is the real one.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernel/host.h"

namespace railyard {

class DryRunFiles : public Files {
 public:
  DryRunFiles(Files& real, std::vector<std::string>& log) : real_(real), log_(log) {}
  Outcome<std::string> read_file(const std::string& path) override;
  Status write_file(const std::string& path, const std::string& value) override;
  Status make_directory(const std::string& path) override;
  Outcome<std::vector<std::string>> list_directory(const std::string& path) override {
    return real_.list_directory(path);
  }
  Outcome<std::size_t> read_block(const std::string& path, std::size_t bytes) override {
    return real_.read_block(path, bytes);
  }

 private:
  Files& real_;
  std::vector<std::string>& log_;
  std::map<std::string, std::string> written_;  // what a later read in the same run sees
};

class DryRunModules : public Modules {
 public:
  DryRunModules(Modules& real, std::vector<std::string>& log) : real_(real), log_(log) {}
  bool module_loaded(const std::string& name) override { return loaded_.count(name) || real_.module_loaded(name); }
  Status load_module(const std::string& name) override;

 private:
  Modules& real_;
  std::vector<std::string>& log_;
  std::set<std::string> loaded_;
};

class DryRunRdmaLinks : public RdmaLinks {
 public:
  explicit DryRunRdmaLinks(std::vector<std::string>& log) : log_(log) {}
  Status add_rxe(const std::string& name, const std::string& netdev) override;

 private:
  std::vector<std::string>& log_;
};

class DryRunPciConfig : public PciConfig {
 public:
  DryRunPciConfig(PciConfig& real, std::vector<std::string>& log) : real_(real), log_(log) {}
  Outcome<std::vector<std::uint8_t>> pci_config(const std::string& bdf) override { return real_.pci_config(bdf); }
  Status write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) override;

 private:
  PciConfig& real_;
  std::vector<std::string>& log_;
};

class DryRunNvmeFabrics : public NvmeFabrics {
 public:
  explicit DryRunNvmeFabrics(std::vector<std::string>& log) : log_(log) {}
  Outcome<std::string> nvme_fabrics_connect(const std::string& options) override;

 private:
  std::vector<std::string>& log_;
};

struct DryRunHost {
  DryRunHost(Host real, std::vector<std::string>& log)
      : files(real.files, log),
        modules(real.modules, log),
        rdma_links(log),
        pci(real.pci, log),
        nvme_fabrics(log),
        icmp(real.icmp) {}
  DryRunHost(const DryRunHost&) = delete;
  DryRunHost& operator=(const DryRunHost&) = delete;
  operator Host() { return {files, modules, rdma_links, pci, nvme_fabrics, icmp}; }

  DryRunFiles files;
  DryRunModules modules;
  DryRunRdmaLinks rdma_links;
  DryRunPciConfig pci;
  DryRunNvmeFabrics nvme_fabrics;
  Icmp& icmp;
};

}  // namespace railyard
