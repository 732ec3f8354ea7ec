// `railyard fabric leaf-config --recipe R --nodes INVENTORY -o DIR`: the switch side of the
// fabric from the recipe and inventory the hosts are configured from. One JSON file per leaf
// (docs/leaf-config.schema.json) and index.json, written into a new directory that takes
// DIR's place only when whole. Exit 0 written, 1 could not write, 2 bad input.
// `railyard fabric sweep --reports DIR | --topology FILE`: the pairwise sweep (core/sweep.h,
// docs/sweep.md): its schedule as JSON (--plan), the Slurm job that runs it and the judgement
// of its results (--analyze DIR).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "io/atomic_file.h"
#include "io/log.h"
#include "io/process.h"
#include "frr.h"
#include "leaf_config.h"
#include "node_inventory.h"
#include "report/fleet_sweep.h"
#include "report/report_source.h"
#include "slurm.h"
#include "sweep.h"
#include "subcommand.h"
#include "text.h"
#include "toml_file.h"

namespace railyard {

namespace {

namespace fs = std::filesystem;

constexpr const char* kLeafIndex = "index.json";

struct LeafConfigOptions {
  std::string recipe;
  std::string nodes;
  std::string out;
};

nlohmann::ordered_json index_json(const LeafPlan& plan, const Recipe& r) {
  auto leaves = nlohmann::ordered_json::array();
  for (const auto& l : plan.leaves)
    leaves.push_back({{"leaf", l.name.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(l.name)},
                      {"file", l.file},
                      {"rails", l.rails},
                      {"ports", l.ports.size()}});
  return {{"schema", kLeafConfigSchema}, {"recipe", r.name}, {"leaves", leaves}};
}

Status write_leaves(const LeafPlan& plan, const Recipe& r, const std::string& out, std::vector<std::string>& notes) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_empty(out, ec) && !fs::exists(fs::path(out) / kLeafIndex, ec))
    return Status::fail(out + ": exists and holds no " + kLeafIndex +
                        " of an earlier leaf-config; refusing to replace "
                        "it. Choose another -o, or empty it first");
  fs::path parent = fs::absolute(out, ec).parent_path();
  fs::create_directories(parent, ec);
  std::string tmp = (parent / ("." + fs::path(out).filename().string() + ".XXXXXX")).string();
  if (!::mkdtemp(tmp.data())) return Status::fail(tmp + ": cannot create: " + std::strerror(errno));
  Status s = success();
  for (const auto& l : plan.leaves) {
    if (s.ok()) s = write_file_atomically(tmp + "/" + l.file, to_json(l, r).dump(2) + "\n");
    // Routed rails: the leaf's FRR configuration beside its JSON (the JSON's bgp.config).
    if (std::string frr = frr_leaf_config(l, r); s.ok() && !frr.empty())
      s = write_file_atomically(tmp + "/" + l.file.substr(0, l.file.size() - 5) + ".frr.conf", frr);
  }
  if (s.ok()) s = write_file_atomically(tmp + "/" + kLeafIndex, index_json(plan, r).dump(2) + "\n");
  if (s.ok()) s = replace_directory(tmp, out, notes);
  if (!s.ok()) fs::remove_all(tmp, ec);
  return s;
}

int run_leaf_config(const FileSource& files, const CommonOptions& common, const LeafConfigOptions& o) {
  Diagnostics diags;
  auto lr = load_recipe(files, o.recipe, common.recipe_options(), diags);
  auto table = read_toml(files, o.nodes, diags);
  std::optional<LoadedInventory> inv;
  if (table) inv = load_node_inventory(files, o.nodes, *table, diags);
  if (inv && inv->inventory.nodes.empty() && inv->complete)
    diags.error({o.nodes, 1, 1}, "no [[node]] tables: no leaf port to describe");
  if (inv && lr) validate_inventory(*inv, &lr->recipe, diags);
  if (!diags.empty() || !lr || !inv) {
    for (const auto& d : diags.sorted()) logging::located(format(d));
    return kExitBadInput;
  }
  LeafPlan plan = plan_leaves(lr->recipe, inv->inventory.nodes);
  if (!plan.ok()) {
    for (const auto& p : plan.problems) spdlog::error("{}", p);
    return kExitBadInput;
  }
  std::vector<std::string> notes;
  if (auto s = write_leaves(plan, lr->recipe, o.out, notes); !s.ok()) {
    spdlog::error("{}", s.error());
    return kExitFailed;
  }
  for (const auto& n : notes) spdlog::warn("{}", n);
  for (const auto& l : plan.leaves) {
    std::vector<std::string> rails;
    for (int r : l.rails) rails.push_back(std::to_string(r));
    std::cout << o.out << "/" << l.file << ": " << (l.name.empty() ? "(unnamed leaf)" : l.name) << ", rail "
              << join(rails, ", ") << ", " << l.ports.size() << " port(s)\n";
  }
  if (lr->recipe.lldp.expect_system.empty())
    spdlog::warn("{}: fabric.lldp.expect_system is empty: the leaves are named rail-N and the nodes check no leaf name",
                 o.recipe);
  return kExitOk;
}

struct SweepOptions {
  std::string reports;
  std::string topology;
  std::string nodes;
  std::string partition;
  std::string mode = "full";
  double seconds_per_test = 2;
  std::string out;
  bool plan = false;
  std::string analyze;
  bool drain = false;
  int port = 18516;
  int lead_s = 30;
  std::string worker = "railyard-firstboot";
};

// --drain: the culprits drained in Slurm and the sweep's drains it no longer blames resumed,
// through the scontrol (and SLURM_CONF) of the host it runs on. Fails when scontrol does.
Status apply_sweep_drains(const SweepBlame& blame, bool settled, const std::vector<SweepUnit>& units) {
  ProcessSpec show{{"scontrol", "show", "node", "--oneliner"}};
  show.capture = true;
  show.timeout = std::chrono::seconds(60);
  ProcessResult all = run_process(show);
  if (!all.ok()) return Status::fail("scontrol show node: " + all.how());
  std::vector<SlurmNodeState> states;
  std::vector<std::string> names;
  for (const auto& line : split(all.out, '\n')) {
    if (line.rfind("NodeName=", 0) != 0) continue;
    names.push_back(line.substr(9, line.find(' ') - 9));
    states.push_back(parse_scontrol_node(line));
  }
  for (const auto& c : blame.culprits)
    if (std::find(names.begin(), names.end(), c.node) == names.end())
      spdlog::warn("{} is not a node of this Slurm cluster: not drained", c.node);
  for (const auto& a : sweep_slurm_actions(blame, settled, units, states, names)) {
    ProcessSpec update{a.drain ? scontrol_drain_argv(a.node, a.reason) : scontrol_resume_argv(a.node)};
    update.timeout = std::chrono::seconds(60);
    if (ProcessResult r = run_process(update); !r.ok())
      return Status::fail("scontrol update NodeName=" + a.node + ": " + r.how());
    if (a.drain) spdlog::info("{} drained: {}", a.node, a.reason);
    else spdlog::info("{} resumed: {}", a.node, a.note);
  }
  return success();
}

// --analyze DIR: the blame over DIR/results (and DIR/retests once they ran), into
// DIR/sweep.json and DIR/sweep.prom.
int analyze_sweep(const SweepFleet& fleet, SweepMode mode, const std::string& dir, bool drain) {
  auto first = read_sweep_results(dir + "/results", fleet);
  if (!first.ok()) {
    spdlog::error("{}", first.error());
    return kExitBadInput;
  }
  SweepBlame blame = blame_sweep(fleet.units, *first, fleet.references);
  std::error_code ec;
  const bool settled = blame.retests.empty() || fs::is_directory(dir + "/retests", ec);
  if (!blame.retests.empty() && settled) {
    auto second = read_sweep_results(dir + "/retests", fleet);
    if (!second.ok()) {
      spdlog::error("{}", second.error());
      return kExitBadInput;
    }
    blame = settle_retests(blame, *second);
  }
  Status s = write_file_atomically(dir + "/sweep.json", sweep_json(blame, mode, settled, fleet.places).dump(2) + "\n");
  if (s.ok()) s = write_file_atomically(dir + "/sweep.prom", sweep_prometheus_text(blame, settled));
  if (!s.ok()) {
    spdlog::error("{}", s.error());
    return kExitFailed;
  }
  for (const auto& c : blame.culprits) std::cout << c.node << ": " << sweep_drain_reason(c) << "\n";
  for (const auto& r : blame.pair_faults)
    std::cout << r.test.a << " and " << r.test.b << " on rail " << r.test.rail
              << ": failed together, each passed against references (the path between them)\n";
  if (!settled)
    std::cout << blame.retests.size() << " test(s) failed alone: retest each node against references ("
              << retest_rounds(blame).size() << " round(s) in " << dir << "/sweep.json), results into " << dir
              << "/retests\n";
  if (drain)
    if (Status d = apply_sweep_drains(blame, settled, fleet.units); !d.ok()) {
      spdlog::error("{}", d.error());
      return kExitFailed;
    }
  spdlog::info("{} tests, {} failed; {} culprit(s), {} pair fault(s){}", blame.tests, blame.failed_tests,
               blame.culprits.size(), blame.pair_faults.size(), settled ? "" : ", retests to run");
  return blame.culprits.empty() && blame.pair_faults.empty() && settled ? kExitOk : kExitFailed;
}

// sbatch --wait on the job's script, written into dir as `script`: the job's exit as Slurm
// gave it. sbatch prints the job id (--parsable) as soon as it is queued.
Status run_sweep_job(const SweepJob& job, const std::string& script) {
  if (std::string why = sweep_job_error(job); !why.empty()) return Status::fail(why);
  const std::string path = job.dir + "/" + script;
  if (Status s = write_file_atomically(path, sweep_job_script(job), 0755); !s.ok()) return s;
  std::error_code ec;
  fs::create_directories(job.dir + "/" + job.results, ec);
  if (ec) return Status::fail(job.dir + "/" + job.results + ": " + ec.message());
  spdlog::info("submitting {} ({} node(s), {:.0f} s of fabric time): sbatch --wait", path, job.nodes.size(),
               job.fabric_seconds);
  ProcessSpec sbatch{{"sbatch", "--wait", "--parsable", path}};
  sbatch.capture = true;
  ProcessResult r = run_process(sbatch);
  std::string id = trim(r.out.substr(0, r.out.find(';')));  // "JOB" or "JOB;CLUSTER"
  if (!r.ok())
    return Status::fail("sbatch --wait " + path + ": " + r.how() + " (the job's output: " + job.dir + "/slurm-" +
                        (id.empty() ? std::string("JOB") : id) + ".out)");
  spdlog::info("job {} ended: its output is {}/slurm-{}.out", id, job.dir, id);
  return success();
}

// The nodes of `plan` whose worker wrote no results file into dir/results: the job did not
// run them (or they died); their tests are not judged against their links.
std::vector<std::string> silent_workers(const std::string& results, const std::vector<std::string>& nodes) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& n : nodes)
    if (!fs::exists(results + "/" + n + ".json", ec)) out.push_back(n);
  return out;
}

std::vector<std::string> plan_nodes(const SweepPlan& plan) {
  std::set<std::string> seen;
  for (const auto& r : plan.rounds)
    for (const auto& t : r) {
      seen.insert(t.a);
      seen.insert(t.b);
    }
  std::vector<std::string> out(seen.begin(), seen.end());
  std::sort(out.begin(), out.end(), natural_less);
  return out;
}

// Without --plan: the sweep as Slurm jobs from the submitting host (a login node). The plan
// with each node's rail addresses and the workers' port goes to DIR/plan.json, the job to
// DIR/sweep.sbatch; once it ends, the results are judged. Tests that failed alone are retested
// against references in a second job (DIR/retest-plan.json, DIR/retest.sbatch), then judged
// again, and with --drain the culprits are drained.
int submit_sweep(const SweepFleet& fleet, SweepMode mode, SweepPlan plan, const NodeInventory& inv,
                 const SweepOptions& o) {
  if (!(o.port >= 1 && o.port <= 65535)) {
    spdlog::error("--port {}: allowed: 1 to 65535", o.port);
    return kExitBadInput;
  }
  std::error_code ec;
  const std::string dir = fs::absolute(o.out, ec).lexically_normal().string();
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    spdlog::error("-o {}: holds files already (an earlier sweep's?): a sweep writes into a new or empty directory",
                  o.out);
    return kExitBadInput;
  }
  plan.port = o.port;
  for (const auto& n : inv.nodes) {
    std::vector<std::string> rails;
    for (const auto& a : n.rails) rails.push_back(a.substr(0, a.find('/')));
    plan.addresses.emplace(n.hostname, std::move(rails));
  }
  SweepJob job;
  job.dir = dir;
  job.plan = "plan.json";
  job.results = "results";
  job.partition = o.partition;
  job.nodes = plan_nodes(plan);
  job.fabric_seconds = plan.fabric_seconds();
  job.worker = o.worker;
  job.lead_s = o.lead_s;
  if (std::string why = sweep_job_error(job); !why.empty()) {
    spdlog::error("{}", why);
    return kExitBadInput;
  }
  fs::create_directories(dir, ec);
  auto j = sweep_plan_json(plan);
  if (!fleet.references.empty()) j["references"] = fleet.references;
  if (Status s = write_file_atomically(dir + "/plan.json", j.dump(2) + "\n"); !s.ok() || ec) {
    spdlog::error("{}", s.ok() ? dir + ": " + ec.message() : s.error());
    return kExitFailed;
  }
  if (Status s = run_sweep_job(job, "sweep.sbatch"); !s.ok()) {
    spdlog::error("{}", s.error());
    return kExitFailed;
  }
  if (auto silent = silent_workers(dir + "/results", job.nodes); !silent.empty()) {
    spdlog::error("no results from {}: the job did not run their workers (see {}/slurm-*.out); nothing judged",
                  join(silent, ", "), dir);
    return kExitFailed;
  }
  // The first pass, then the retests of tests that failed alone, as a job of their own.
  auto first = read_sweep_results(dir + "/results", fleet);
  if (!first.ok()) {
    spdlog::error("{}", first.error());
    return kExitFailed;
  }
  SweepBlame blame = blame_sweep(fleet.units, *first, fleet.references);
  if (!blame.retests.empty()) {
    SweepPlan retest = plan;
    retest.rounds = retest_rounds(blame);
    retest.tests = 0;
    for (const auto& r : retest.rounds) retest.tests += r.size();
    SweepJob again = job;
    again.plan = "retest-plan.json";
    again.results = "retests";
    again.nodes = plan_nodes(retest);
    again.fabric_seconds = retest.fabric_seconds();
    spdlog::info("{} test(s) failed alone: retesting each node against references ({} round(s))", blame.retests.size(),
                 retest.rounds.size());
    Status s = write_file_atomically(dir + "/retest-plan.json", sweep_plan_json(retest).dump(2) + "\n");
    if (s.ok()) s = run_sweep_job(again, "retest.sbatch");
    if (!s.ok()) {
      spdlog::error("{}", s.error());
      return kExitFailed;
    }
    if (auto silent = silent_workers(dir + "/retests", again.nodes); !silent.empty()) {
      spdlog::error("no retest results from {} (see {}/slurm-*.out): the first pass stands unsettled",
                    join(silent, ", "), dir);
      fs::remove_all(dir + "/retests", ec);
    }
  }
  return analyze_sweep(fleet, mode, dir, o.drain);
}

int run_sweep(const FileSource& files, const SweepOptions& o) {
  auto mode = parse_sweep_mode(o.mode);
  if (!mode) {
    spdlog::error("--mode {}: allowed: full or quick", o.mode);
    return kExitBadInput;
  }
  if (!(o.seconds_per_test >= 0.1 && o.seconds_per_test <= 600)) {
    spdlog::error("--seconds-per-test {}: allowed: 0.1 to 600 seconds", o.seconds_per_test);
    return kExitBadInput;
  }
  Outcome<SweepFleet> fleet = Outcome<SweepFleet>::fail("");
  if (!o.reports.empty()) {
    fleet = sweep_fleet_from_reports(o.reports);
  } else {
    auto text = read_text_file(o.topology);
    fleet = text.ok() ? sweep_fleet_from_topology(*text, o.topology) : Outcome<SweepFleet>::fail(text.error());
  }
  if (!fleet.ok()) {
    spdlog::error("{}", fleet.error());
    return kExitBadInput;
  }
  std::optional<NodeInventory> inventory;
  if (!o.nodes.empty()) {
    Diagnostics diags;
    auto table = read_toml(files, o.nodes, diags);
    std::optional<LoadedInventory> inv;
    if (table) inv = load_node_inventory(files, o.nodes, *table, diags);
    if (!diags.empty() || !inv) {
      for (const auto& d : diags.sorted()) logging::located(format(d));
      return kExitBadInput;
    }
    keep_inventory_nodes(*fleet, inv->inventory);
    inventory = inv->inventory;
  }
  for (const auto& l : fleet->left_out)
    spdlog::warn("{} not swept: {}{}", l.node, l.why, l.likely_unit.empty() ? "" : " (unit " + l.likely_unit + ")");
  if (!o.analyze.empty()) return analyze_sweep(*fleet, *mode, o.analyze, o.drain);
  if (o.drain && o.plan) {
    spdlog::error("--drain goes with --analyze DIR or a submitted sweep, not --plan");
    return kExitBadInput;
  }
  SweepPlan plan = plan_sweep(fleet->units, *mode, o.seconds_per_test);
  if (plan.nodes < 2) {
    spdlog::error("{} node(s) to sweep: a sweep needs two nodes that passed in one fabric", plan.nodes);
    return kExitBadInput;
  }
  if (!o.plan) {
    if (!inventory || o.out.empty()) {
      spdlog::error(
          "a submitted sweep needs --nodes INVENTORY (each node's rail addresses, the workers' peers) and -o DIR (a "
          "directory every node sees); --plan prints the schedule only");
      return kExitBadInput;
    }
    return submit_sweep(*fleet, *mode, std::move(plan), *inventory, o);
  }
  auto j = sweep_plan_json(plan);
  if (!fleet->references.empty()) j["references"] = fleet->references;
  std::cout << j.dump(2) << "\n";
  spdlog::info("{} nodes in {} unit(s), {} mode: {} rounds, {} tests, {:.0f} s of fabric time", plan.nodes,
               fleet->units.size(), to_string(*mode), plan.rounds.size(), plan.tests, plan.fabric_seconds());
  return kExitOk;
}

const bool fabric_registered = register_subcommand(55, [](CLI::App& app) {
  auto opt = std::make_shared<LeafConfigOptions>();
  auto sw = std::make_shared<SweepOptions>();
  auto* sub = app.add_subcommand("fabric", "The switch side of the fabric, from the recipe and inventory");
  sub->require_subcommand(1);
  auto* leaf = sub->add_subcommand("leaf-config",
                                   "Per leaf switch: PFC and its watchdog, ECN, DSCP map, CNP priority, VLANs, MTU and "
                                   "each port's expected neighbour, as JSON");
  leaf->add_option("--recipe", opt->recipe, "The SKU's recipe")->required();
  leaf->add_option("--nodes", opt->nodes, "The node inventory (who is cabled to which port)")->required();
  leaf->add_option("-o,--out", opt->out, "Output directory: one JSON file per leaf and index.json")->required();
  auto* sweep = sub->add_subcommand(
      "sweep", "Every node against other nodes on every rail, as one Slurm job; --plan prints the schedule as JSON");
  auto* from_reports = sweep->add_option("--reports", sw->reports,
                                         "Directory of reports: the units as railyard report topology reads them");
  auto* from_topology =
      sweep->add_option("--topology", sw->topology, "The units from railyard report topology --format json's file");
  from_reports->excludes(from_topology);
  sweep->add_option("--nodes", sw->nodes, "The node inventory: only its nodes are swept; its references retest");
  sweep->add_option("--partition", sw->partition, "The Slurm partition the job runs in");
  sweep->add_option("--mode", sw->mode, "full (every pair in each unit, two peers outside) or quick (ring)")
      ->capture_default_str();
  sweep->add_option("--seconds-per-test", sw->seconds_per_test, "Each test's time, each way")->capture_default_str();
  sweep->add_option("-o,--out", sw->out,
                    "A new directory every node sees (a shared filesystem): the job's plan, script and results");
  sweep->add_option("--port", sw->port, "The TCP port of the workers' responders")->capture_default_str();
  sweep->add_option("--lead", sw->lead_s, "Seconds from the job's start to the sweep's, for srun to start every worker")
      ->capture_default_str();
  sweep->add_option("--worker", sw->worker, "The agent on the nodes, as their PATH finds it")->capture_default_str();
  sweep->add_flag("--plan", sw->plan, "Print the schedule as JSON and submit nothing");
  sweep->add_option("--analyze", sw->analyze,
                    "The blame over DIR/results (and DIR/retests): DIR/sweep.json and DIR/sweep.prom");
  sweep->add_flag("--drain", sw->drain,
                  "Drain the culprits in Slurm (scontrol) and resume the sweep's drains it clears, once judged");
  return Subcommand{sub, [opt, sw, sweep](const CommandContext& ctx) {
                      if (*sweep) {
                        if (sw->reports.empty() && sw->topology.empty()) {
                          spdlog::error("--reports DIR or --topology FILE is required");
                          return kExitBadInput;
                        }
                        return run_sweep(ctx.files, *sw);
                      }
                      return run_leaf_config(ctx.files, ctx.common, *opt);
                    }};
});

}  // namespace

}  // namespace railyard
