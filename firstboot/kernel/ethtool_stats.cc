// NativeEthtool's statistics: ETHTOOL_GSSET_INFO for the count, ETHTOOL_GSTRINGS for the
// names, ETHTOOL_GSTATS for the values, as `ethtool -S` does.
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "kernel/ethtool_native.h"

namespace railyard {

namespace {

int ethtool_ioctl(int fd, const std::string& ifname, void* data) {
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  ifr.ifr_data = static_cast<char*>(data);
  return ::ioctl(fd, SIOCETHTOOL, &ifr);
}

}  // namespace

Outcome<std::map<std::string, std::uint64_t>> NativeEthtool::stats(const std::string& ifname) {
  using Result = Outcome<std::map<std::string, std::uint64_t>>;
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Result::from_errno(errno, ifname + ": socket");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  std::vector<std::uint8_t> info_buf(sizeof(ethtool_sset_info) + sizeof(std::uint32_t));
  auto* info = reinterpret_cast<ethtool_sset_info*>(info_buf.data());
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = 1ULL << ETH_SS_STATS;
  if (ethtool_ioctl(fd, ifname, info) < 0) return Result::from_errno(errno, ifname + ": ETHTOOL_GSSET_INFO");
  std::uint32_t n = info->sset_mask ? info->data[0] : 0;
  if (n == 0) return Result(std::map<std::string, std::uint64_t>{});

  std::vector<std::uint8_t> strings_buf(sizeof(ethtool_gstrings) + n * ETH_GSTRING_LEN);
  auto* strings = reinterpret_cast<ethtool_gstrings*>(strings_buf.data());
  strings->cmd = ETHTOOL_GSTRINGS;
  strings->string_set = ETH_SS_STATS;
  strings->len = n;
  if (ethtool_ioctl(fd, ifname, strings) < 0) return Result::from_errno(errno, ifname + ": ETHTOOL_GSTRINGS");

  std::vector<std::uint8_t> stats_buf(sizeof(ethtool_stats) + n * sizeof(std::uint64_t));
  auto* stats = reinterpret_cast<ethtool_stats*>(stats_buf.data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = n;
  if (ethtool_ioctl(fd, ifname, stats) < 0) return Result::from_errno(errno, ifname + ": ETHTOOL_GSTATS");

  std::map<std::string, std::uint64_t> out;
  for (std::uint32_t i = 0; i < n && i < stats->n_stats; ++i) {
    const char* name = reinterpret_cast<const char*>(strings->data + i * ETH_GSTRING_LEN);
    out[std::string(name, strnlen(name, ETH_GSTRING_LEN))] = stats->data[i];
  }
  return Result(out);
}

}  // namespace railyard
