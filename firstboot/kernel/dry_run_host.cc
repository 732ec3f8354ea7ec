#include "kernel/dry_run_host.h"

namespace railyard {

Expected<std::string> DryRunHost::read_file(const std::string& path) {
  if (auto it = written_.find(path); it != written_.end()) return Expected<std::string>::of(it->second);
  return real_.read_file(path);
}

Status DryRunHost::write_file(const std::string& path, const std::string& value) {
  log_.push_back("would write " + path + " = " + value);
  written_[path] = value;
  return Status::success();
}

Status DryRunHost::make_directory(const std::string& path) {
  log_.push_back("would create directory " + path);
  return Status::success();
}

Status DryRunHost::load_module(const std::string& name) {
  log_.push_back("would load module " + name);
  loaded_.insert(name);
  return Status::success();
}

Status DryRunHost::add_rxe(const std::string& name, const std::string& netdev) {
  log_.push_back("would create Soft-RoCE device " + name + " on " + netdev);
  return Status::success();
}

Status DryRunHost::write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) {
  log_.push_back("would write PCI config of " + bdf + " at " + std::to_string(offset) + " = " + std::to_string(value));
  return Status::success();
}

Expected<std::string> DryRunHost::nvme_fabrics_connect(const std::string& options) {
  log_.push_back("would connect NVMe-oF: " + options);
  return Expected<std::string>::of("instance=-1,cntlid=-1 (dry run)");
}

}  // namespace railyard
