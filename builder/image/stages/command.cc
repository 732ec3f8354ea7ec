#include "command.h"

#include <chrono>
#include <cstdio>
#include <fstream>

namespace railyard {

namespace {

std::string tail_of(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "\n    " + all[i];
  return out;
}

void append_to(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::app) << text; }

}  // namespace

Outcome<std::string> ProcessRunner::execute(const Command& cmd, bool capture_stdout) {
  if (cmd.argv.empty()) return Outcome<std::string>::fail("empty command");
  ProcessSpec spec{.argv = cmd.argv, .log_path = log_path_, .capture = capture_stdout};
  for (const auto& [k, v] : cmd.env) spec.env.push_back(k + "=" + v);
  append_to(log_path_, "\n$ " + shell_quote(cmd.argv) + "\n");
  const auto started = std::chrono::steady_clock::now();
  ProcessResult r = run_process(spec);
  if (r.status == 127 && !r.error.empty()) append_to(log_path_, r.error + "\n");
  // How long it took, under its output: where a slow build spends its time.
  char took[64];
  std::snprintf(took, sizeof took, "# took %.2f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  append_to(log_path_, took);
  if (r.ok()) return std::move(r.out);
  return Outcome<std::string>::fail((cmd.what.empty() ? cmd.argv[0] : cmd.what) + " failed (" + r.how() +
                                    "): " + shell_quote(cmd.argv) + "\n  last lines of " + log_path_ + ":" +
                                    tail_of(log_path_, 15));
}

Status ProcessRunner::run(const Command& cmd) {
  auto r = execute(cmd, false);
  if (!r.ok()) return Status::fail(r.error());
  return success();
}

Outcome<std::string> ProcessRunner::capture(const Command& cmd) { return execute(cmd, true); }

Command in_image(const std::string& root, std::vector<std::string> argv, std::string what) {
  // $0 is the root, "$@" the command; `set -e` stops at the first failed mount.
  static const char* script =
      "set -e; r=$0; "
      "mount -t proc proc \"$r/proc\"; "
      "mount -t sysfs -o ro sysfs \"$r/sys\"; "
      "mount --rbind /dev \"$r/dev\"; mount --make-rslave \"$r/dev\"; "
      "exec chroot \"$r\" \"$@\"";
  Command c;
  c.argv = {"unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, root};
  for (auto& a : argv) c.argv.push_back(std::move(a));
  c.env = {{"DEBIAN_FRONTEND", "noninteractive"}, {"LC_ALL", "C.UTF-8"}, {"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}};
  c.what = std::move(what);
  return c;
}

}  // namespace railyard
