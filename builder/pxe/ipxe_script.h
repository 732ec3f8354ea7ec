// The iPXE scripts of a PXE tree. Every path in them is relative, so that the same tree
// works over TFTP (QEMU's tftp=, dnsmasq) and HTTP (nginx) from any prefix: iPXE resolves
// a relative path against the URL of the script that names it.
#pragma once

#include <string>

#include "pxe_plan.h"

namespace railyard {

// TREE/boot.ipxe: fetches pxe/<MAC of the booting NIC>.ipxe and runs it; for a MAC the
// tree does not know, says so on the console and falls back to the next boot device.
std::string render_boot_script(const PxePlan& plan);

// TREE/pxe/<MAC>.ipxe: the image's kernel with its command line plus the node's host
// name, the image's initrds, then the node's overlay (unpacked last, so its files win).
std::string render_node_script(const PxePlan& plan, const PxeNode& node);

}  // namespace railyard
