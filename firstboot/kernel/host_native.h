// The real Host: files, libkmod, RDMA netlink, PCI config space, /dev/nvme-fabrics.
#pragma once

#include <string>

#include "kernel/host.h"

namespace railyard {

class NativeHost : public Host {
 public:
  // Files outside /proc, /sys and /dev are written under `root` (the agent's --root).
  explicit NativeHost(std::string root = "/") : root_(std::move(root)) {}
  Outcome<std::string> read_file(const std::string& path) override;
  Status write_file(const std::string& path, const std::string& value) override;
  Status make_directory(const std::string& path) override;
  Outcome<std::vector<std::string>> list_directory(const std::string& path) override;
  Outcome<std::size_t> read_block(const std::string& path, std::size_t bytes) override;
  bool module_loaded(const std::string& name) override;
  Status load_module(const std::string& name) override;
  Status add_rxe(const std::string& name, const std::string& netdev) override;
  Outcome<std::vector<std::uint8_t>> pci_config(const std::string& bdf) override;
  Status write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) override;
  Outcome<std::string> nvme_fabrics_connect(const std::string& options) override;
  Outcome<bool> echo(const std::string& from, const std::string& to, int timeout_ms) override;

 private:
  std::string where(const std::string& path) const;
  std::string root_;
};

}  // namespace railyard
