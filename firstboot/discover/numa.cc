// NUMA nodes and their CPUs (for the NCCL topology's cpu affinity).
#include "parts.h"
#include "sysfs.h"

namespace railyard::discovery {

std::vector<NumaNode> numa_nodes() {
  std::vector<NumaNode> out;
  const std::string dir = "/sys/devices/system/node";
  for (const auto& name : sysfs::list(dir)) {
    if (name.rfind("node", 0) != 0 || name.size() == 4) continue;
    if (name.find_first_not_of("0123456789", 4) != std::string::npos) continue;
    NumaNode n;
    n.id = std::atoi(name.c_str() + 4);
    n.cpumap = sysfs::read_or(dir + "/" + name + "/cpumap", "");
    n.cpulist = sysfs::read_or(dir + "/" + name + "/cpulist", "");
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace railyard::discovery
