// Host for --dry-run: reads go to the real host, writes are logged instead of made.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernel/host.h"

namespace railyard {

class DryRunHost : public Host {
 public:
  DryRunHost(Host& real, std::vector<std::string>& log) : real_(real), log_(log) {}
  Outcome<std::string> read_file(const std::string& path) override;
  Status write_file(const std::string& path, const std::string& value) override;
  Status make_directory(const std::string& path) override;
  Outcome<std::vector<std::string>> list_directory(const std::string& path) override {
    return real_.list_directory(path);
  }
  Outcome<std::size_t> read_block(const std::string& path, std::size_t bytes) override {
    return real_.read_block(path, bytes);
  }
  bool module_loaded(const std::string& name) override { return loaded_.count(name) || real_.module_loaded(name); }
  Status load_module(const std::string& name) override;
  Status add_rxe(const std::string& name, const std::string& netdev) override;
  Outcome<std::vector<std::uint8_t>> pci_config(const std::string& bdf) override { return real_.pci_config(bdf); }
  Status write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) override;
  Outcome<std::string> nvme_fabrics_connect(const std::string& options) override;
  // One echo changes nothing on the node: the real host sends it.
  Outcome<bool> echo(const std::string& from, const std::string& to, int timeout_ms) override {
    return real_.echo(from, to, timeout_ms);
  }

 private:
  Host& real_;
  std::vector<std::string>& log_;
  std::set<std::string> loaded_;
  std::map<std::string, std::string> written_;  // what a later read in the same run sees
};

}  // namespace railyard
