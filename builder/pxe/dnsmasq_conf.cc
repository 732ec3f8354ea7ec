#include "dnsmasq_conf.h"

namespace railyard {

std::string render_dnsmasq_conf(const PxePlan& plan, const std::string& tree_dir) {
  std::string boot = plan.base_url.empty() ? std::string(kPxeBootScript) : plan.base_url + kPxeBootScript;
  std::string out;
  out += "# railyard PXE tree: image " + plan.recipe_name + ", " + std::to_string(plan.nodes.size()) + " node(s).\n";
  out += "# Include from dnsmasq's configuration (conf-file=" + tree_dir + "/" + kPxeDnsmasqFile + ").\n";
  out += "# Proxy DHCP: the network's DHCP server keeps handing out addresses; dnsmasq adds boot\n";
  out += "# information for PXE clients on this subnet only.\n";
  if (plan.proxy_subnet.empty()) {
    out += "# The recipe names no management subnet: set the PXE subnet's network address here.\n";
    out += "#dhcp-range=NETWORK-ADDRESS,proxy\n";
  } else {
    out += "dhcp-range=" + plan.proxy_subnet + ",proxy\n";
  }
  out += "dhcp-no-override\n";
  out += "enable-tftp\n";
  out += "tftp-root=" + tree_dir + "\n";
  out += "# iPXE announces itself with option 175; firmware PXE does not.\n";
  out += "dhcp-match=set:ipxe,175\n";
  out += "# Firmware PXE, BIOS or UEFI: load iPXE from the tree over TFTP.\n";
  out += std::string("pxe-service=tag:!ipxe,x86PC,\"railyard: iPXE for BIOS\",") + kIpxeBios + "\n";
  out += std::string("pxe-service=tag:!ipxe,X86-64_EFI,\"railyard: iPXE for UEFI\",") + kIpxeUefi + "\n";
  out += std::string("pxe-service=tag:!ipxe,BC_EFI,\"railyard: iPXE for UEFI\",") + kIpxeUefi + "\n";
  out += "# iPXE: boot.ipxe, which chains to pxe/<MAC>.ipxe" +
         std::string(plan.base_url.empty() ? " (TFTP)" : " (HTTP; serve the tree at " + plan.base_url + ")") + ".\n";
  out += "dhcp-boot=tag:ipxe," + boot + "\n";
  return out;
}

}  // namespace railyard
