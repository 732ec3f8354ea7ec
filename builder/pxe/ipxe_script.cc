#include "ipxe_script.h"

#include "text.h"

namespace railyard {

namespace {

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

std::string render_boot_script(const PxePlan& plan) {
  std::string out = "#!ipxe\n";
  out += "# railyard PXE tree: image " + plan.recipe_name + " (kernel " + plan.kernel_version + "), " +
         std::to_string(plan.nodes.size()) + " node(s).\n";
  out += "# Each node boots pxe/<MAC of the NIC that booted>.ipxe; paths are relative to this script.\n";
  // imgfetch apart from imgexec: a node script that fails later must not read as an unknown MAC.
  out += "imgfetch --name node pxe/${netX/mac:hexhyp}.ipxe || goto unknown\n";
  out += "imgexec node\n";
  out += "exit 1\n";
  out += ":unknown\n";
  out += "echo railyard: no node with MAC ${netX/mac} in this PXE tree (no pxe/${netX/mac:hexhyp}.ipxe).\n";
  out += "echo railyard: add it to the node inventory and run railyard pxe again.\n";
  out += "prompt --timeout 30000 Press any key for the iPXE shell, or wait for the next boot device && shell ||\n";
  out += "exit 1\n";
  return out;
}

std::string render_node_script(const PxePlan& plan, const PxeNode& node) {
  std::string out = "#!ipxe\n";
  out += "# " + node.node.hostname + " (" + node.node.mac + "): image " + plan.recipe_name + ", kernel " +
         plan.kernel_version + ".\n";
  out += "# Paths are relative to this script (pxe/), over TFTP and HTTP alike.\n";
  std::vector<std::string> args = plan.cmdline;
  args.push_back("systemd.hostname=" + node.node.hostname);
  // EFI kernels find their initrds by name on the command line; BIOS ones ignore it.
  for (const auto& i : plan.initrds) args.push_back("initrd=" + base_name(i));
  args.push_back("initrd=" + base_name(node.overlay));
  out += "kernel ../" + plan.kernel + " " + join(args, " ") + "\n";
  for (const auto& i : plan.initrds) out += "initrd ../" + i + "\n";
  out += "initrd ../" + node.overlay + "\n";
  out += "boot\n";
  return out;
}

}  // namespace railyard
