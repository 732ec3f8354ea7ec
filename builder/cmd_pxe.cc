// `railyard pxe --image DIR --nodes FILE -o TREE [--base-url URL] [--node-secret FILE]
// [--munge-key FILE] [--group GROUP]`: one image, every node of its SKU, each with its own
// report token when given the receiver's secret. The overlays holding a secret are 0600, or
// 0640 and GROUP's. Exit 0 written, 1 the tree could not be written, 2 bad input (the
// inventory's errors as FILE:LINE:COL, as `railyard check` prints them). With --json, what
// was written is one JSON document on stdout.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "image/image_manifest.h"
#include "audit/rootfs_file.h"
#include "collect/node_token.h"
#include "report/report_source.h"
#include "slurm.h"
#include "io/log.h"
#include "io/secret_file.h"
#include "net.h"
#include "node_inventory.h"
#include "image/openssl_hasher.h"
#include "pxe/pxe_plan.h"
#include "pxe/pxe_tree.h"
#include "recipe_loader.h"
#include "subcommand.h"
#include "text.h"
#include "toml_file.h"

namespace railyard {

namespace {

struct PxeOptions {
  std::string image_dir, nodes, tree, base_url, proxy_subnet, node_secret, munge_key, group;
  std::string ipxe_dir = "/usr/lib/ipxe";
  bool json = false;
};

// The recipe the inventory is checked against: the one it names, when that is the one the
// image was built from, else the copy inside the image.
std::optional<LoadedRecipe> image_recipe(const FileSource& files, const LoadedInventory& inv, const PxeOptions& opt,
                                         const ImageManifest& image, Diagnostics& diags) {
  RecipeOptions ropts;
  ropts.check_references = false;  // the image is built: bundles and overlays were consumed
  auto at = [&](const std::string& key) {
    auto it = inv.positions.find(key);
    return it != inv.positions.end() ? it->second : SourcePos{inv.path, 1, 1};
  };
  if (!inv.inventory.recipe.empty()) {
    std::string path = path_join(dir_name(inv.path), inv.inventory.recipe);
    auto lr = load_recipe(files, path, ropts, diags);
    if (!lr) return std::nullopt;
    std::string sha = OpenSslHasher().sha256_hex(render_recipe_toml(lr->recipe));
    if (sha != image.recipe_sha256) {
      diags.error(at("recipe"), "recipe '" + path + "' (" + lr->recipe.name + ", sha256 " + sha.substr(0, 12) +
                                    ") is not the recipe image " + opt.image_dir + " was built from (" +
                                    image.recipe_name + ", sha256 " + image.recipe_sha256.substr(0, 12) +
                                    "); rebuild the image or point recipe at its recipe");
      return std::nullopt;
    }
    return lr;
  }
  std::vector<std::string> parts;
  for (const auto& p : image.boot_initrds) parts.push_back(path_join(opt.image_dir, p));
  auto text = read_rootfs_file(parts, kImageRecipe);
  if (!text.ok() || !*text) {
    diags.error({inv.path, 1, 1},
                "no recipe to check the inventory against: it names none (recipe = \"…\"), and image " + opt.image_dir +
                    (text.ok() ? " holds no " + std::string(kImageRecipe) : ": " + text.error()));
    return std::nullopt;
  }
  MemorySource inside;
  std::string label = path_join(opt.image_dir, image.boot_initrds.front()) + ":" + kImageRecipe;
  inside.add(label, **text);
  return load_recipe(inside, label, ropts, diags);
}

int run_pxe(const FileSource& files, const PxeOptions& opt) {
  auto image = read_image_manifest(path_join(opt.image_dir, kManifestFile));
  if (!image.ok()) {
    spdlog::error("{}", image.error());
    return kExitBadInput;
  }
  Diagnostics diags;
  auto table = read_toml(files, opt.nodes, diags);
  std::optional<LoadedInventory> inv;
  if (table) inv = load_node_inventory(files, opt.nodes, *table, diags);
  if (inv && inv->inventory.nodes.empty() && inv->complete)
    diags.error({opt.nodes, 1, 1}, "no [[node]] tables: nothing to boot");
  std::optional<LoadedRecipe> recipe;
  if (inv && diags.empty()) recipe = image_recipe(files, *inv, opt, *image, diags);
  if (recipe) validate_inventory(*inv, &recipe->recipe, diags);
  std::string base_url = opt.base_url;
  if (!base_url.empty()) {
    if (auto why = check_http_url(base_url)) diags.error({"--base-url", 0, 0}, "'" + base_url + "': " + *why);
    if (base_url.back() != '/') base_url += '/';
  }
  std::string subnet = opt.proxy_subnet;
  if (subnet.empty() && recipe && !recipe->recipe.management.subnet.empty())
    if (auto net = parse_cidr(recipe->recipe.management.subnet)) subnet = net->network.str();
  if (!subnet.empty() && check_ipv4(subnet))
    diags.error({"--proxy-subnet", 0, 0}, "'" + subnet + "': " + *check_ipv4(subnet));
  if (!opt.group.empty())
    if (auto gid = find_group(opt.group); !gid.ok()) diags.error({"--group", 0, 0}, gid.error());
  // A secret the PXE host's users can read already is no secret; warned at once, since the
  // tree is only as private as its inputs.
  std::vector<std::string> warnings;
  for (const auto& [flag, path] :
       {std::pair{"--node-secret", opt.node_secret}, std::pair{"--munge-key", opt.munge_key}})
    if (auto why = path.empty() ? std::nullopt : readable_by_others(path)) {
      warnings.push_back(std::string(flag) + ": " + *why);
      spdlog::warn("{}", warnings.back());
    }
  std::string secret;
  if (!opt.node_secret.empty()) {
    auto read = read_node_secret(opt.node_secret);
    if (!read.ok()) diags.error({"--node-secret", 0, 0}, read.error());
    else secret = *read;
  }
  std::string munge_key;
  if (!opt.munge_key.empty()) {
    auto read = read_munge_key(opt.munge_key);
    if (!read.ok()) diags.error({"--munge-key", 0, 0}, read.error());
    else munge_key = *read;
  }
  const bool slurm_node = recipe && !recipe->recipe.slurm.controller.empty();
  if (recipe && !opt.munge_key.empty() && !slurm_node)
    diags.error({"--munge-key", 0, 0}, "recipe " + recipe->path +
                                           " sets no join.slurm.controller, so no node of it "
                                           "runs munge for Slurm; leave the cluster's key out of its overlays");
  const std::string token_file = recipe ? recipe->recipe.join.token_file : "";
  if (recipe && !opt.node_secret.empty()) {
    auto pos = recipe->positions.count("join.token_file") ? recipe->positions.at("join.token_file")
                                                          : SourcePos{recipe->path, 1, 1};
    if (token_file.empty())
      diags.error({"--node-secret", 0, 0},
                  "recipe " + recipe->path +
                      " sets no join.token_file, so the nodes would never "
                      "read the tokens; set it (e.g. \"/etc/railyard/report-token\") and rebuild the image");
    else if (auto why = check_token_path(token_file)) diags.error(pos, *why);
  }
  if (!diags.empty() || !recipe) {
    for (const auto& d : diags.sorted()) logging::located(format(d));
    return kExitBadInput;
  }

  auto plan = plan_pxe(*image, inv->inventory.nodes, base_url, subnet);
  if (!plan.ok()) {
    spdlog::error("{}: {}", path_join(opt.image_dir, kManifestFile), plan.error());
    return kExitBadInput;
  }
  if (!secret.empty()) {
    plan->token_file = token_file;
    for (auto& n : plan->nodes) n.token = node_token(secret, n.node.hostname);
  }
  plan->munge_key = munge_key;
  PxeTreeOptions topt{opt.image_dir, opt.tree, opt.ipxe_dir, image->source_date_epoch, opt.group};
  auto written = write_pxe_tree(*plan, *image, topt);
  if (!written.ok()) {
    spdlog::error("{}", written.error());
    return kExitFailed;
  }
  const std::size_t told = warnings.size();
  warnings.insert(warnings.end(), written->notes.begin(), written->notes.end());
  if (secret.empty() && !token_file.empty())
    warnings.push_back("the nodes read their report token from " + token_file +
                       ", and no overlay holds one: pass "
                       "--node-secret (the receiver's), or put the tokens there yourself");
  if (slurm_node && munge_key.empty())
    warnings.push_back(
        "the nodes are Slurm nodes (join.slurm) and no overlay holds the cluster's munge key: pass "
        "--munge-key, or put it at " +
        std::string(kMungeKey) + " yourself");
  if (subnet.empty())
    warnings.push_back("the recipe names no management subnet: set dhcp-range in " + opt.tree + "/" + kPxeDnsmasqFile +
                       " (or pass --proxy-subnet)");
  for (std::size_t i = told; i < warnings.size(); ++i) spdlog::warn("{}", warnings[i]);
  if (opt.json) {
    // {"tree", "recipe", "linked", "copied", "token_file", "tokens", "nodes": [{"hostname",
    // "mac", "script"}], "warnings": []}; token_file null when the recipe reads none.
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& n : plan->nodes)
      nodes.push_back({{"hostname", n.node.hostname}, {"mac", n.node.mac}, {"script", n.script}});
    std::cout << nlohmann::json{{"tree", opt.tree},
                                {"recipe", image->recipe_name},
                                {"linked", written->linked},
                                {"copied", written->copied},
                                {"token_file", token_file.empty() ? nlohmann::json() : nlohmann::json(token_file)},
                                {"tokens", !secret.empty()},
                                {"munge_key", !munge_key.empty()},
                                {"nodes", nodes},
                                {"warnings", warnings}}
                     .dump(2)
              << "\n";
    return kExitOk;
  }
  std::cout << opt.tree << ": image " << image->recipe_name << " for " << plan->nodes.size() << " node(s), "
            << written->linked << " image file(s) linked, " << written->copied << " copied\n";
  for (const auto& n : plan->nodes)
    std::cout << "  " << n.node.mac << "  " << n.node.hostname << "  " << n.script << "\n";
  if (!secret.empty()) std::cout << "  each node's own report token is in its overlay at " << token_file << "\n";
  if (!munge_key.empty()) std::cout << "  the cluster's munge key is in every overlay at " << kMungeKey << "\n";
  if (!secret.empty() || !munge_key.empty())
    std::cout << "  the overlays holding them are "
              << (opt.group.empty() ? "their owner's alone (0600): serve them as that user, or pass --group"
                                    : "readable by group " + opt.group + " (0640)")
              << "\n";
  return kExitOk;
}

const bool pxe_registered = register_subcommand(50, [](CLI::App& app) {
  auto opt = std::make_shared<PxeOptions>();
  auto* sub = app.add_subcommand(
      "pxe", "Lay out a PXE tree for an image and a node inventory: iPXE scripts, node overlays, dnsmasq");
  sub->add_option("--image", opt->image_dir, "Image directory (railyard build's output)")->required();
  sub->add_option("--nodes", opt->nodes, "Node inventory (nodes.toml)")->required();
  sub->add_option("-o,--output", opt->tree, "The tree to write (replaced whole when it is an earlier one)")->required();
  sub->add_option("--base-url", opt->base_url,
                  "URL the tree is served at over HTTP; iPXE then fetches boot.ipxe from it (default: TFTP)");
  sub->add_option("--proxy-subnet", opt->proxy_subnet,
                  "Network address for dnsmasq's proxy DHCP (default: the recipe's management subnet)");
  sub->add_option("--node-secret", opt->node_secret,
                  "The receiver's secret (railyard collect --node-secret): each node's own report token goes into its "
                  "overlay, at the recipe's join.token_file");
  sub->add_option("--munge-key", opt->munge_key,
                  "The cluster's munge key (mungekey(8) makes one): it goes into every node's overlay at "
                  "/etc/munge/munge.key, readable by root only, for a recipe with join.slurm");
  sub->add_option("--group", opt->group,
                  "The group of the TFTP or HTTP server serving the tree: the overlays holding a token or the munge "
                  "key are 0640 and this group's (default: 0600, their owner's only)");
  sub->add_option("--ipxe-dir", opt->ipxe_dir, "Where undionly.kpxe and snponly.efi are copied from (\"\" for nowhere)")
      ->default_str("/usr/lib/ipxe");
  sub->add_flag("--json", opt->json, "What was written as one JSON document on stdout");
  return Subcommand{sub, [opt](const CommandContext& ctx) { return run_pxe(ctx.files, *opt); }};
});

}  // namespace

}  // namespace railyard
