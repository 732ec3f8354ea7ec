// GPUs: PCI display-class functions of a known GPU vendor.
#include "parts.h"
#include "sysfs.h"

namespace railyard::discovery {

namespace {

// Vendors whose display/3D-class functions are compute GPUs. Open to more.
const char* const kGpuVendors[] = {"0x10de" /* NVIDIA */, "0x1002" /* AMD */};

// Reads two attributes, not the dozen of a full PCI function: most functions are not GPUs.
bool is_gpu(const std::string& syspath) {
  auto cls = sysfs::read(syspath + "/class");
  if (!cls || cls->rfind("0x03", 0) != 0) return false;  // display controller: VGA 0x0300, 3D 0x0302, other 0x0380
  auto vendor = sysfs::read(syspath + "/vendor");
  for (const char* v : kGpuVendors)
    if (vendor == v) return true;
  return false;
}

}  // namespace

std::vector<Gpu> gpus(const std::vector<std::string>& pci_syspaths) {
  std::vector<Gpu> out;
  for (const auto& path : pci_syspaths) {
    if (!is_gpu(path)) continue;
    if (auto p = read_pci_function(path)) out.push_back({std::move(*p)});
  }
  return out;
}

}  // namespace railyard::discovery
