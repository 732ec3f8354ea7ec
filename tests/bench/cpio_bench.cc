// Times the pack stage's archive writer on a directory tree: the same call `railyard build`
// makes (zstd newc cpio, level 3, one worker per CPU). Used by ci/bench-build.sh to compare
// with `tar --sort=name | zstd -T0 -3` on the same tree.
//   railyard_cpio_bench TREE OUT.cpio.zst
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "image/cpio_writer.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s TREE OUT.cpio.zst\n", argv[0]);
    return 2;
  }
  railyard::CpioOptions o;
  o.source_date_epoch = 0;
  o.device_nodes = {{"dev/console", false, 0600, 5, 1}};
  auto t0 = std::chrono::steady_clock::now();
  auto r = railyard::write_cpio_zstd(argv[1], argv[2], o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.error().c_str());
    return 1;
  }
  std::printf("%.2f s, %zu entries, %llu content bytes, %llu bytes written\n", s, r->entries,
              static_cast<unsigned long long>(r->content_bytes),
              static_cast<unsigned long long>(std::filesystem::file_size(argv[2])));
  return 0;
}
