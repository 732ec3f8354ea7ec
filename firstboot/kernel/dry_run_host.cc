#include "kernel/dry_run_host.h"

namespace railyard {

Outcome<std::string> DryRunFiles::read_file(const std::string& path) {
  if (auto it = written_.find(path); it != written_.end()) return Outcome<std::string>(it->second);
  return real_.read_file(path);
}

Status DryRunFiles::write_file(const std::string& path, const std::string& value) {
  log_.push_back("would write " + path + " = " + value);
  written_[path] = value;
  return success();
}

Status DryRunFiles::make_directory(const std::string& path) {
  log_.push_back("would create directory " + path);
  return success();
}

Status DryRunModules::load_module(const std::string& name) {
  log_.push_back("would load module " + name);
  loaded_.insert(name);
  return success();
}

Status DryRunRdmaLinks::add_rxe(const std::string& name, const std::string& netdev) {
  log_.push_back("would create Soft-RoCE device " + name + " on " + netdev);
  return success();
}

Status DryRunPciConfig::write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) {
  log_.push_back("would write PCI config of " + bdf + " at " + std::to_string(offset) + " = " + std::to_string(value));
  return success();
}

Outcome<std::string> DryRunNvmeFabrics::nvme_fabrics_connect(const std::string& options) {
  log_.push_back("would connect NVMe-oF: " + options);
  return Outcome<std::string>("instance=-1,cntlid=-1 (dry run)");
}

}  // namespace railyard
