#include "kernel/ethtool_native.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace railyard {

static_assert(kEthtoolPfcPreventionTout == ETHTOOL_PFC_PREVENTION_TOUT);

namespace {

// struct ethtool_tunable followed by its u16 value, as the kernel reads and writes it (spelled
// out: C++ allows no member after the header's flexible array).
struct TunableU16 {
  std::uint32_t cmd, id, type_id, len;
  std::uint16_t value;
};
static_assert(offsetof(TunableU16, len) == offsetof(ethtool_tunable, len));
static_assert(offsetof(TunableU16, value) == sizeof(ethtool_tunable));

// One SIOCETHTOOL on `ifname` with `request`; the kernel's errno, or 0.
int ethtool_ioctl(const std::string& ifname, void* request) {
  if (ifname.empty() || ifname.size() >= IFNAMSIZ) return ENODEV;
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, ifname.c_str(), ifname.size());
  ifr.ifr_data = static_cast<char*>(request);
  int err = ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? errno : 0;
  ::close(fd);
  return err;
}

TunableU16 request(std::uint32_t cmd, std::uint32_t id, std::uint16_t value) {
  TunableU16 t{};
  t.cmd = cmd;
  t.id = id;
  t.type_id = ETHTOOL_TUNABLE_U16;
  t.len = sizeof(std::uint16_t);
  t.value = value;
  return t;
}

}  // namespace

std::string tunable_name(std::uint32_t id) {
  switch (id) {
    case ETHTOOL_RX_COPYBREAK: return "rx-copybreak";
    case ETHTOOL_TX_COPYBREAK: return "tx-copybreak";
    case ETHTOOL_PFC_PREVENTION_TOUT: return "pfc-prevention-tout";
    default: return "tunable " + std::to_string(id);
  }
}

Outcome<std::uint16_t> NativeEthtool::tunable_u16(const std::string& ifname, std::uint32_t id) {
  TunableU16 t = request(ETHTOOL_GTUNABLE, id, 0);
  if (int err = ethtool_ioctl(ifname, &t))
    return Outcome<std::uint16_t>::from_errno(err, ifname + ": ETHTOOL_GTUNABLE " + tunable_name(id));
  return Outcome<std::uint16_t>(t.value);
}

Status NativeEthtool::set_tunable_u16(const std::string& ifname, std::uint32_t id, std::uint16_t value) {
  TunableU16 t = request(ETHTOOL_STUNABLE, id, value);
  if (int err = ethtool_ioctl(ifname, &t))
    return Status::from_errno(err, ifname + ": ETHTOOL_STUNABLE " + tunable_name(id));
  return success();
}

}  // namespace railyard
