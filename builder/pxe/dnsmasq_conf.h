// The dnsmasq snippet of a PXE tree: proxy DHCP beside the network's own DHCP server (it
// hands out no addresses), TFTP from the tree, iPXE chainloaded for BIOS and UEFI firmware,
// then boot.ipxe for iPXE: over HTTP from --base-url when given, else over TFTP.
#pragma once

#include <string>

#include "pxe_plan.h"

namespace railyard {

// `tree_dir` is the absolute path dnsmasq serves over TFTP.
std::string render_dnsmasq_conf(const PxePlan& plan, const std::string& tree_dir);

}  // namespace railyard
