// NativeRdmaLinks: Soft-RoCE devices: RDMA_NLDEV_CMD_NEWLINK over NETLINK_RDMA, what
// `rdma link add NAME type rxe netdev DEV` sends.
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>

#include <memory>

#include "kernel/rdma_links_native.h"

namespace railyard {

Status NativeRdmaLinks::add_rxe(const std::string& name, const std::string& netdev) {
  std::string what = "rdma link add " + name + " type rxe netdev " + netdev;
  std::unique_ptr<nl_sock, decltype(&nl_socket_free)> sk(nl_socket_alloc(), nl_socket_free);
  if (!sk) return Status::fail(ENOMEM, what + ": no netlink socket");
  if (int e = nl_connect(sk.get(), NETLINK_RDMA); e < 0)
    return Status::fail(EPROTONOSUPPORT, what + ": " + nl_geterror(e));
  std::unique_ptr<nl_msg, decltype(&nlmsg_free)> msg(
      nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK), NLM_F_REQUEST | NLM_F_ACK),
      nlmsg_free);
  if (!msg) return Status::fail(ENOMEM, what);
  nla_put_string(msg.get(), RDMA_NLDEV_ATTR_DEV_NAME, name.c_str());
  nla_put_string(msg.get(), RDMA_NLDEV_ATTR_LINK_TYPE, "rxe");
  nla_put_string(msg.get(), RDMA_NLDEV_ATTR_NDEV_NAME, netdev.c_str());
  if (int e = nl_send_auto(sk.get(), msg.get()); e < 0) return Status::fail(EIO, what + ": " + nl_geterror(e));
  int e = nl_wait_for_ack(sk.get());
  if (e < 0) {
    int err = e == -NLE_OPNOTSUPP ? EOPNOTSUPP : e == -NLE_EXIST ? EEXIST : e == -NLE_NODEV ? ENODEV : EINVAL;
    return Status::from_errno(err, what);
  }
  return success();
}

}  // namespace railyard
