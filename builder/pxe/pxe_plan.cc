#include "pxe_plan.h"
#include "slurm.h"

#include <nlohmann/json.hpp>

#include "text.h"

namespace railyard {

std::string mac_hyphens(const std::string& mac) {
  std::string out = mac;
  for (auto& c : out)
    if (c == ':') c = '-';
  return out;
}

namespace {

// iPXE expands ${…}, reads quotes and backslashes, and splits on white space.
std::optional<std::string> ipxe_unsafe(const std::string& arg) {
  for (unsigned char c : arg)
    if (c <= ' ' || c == 0x7f || c == '$' || c == '"' || c == '\'' || c == '\\')
      return "'" + arg + "' holds a character an iPXE script would expand, quote or split on";
  return std::nullopt;
}

std::string in_image(const std::string& artifact) { return std::string(kPxeImageDir) + "/" + artifact; }

}  // namespace

Outcome<PxePlan> plan_pxe(const ImageManifest& image, const std::vector<NodeEntry>& nodes, const std::string& base_url,
                          const std::string& proxy_subnet) {
  PxePlan p;
  p.recipe_name = image.recipe_name;
  p.kernel_version = image.kernel_version;
  p.kernel = in_image(image.boot_kernel);
  for (const auto& i : image.boot_initrds) p.initrds.push_back(in_image(i));
  for (std::size_t i = 0; i < image.cmdline.size(); ++i)
    if (auto why = ipxe_unsafe(image.cmdline[i]))
      return Outcome<PxePlan>::fail("kernel.cmdline[" + std::to_string(i) + "]: " + *why);
  p.cmdline = image.cmdline;
  p.base_url = base_url;
  p.proxy_subnet = proxy_subnet;
  for (const auto& n : nodes) {
    std::string hy = mac_hyphens(n.mac);
    p.nodes.push_back({n, hy, std::string(kPxeScriptsDir) + "/" + hy + ".ipxe",
                       std::string(kPxeNodesDir) + "/node-" + n.hostname + ".cpio.zst", ""});
  }
  return p;
}

std::optional<std::string> check_token_path(const std::string& token_file) {
  std::string allowed = "join.token_file must be an absolute path to a file, not one of the overlay's own files";
  if (token_file.empty() || token_file.front() != '/' || token_file.back() == '/')
    return allowed + ": '" + token_file + "'";
  for (const auto& part : split(token_file.substr(1), '/'))
    if (part.empty() || part == "." || part == "..")
      return "join.token_file '" + token_file +
             "' has an empty, '.' or '..' component; write it plainly, like /etc/railyard/token";
  for (const char* own : {"/etc/railyard/node.toml", "/etc/hostname"})
    if (token_file == own) return allowed + ": '" + token_file + "' is where the overlay puts the node's identity";
  if (token_file == kMungeKey)
    return allowed + ": '" + token_file + "' is where the overlay puts the cluster's munge key";
  return std::nullopt;
}

std::string render_node_identity(const NodeEntry& node) {
  // Host names, MACs and addresses are validated before this: no quoting needed.
  std::string out = "# This node's identity, from the node inventory (railyard pxe).\n";
  out += "hostname = \"" + node.hostname + "\"\n";
  out += "mac = \"" + node.mac + "\"\n";
  std::vector<std::string> quoted;
  for (const auto& r : node.rails) quoted.push_back("\"" + r + "\"");
  out += "rails = [" + join(quoted, ", ") + "]\n";
  // check_lldp_template allows no quote, backslash or control character: nothing to escape.
  for (const auto& [key, value] : {std::pair{"lldp_system", node.lldp_system}, std::pair{"lldp_port", node.lldp_port}})
    if (!value.empty()) out += std::string(key) + " = \"" + value + "\"\n";
  if (node.asn != 0) out += "asn = " + std::to_string(node.asn) + "\n";
  // Validated addresses: nothing to quote.
  if (!node.vtep.empty()) out += "vtep = \"" + node.vtep + "\"\n";
  if (!node.tenant_address.empty()) out += "tenant_address = \"" + node.tenant_address + "\"\n";
  if (node.reference) out += "reference = true\n";
  if (!node.probe_peers.empty()) {
    quoted.clear();
    for (const auto& p : node.probe_peers) quoted.push_back("\"" + p + "\"");
    out += "probe_peers = [" + join(quoted, ", ") + "]\n";
  }
  return out;
}

std::string render_tree_index(const PxePlan& plan, const ImageManifest& image) {
  nlohmann::ordered_json j;
  j["schema"] = 1;
  j["image"] = {
      {"recipe", image.recipe_name}, {"recipe_sha256", image.recipe_sha256}, {"kernel", image.kernel_version}};
  j["base_url"] = plan.base_url.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(plan.base_url);
  // Where the tokens are, never what they are: the index is served with the tree.
  j["token_file"] = plan.token_file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(plan.token_file);
  j["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : plan.nodes)
    j["nodes"].push_back({{"hostname", n.node.hostname},
                          {"mac", n.node.mac},
                          {"script", n.script},
                          {"overlay", n.overlay},
                          {"token", !n.token.empty()}});
  return j.dump(2) + "\n";
}

}  // namespace railyard
