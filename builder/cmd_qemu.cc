// `railyard qemu IMAGE_DIR`: try a built image before touching hardware. Boots it in a
// q35 VM shaped like a two-socket server with N virtio rail NICs (Soft-RoCE under the
// agent), optionally beside a storage target VM, and exits 0 when the node joined, 1 when
// its self-test failed, 2 on a harness error. builder/qemu/ does the work; docs/qemu.md.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "io/log.h"
#include "frr.h"
#include "qemu/lab_faults.h"
#include "qemu/lab_run.h"
#include "qemu/lab_slurm.h"
#include "pxe/pxe_tree.h"
#include "net.h"
#include "node_inventory.h"
#include "qemu/pcie_layout.h"
#include "qemu/relay.h"
#include "subcommand.h"
#include "toml_file.h"

namespace railyard {

namespace {

struct QemuArgs {
  LabOptions lab;
  std::vector<std::string> faults;
  std::vector<int> links_down;
  std::string nodes;
  std::vector<std::string> node_names;
  std::string target_name;
  std::string relay;
  std::string relay_outage;  // the state file of --fault controller-outage
  int relay_outage_s = 0;
  std::string munge_key_file;
};

// The named node of an inventory, errors printed.
std::optional<NodeEntry> inventory_node(const FileSource& files, const std::string& path, const std::string& name,
                                        const std::string& option) {
  Diagnostics diags;
  auto table = read_toml(files, path, diags);
  std::optional<LoadedInventory> inv;
  if (table) inv = load_node_inventory(files, path, *table, diags);
  if (!diags.empty()) {
    for (const auto& d : diags.sorted()) logging::located(format(d));
    return std::nullopt;
  }
  std::string names;
  for (const auto& n : inv->inventory.nodes) {
    if (n.hostname == name) return n;
    names += (names.empty() ? "" : ", ") + n.hostname;
  }
  spdlog::error("{} {}: {} has no such node; it has: {}", option, name, path, (names.empty() ? "none" : names));
  return std::nullopt;
}

int run_qemu(const FileSource& files, QemuArgs& a) {
  if (!a.relay.empty()) {
    // Refused: exiting closes the guest's connection before anything reached the service.
    if (!a.relay_outage.empty() && relay_in_outage(a.relay_outage, a.relay_outage_s)) return 1;
    return relay(a.relay, 0, 1);
  }
  LabOptions& o = a.lab;
  auto bad = [](const std::string& why) {
    spdlog::error("{}", why);
    return kExitBadInput;
  };
  if (o.image_dir.empty()) return bad("IMAGE_DIR is required (the output directory of railyard build)");
  if (o.rails < 1 || o.rails > kMaxRails)
    return bad("--rails " + std::to_string(o.rails) + ": allowed 1–" + std::to_string(kMaxRails));
  for (int r : a.links_down) a.faults.push_back("link-down=" + std::to_string(r));  // --link-down R, as it was
  for (const auto& f : a.faults)
    if (auto s = add_lab_fault(f, o.rails, o.faults); !s.ok()) return bad(s.error());
  if (o.faults.any_leaf() && !o.storage_target)
    return bad(
        "--fault swap-rails, leaf-pfc, no-lldp, leaf-bgp-down, leaf-refuse-asn and tenant-leak change the lab "
        "leaf, which is the storage target VM: add "
        "--storage-target");
  if (!a.node_names.empty() || !a.target_name.empty()) {
    if (a.nodes.empty()) return bad("--node and --target-node name nodes of an inventory: give it with --nodes FILE");
  }
  if (!a.nodes.empty() && a.node_names.empty())
    return bad("--nodes " + a.nodes + ": say which node to boot with --node NAME");
  // The image's recipe: what the lab leaf is configured from, and the addresses a VM
  // without an inventory is given.
  auto recipe = read_image_recipe(o.image_dir);
  if (recipe.ok()) o.recipe = *recipe;
  else if (o.storage_target) return bad(recipe.error());
  if (!a.nodes.empty()) {
    o.nodes.clear();
    for (const auto& name : a.node_names) {
      for (const auto& other : o.nodes)
        if (other.hostname == name) return bad("--node " + name + ": named twice");
      auto n = inventory_node(files, a.nodes, name, "--node");
      if (!n) return kExitBadInput;
      o.nodes.push_back({n->hostname, n->mac, n, {}});
    }
  } else if (o.recipe) {
    o.nodes.front().node =
        implied_identity(*o.recipe, o.nodes.front().hostname, o.nodes.front().management_mac, LabRole::node);
  }
  if (o.nodes.size() > 1) {
    // Several nodes share the lab leaf, a port per node and rail.
    const int most = kMaxRails / o.rails;
    if (!o.storage_target)
      return bad("several --node share the lab leaf, which is the storage target VM: add --storage-target");
    if (static_cast<int>(o.nodes.size()) > most)
      return bad("--node given " + std::to_string(o.nodes.size()) + " times: the lab leaf has " +
                 std::to_string(kMaxRails) + " ports, room for " + std::to_string(most) + " nodes of " +
                 std::to_string(o.rails) + " rails");
    if (o.recipe && o.recipe->routing.mode == RoutingMode::bgp_unnumbered)
      return bad("several --node: the lab's routed leaves (routing.mode = \"bgp-unnumbered\") cable one node");
    if (!o.slurm_out.empty() || !o.console_log.empty())
      return bad(std::string(o.slurm_out.empty() ? "--console-log" : "--slurm-out") +
                 " copies one node's file; with several --node, each node's is kept in the run directory (--run-dir)");
  }
  std::vector<std::pair<std::string, std::string>> named;  // fault, the node it names
  for (const auto& f : o.faults.shaped) named.push_back({f.loss_pct > 0 ? "rail-loss" : "rail-slow", f.node});
  if (!o.faults.swapped_node.empty()) named.push_back({"swap-rails", o.faults.swapped_node});
  for (const auto& [fault, node] : named)
    if (std::none_of(o.nodes.begin(), o.nodes.end(), [&](const LabIdentity& n) { return n.hostname == node; })) {
      std::string names;
      for (const auto& n : o.nodes) names += (names.empty() ? "" : ", ") + n.hostname;
      return bad("--fault " + fault + " names " + node + ", which is not a node of this run (" + names + ")");
    }
  // The lab's Slurm cluster (builder/qemu/lab_slurm.h).
  bool slurm = o.recipe && !o.recipe->slurm.controller.empty();
  if (o.slurm_topology && o.collector.empty())
    return bad("--slurm-topology: the controller fetches topology.conf from the collector: add --collector");
  if (!o.slurm_out.empty() || !o.slurm_drained.empty() || o.slurm_topology) {
    const char* option = !o.slurm_out.empty()       ? "--slurm-out"
                         : !o.slurm_drained.empty() ? "--slurm-drained"
                                                    : "--slurm-topology";
    if (!slurm)
      return bad(std::string(option) + ": the image's recipe joins no Slurm cluster (no join.slurm.controller)");
    if (!o.storage_target)
      return bad(std::string(option) +
                 ": the lab's Slurm controller runs on the storage target VM: add --storage-target");
    if (auto c = lab_slurm_controller(o.recipe->slurm); !c.ok()) return bad(std::string(option) + ": " + c.error());
  }
  if (!o.slurm_drained.empty())
    if (std::string why = lab_drain_reason_error(o.slurm_drained); !why.empty())
      return bad("--slurm-drained '" + o.slurm_drained + "': " + why);
  if (!a.munge_key_file.empty()) {
    if (!slurm) return bad("--munge-key: the image's recipe joins no Slurm cluster (no join.slurm.controller)");
    auto key = read_munge_key(a.munge_key_file);
    if (!key.ok()) return bad("--munge-key " + key.error());
    o.munge_key = *key;
  } else if (slurm && o.storage_target && !o.pxe_tree.empty()) {
    return bad(
        "--pxe: the node's munge key comes from the tree's overlay; give the controller the same one with "
        "--munge-key (the file given to railyard pxe --munge-key)");
  }
  if (o.target_delay_s > 0 && !o.storage_target) return bad("--target-delay needs --storage-target");
  if (o.faults.controller_outage_s && !(slurm && o.storage_target))
    return bad(
        "--fault controller-outage: the lab's Slurm controller runs on the storage target VM, for an image "
        "whose recipe joins a Slurm cluster (join.slurm.controller): " +
        std::string(slurm ? "add --storage-target" : "this one joins none"));
  if (!a.target_name.empty()) {
    if (!o.storage_target) return bad("--target-node needs --storage-target");
    auto t = inventory_node(files, a.nodes, a.target_name, "--target-node");
    if (!t) return kExitBadInput;
    o.target = {t->hostname, t->mac, t, {}};
  } else if (o.recipe && o.storage_target) {
    o.target.node = implied_identity(*o.recipe, o.target.hostname, o.target.management_mac, LabRole::storage_target);
  }
  const bool routed = o.recipe && o.recipe->routing.mode == RoutingMode::bgp_unnumbered;
  if (o.faults.any_leaf() && o.recipe)
    if (Status s = check_lab_faults(o.faults, *o.recipe); !s.ok()) return bad(s.error());
  if (routed && o.storage_target) {
    // The lab leaf routes: it peers with both VMs, so both need what an inventory gives a
    // routed node (its rail addresses, its AS; its VTEP with a tenant network).
    for (const auto* id : {&o.nodes.front(), &o.target}) {
      const char* option = id == &o.target ? "--target-node" : "--node";
      if (!id->node || id->node->rails.empty() || node_asn(*id->node, *o.recipe) == 0)
        return bad(std::string("routed rails (routing.mode = \"bgp-unnumbered\"): the lab leaf peers with both VMs; "
                               "give each its inventory entry, with rail addresses and an AS (--nodes FILE ") +
                   option + " NAME)");
      if (o.recipe->tenant.vni != 0 && id->node->vtep.empty())
        return bad(std::string(option) + " " + id->hostname +
                   ": the recipe's [tenant] needs the node's vtep in the inventory");
    }
  }
  for (const auto& n : o.nodes)
    if (o.storage_target && n.hostname == o.target.hostname)
      return bad("--target-node " + n.hostname + " is also booted as a --node: one VM cannot be both");
  for (std::size_t i = 0; i < o.nodes.size(); ++i)
    for (std::size_t j = i + 1; j <= o.nodes.size(); ++j) {
      const LabIdentity& other = j == o.nodes.size() ? o.target : o.nodes[j];
      if (normalize_mac(o.nodes[i].management_mac) == normalize_mac(other.management_mac))
        return bad(o.nodes[i].hostname + " and " + other.hostname + " would share the MAC " +
                   o.nodes[i].management_mac);
    }
  if (!o.collector.empty()) {
    auto colon = o.collector.rfind(':');
    if (colon == std::string::npos || !parse_ipv4(o.collector.substr(0, colon)) ||
        std::atoi(o.collector.c_str() + colon + 1) <= 0)
      return bad("--collector " + o.collector + ": expected IPV4:PORT of a railyard collect (e.g. 127.0.0.1:8080)");
  }
  if (!o.pxe_tree.empty() && !std::filesystem::is_regular_file(std::filesystem::path(o.pxe_tree) / "boot.ipxe"))
    return bad("--pxe " + o.pxe_tree + ": no boot.ipxe there (make the tree with railyard pxe)");
  if (o.kvm) {
    int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0) return bad("--kvm: /dev/kvm cannot be opened; run without --kvm (TCG)");
    ::close(fd);
  }
  o.relay_program = self_executable();
  if (o.relay_program.empty()) o.relay_program = "railyard";
  return run_lab(o);
}

const bool qemu_registered = register_subcommand(80, [](CLI::App& app) {
  auto a = std::make_shared<QemuArgs>();
  a->lab.nodes = {{"railyard-lab", "52:54:00:00:00:01", std::nullopt, {}}};
  a->lab.target = {"railyard-target", "52:54:00:00:00:fe", std::nullopt, {}};
  auto* sub = app.add_subcommand(
      "qemu", "Boot a built image in a VM with emulated rail NICs (Soft-RoCE) and judge its first boot");
  sub->add_option("image", a->lab.image_dir, "IMAGE_DIR: the output directory of railyard build");
  sub->add_option("--rails", a->lab.rails, "Rail NICs of the VM (1–8)")->default_val(4);
  sub->add_flag("--storage-target", a->lab.storage_target,
                "Boot a second VM from the image as the recipe's NVMe-oF target, on the rails' switch");
  sub->add_option("--target-delay", a->lab.target_delay_s,
                  "Bring the storage target's NVMe-oF targets up SECONDS after the node powers on, as a late "
                  "storage server would (its VM, also the rails' leaf, boots with the node; the node's agent "
                  "retries for selftest.storage_wait_s)")
      ->check(CLI::Range(0, 3600));
  sub->add_option("--nodes", a->nodes, "Node inventory the VMs' identities come from");
  sub->add_option("--node", a->node_names,
                  "The inventory's node to boot (its MAC, host name and rail addresses); repeated, several nodes on "
                  "the same leaves (with --storage-target)")
      ->allow_extra_args(false);
  sub->add_option("--target-node", a->target_name, "The inventory's node the storage target is");
  sub->add_option("--fault", a->faults, "A fault to inject, NAME[=ARG] (repeatable): " + lab_fault_help())
      ->allow_extra_args(false);
  sub->add_option("--link-down", a->links_down,
                  "Rail whose NIC has no link from power-on (repeatable; --fault link-down=R)")
      ->allow_extra_args(false);
  sub->add_option("--collector", a->lab.collector,
                  std::string("IPV4:PORT of a railyard collect; the guest reaches it as ") + kLabCollectorGuestAddress);
  sub->add_option("--pxe", a->lab.pxe_tree,
                  "Network boot the node with QEMU's iPXE ROM from this railyard pxe tree (TFTP)");
  sub->add_option("--append", a->lab.append,
                  "More kernel command line words for the VMs (railyard.qemu.rerun=1, railyard.qemu.verify=1, "
                  "railyard.qemu.bench=1)")
      ->allow_extra_args(false);
  sub->add_option("--report-out", a->lab.report_out,
                  "Where to copy the node's report; with several --node, a directory getting HOST.json per node");
  sub->add_option("--slurm-out", a->lab.slurm_out,
                  "With a Slurm recipe and --storage-target: where to write the lab controller's `scontrol show node "
                  "NODE --oneliner` once the node's agent is done");
  sub->add_option(
      "--slurm-drained", a->lab.slurm_drained,
      "The lab controller starts with the node drained for REASON, as a previous boot or an operator left it");
  sub->add_flag("--slurm-topology", a->lab.slurm_topology,
                "With a Slurm recipe, --storage-target and --collector: the lab controller runs topology/tree, its "
                "topology.conf kept as the collector's GET /api/v1/topology serves it (docs/topology.md)");
  sub->add_option("--munge-key", a->munge_key_file,
                  "The lab Slurm cluster's munge key (32–1024 bytes); a fresh one per run otherwise. With --pxe: the "
                  "key given to railyard pxe --munge-key");
  sub->add_option("--console-log", a->lab.console_log, "Where to copy the node's serial console");
  sub->add_option("--run-dir", a->lab.run_dir,
                  "Keep the run's files (consoles, exported files, QEMU command lines) here");
  sub->add_option("--timeout", a->lab.timeout_s, "Seconds for the whole run")
      ->default_val(1200)
      ->check(CLI::PositiveNumber);
  sub->add_option("--memory", a->lab.memory_mib, "MiB of memory per VM, split over its two NUMA nodes")
      ->default_val(2048);
  sub->add_option("--cpus", a->lab.cpus, "vCPUs per VM, split over its two NUMA nodes")->default_val(2);
  sub->add_flag("--kvm", a->lab.kvm, "Use KVM (needs a usable /dev/kvm); TCG emulation otherwise");
  sub->add_option("--qemu", a->lab.qemu, "The QEMU binary")->default_val("qemu-system-x86_64");
  // QEMU runs `railyard qemu --relay ADDR` for each connection the guest makes to the collector.
  sub->add_option("--relay", a->relay)->group("");
  sub->add_option("--relay-outage", a->relay_outage)->group("");
  sub->add_option("--relay-outage-s", a->relay_outage_s)->group("");
  return Subcommand{sub, [a](const CommandContext& ctx) { return run_qemu(ctx.files, *a); }};
});

}  // namespace

}  // namespace railyard
