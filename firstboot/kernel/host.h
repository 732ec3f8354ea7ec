// The rest of the node's kernel surface: files in /proc/sys, /sys and configfs, modules
// (libkmod), Soft-RoCE devices (RDMA netlink), PCI config space and NVMe over Fabrics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

class Host {
 public:
  virtual ~Host() = default;
  virtual Outcome<std::string> read_file(const std::string& path) = 0;  // trailing newline dropped
  virtual Status write_file(const std::string& path, const std::string& value) = 0;
  virtual Status make_directory(const std::string& path) = 0;
  virtual Outcome<std::vector<std::string>> list_directory(const std::string& path) = 0;  // sorted names
  // Reads the first `bytes` of a file or block device; how many were read.
  virtual Outcome<std::size_t> read_block(const std::string& path, std::size_t bytes) = 0;
  virtual bool module_loaded(const std::string& name) = 0;
  virtual Status load_module(const std::string& name) = 0;
  virtual Status add_rxe(const std::string& name, const std::string& netdev) = 0;
  virtual Outcome<std::vector<std::uint8_t>> pci_config(const std::string& bdf) = 0;
  virtual Status write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) = 0;
  // One write of the options to /dev/nvme-fabrics; returns the reply ("instance=N,cntlid=M").
  virtual Outcome<std::string> nvme_fabrics_connect(const std::string& options) = 0;
  // One ICMP echo from the local address `from` to `to`: whether a reply came within
  // `timeout_ms`. Only the tenant network's isolation probe needs it.
  virtual Outcome<bool> echo(const std::string& from, const std::string& to, int timeout_ms) = 0;
};

}  // namespace railyard
