#include "kernel/rtnl_native.h"

#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vlan.h>
#include <netlink/route/link/vxlan.h>
#include <linux/neighbour.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <netlink/socket.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

namespace railyard {

int errno_from_nl(int nle) {
  switch (std::abs(nle)) {
    case 0: return 0;
    case NLE_OPNOTSUPP: return EOPNOTSUPP;
    case NLE_OBJ_NOTFOUND:
    case NLE_NODEV: return ENODEV;
    case NLE_EXIST: return EEXIST;
    case NLE_PERM: return EPERM;
    case NLE_INVAL: return EINVAL;
    // Not in the usual list, but exact: keep the kernel's own reason where libnl keeps it.
    case NLE_NOACCESS: return EACCES;
    case NLE_BUSY: return EBUSY;
    case NLE_RANGE: return ERANGE;
    case NLE_NOMEM: return ENOMEM;
    case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
    default: return EIO;
  }
}

namespace {

struct LinkPut {
  void operator()(rtnl_link* l) const { rtnl_link_put(l); }
};
struct CachePut {
  void operator()(nl_cache* c) const { nl_cache_free(c); }
};
struct AddrPut {
  void operator()(nl_addr* a) const { nl_addr_put(a); }
};
struct RtnlAddrPut {
  void operator()(rtnl_addr* a) const { rtnl_addr_put(a); }
};
struct RoutePut {
  void operator()(rtnl_route* r) const { rtnl_route_put(r); }
};
struct RulePut {
  void operator()(rtnl_rule* r) const { rtnl_rule_put(r); }
};
using LinkPtr = std::unique_ptr<rtnl_link, LinkPut>;
using CachePtr = std::unique_ptr<nl_cache, CachePut>;
using AddrPtr = std::unique_ptr<nl_addr, AddrPut>;

Status nl_error(int nle, const std::string& what) { return Status::from_errno(errno_from_nl(nle), what); }

// "198.18.0.11" of an IPv4 nl_addr, "" for anything else.
std::string ipv4_text(const nl_addr* a) {
  if (!a || nl_addr_get_family(a) != AF_INET || nl_addr_get_len(a) != 4) return "";
  char buf[INET_ADDRSTRLEN];
  if (!inet_ntop(AF_INET, nl_addr_get_binary_addr(a), buf, sizeof buf)) return "";
  return buf;
}

// "fe80::1" or "198.18.0.1" of a next hop's address, "" when absent.
std::string address_text(const nl_addr* a) {
  if (!a) return "";
  char buf[INET6_ADDRSTRLEN];
  int family = nl_addr_get_family(a);
  if ((family != AF_INET && family != AF_INET6) || !inet_ntop(family, nl_addr_get_binary_addr(a), buf, sizeof buf))
    return "";
  return buf;
}

// "198.18.0.0/24"; "default" for a zero-length prefix; `empty` when absent.
std::string prefix_text(const nl_addr* a, const std::string& empty) {
  if (!a) return empty;
  unsigned prefix = nl_addr_get_prefixlen(a);
  if (prefix == 0) return empty;
  std::string ip = ipv4_text(a);
  return ip.empty() ? empty : ip + "/" + std::to_string(prefix);
}

Status parse_ipv4(const std::string& text, AddrPtr& out, const std::string& what) {
  nl_addr* a = nullptr;
  int rc = nl_addr_parse(text.c_str(), AF_INET, &a);
  if (rc < 0) return Status::from_errno(EINVAL, what + ": \"" + text + "\" is not an IPv4 address");
  out.reset(a);
  return success();
}

// The link as the kernel has it now (one RTM_GETLINK).
Outcome<LinkPtr> get_link(nl_sock* sock, int ifindex, const std::string& name, const std::string& what) {
  rtnl_link* l = nullptr;
  int rc = rtnl_link_get_kernel(sock, ifindex, ifindex ? nullptr : name.c_str(), &l);
  if (rc < 0) return Outcome<LinkPtr>::fail(nl_error(rc, what));
  return Outcome<LinkPtr>(LinkPtr(l));
}

}  // namespace

NativeRtnl::NativeRtnl() {
  sock_ = nl_socket_alloc();
  if (!sock_) {
    open_ = Status::from_errno(ENOMEM, "netlink route socket");
    return;
  }
  int rc = nl_connect(sock_, NETLINK_ROUTE);
  if (rc < 0) open_ = nl_error(rc, "netlink route socket");
}

NativeRtnl::~NativeRtnl() {
  if (sock_) nl_socket_free(sock_);  // closes it too
}

Outcome<LinkInfo> NativeRtnl::link(const std::string& name) {
  if (!open_.ok()) return Outcome<LinkInfo>::fail(open_);
  auto l = get_link(sock_, 0, name, name + ": read link");
  if (!l.ok()) return Outcome<LinkInfo>::fail(l);
  rtnl_link* raw = l->get();
  LinkInfo info;
  info.name = rtnl_link_get_name(raw) ? rtnl_link_get_name(raw) : name;
  info.ifindex = rtnl_link_get_ifindex(raw);
  info.mtu = static_cast<int>(rtnl_link_get_mtu(raw));
  info.up = (rtnl_link_get_flags(raw) & IFF_UP) != 0;
  if (rtnl_link_is_vlan(raw)) {
    info.vlan_id = rtnl_link_vlan_get_id(raw);
    // IFLA_LINK is the lower device only for a VLAN; a veth's names its peer.
    if (int lower = rtnl_link_get_link(raw); lower > 0) {
      auto p = get_link(sock_, lower, "", name + ": read parent");
      if (!p.ok()) return Outcome<LinkInfo>::fail(p);
      info.parent = rtnl_link_get_name(p->get()) ? rtnl_link_get_name(p->get()) : "";
    }
  }
  if (rtnl_link_is_vxlan(raw)) {
    std::uint32_t vni = 0;
    if (rtnl_link_vxlan_get_id(raw, &vni) == 0) info.vni = static_cast<int>(vni);
    nl_addr* local = nullptr;
    if (rtnl_link_vxlan_get_local(raw, &local) == 0 && local) {
      info.vxlan_local = ipv4_text(local);
      nl_addr_put(local);  // a copy the getter made for us
    }
  }
  return Outcome<LinkInfo>(std::move(info));
}

Status NativeRtnl::set_link_up(const std::string& name) {
  std::string what = name + ": set up";
  if (!open_.ok()) return open_;
  auto l = get_link(sock_, 0, name, what);
  if (!l.ok()) return l.status();
  LinkPtr change(rtnl_link_alloc());
  rtnl_link_set_flags(change.get(), IFF_UP);
  int rc = rtnl_link_change(sock_, l->get(), change.get(), 0);
  return rc < 0 ? nl_error(rc, what) : success();
}

Status NativeRtnl::set_mtu(const std::string& name, int mtu) {
  std::string what = name + ": set MTU " + std::to_string(mtu);
  if (!open_.ok()) return open_;
  auto l = get_link(sock_, 0, name, what);
  if (!l.ok()) return l.status();
  LinkPtr change(rtnl_link_alloc());
  rtnl_link_set_mtu(change.get(), static_cast<unsigned>(mtu));
  int rc = rtnl_link_change(sock_, l->get(), change.get(), 0);
  return rc < 0 ? nl_error(rc, what) : success();
}

Status NativeRtnl::add_vlan(const std::string& parent, const std::string& name, int id) {
  std::string what = name + ": add VLAN " + std::to_string(id) + " on " + parent;
  if (!open_.ok()) return open_;
  auto p = get_link(sock_, 0, parent, what);
  if (!p.ok()) return p.status();
  LinkPtr vlan(rtnl_link_vlan_alloc());
  if (!vlan) return Status::from_errno(ENOMEM, what);
  rtnl_link_set_name(vlan.get(), name.c_str());
  rtnl_link_set_link(vlan.get(), rtnl_link_get_ifindex(p->get()));
  int rc = rtnl_link_vlan_set_id(vlan.get(), static_cast<std::uint16_t>(id));
  if (rc >= 0) rc = rtnl_link_add(sock_, vlan.get(), NLM_F_CREATE | NLM_F_EXCL);
  return rc < 0 ? nl_error(rc, what) : success();
}

Outcome<std::vector<std::string>> NativeRtnl::addresses(const std::string& name) {
  using Result = Outcome<std::vector<std::string>>;
  std::string what = name + ": read addresses";
  if (!open_.ok()) return Result::fail(open_);
  auto l = get_link(sock_, 0, name, what);
  if (!l.ok()) return Result::fail(l);
  int ifindex = rtnl_link_get_ifindex(l->get());
  nl_cache* raw = nullptr;
  if (int rc = rtnl_addr_alloc_cache(sock_, &raw); rc < 0) return Result::fail(nl_error(rc, what));
  CachePtr cache(raw);
  std::vector<std::string> out;
  for (nl_object* o = nl_cache_get_first(raw); o; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    if (rtnl_addr_get_family(a) != AF_INET || rtnl_addr_get_ifindex(a) != ifindex) continue;
    std::string ip = ipv4_text(rtnl_addr_get_local(a));
    if (!ip.empty()) out.push_back(ip + "/" + std::to_string(rtnl_addr_get_prefixlen(a)));
  }
  return Result(std::move(out));
}

Status NativeRtnl::add_address(const std::string& name, const std::string& cidr) {
  std::string what = name + ": add address " + cidr;
  if (!open_.ok()) return open_;
  auto l = get_link(sock_, 0, name, what);
  if (!l.ok()) return l.status();
  AddrPtr local;
  if (Status s = parse_ipv4(cidr, local, what); !s.ok()) return s;
  std::unique_ptr<rtnl_addr, RtnlAddrPut> addr(rtnl_addr_alloc());
  rtnl_addr_set_ifindex(addr.get(), rtnl_link_get_ifindex(l->get()));
  rtnl_addr_set_family(addr.get(), AF_INET);
  int rc = rtnl_addr_set_local(addr.get(), local.get());
  rtnl_addr_set_prefixlen(addr.get(), static_cast<int>(nl_addr_get_prefixlen(local.get())));
  if (rc >= 0) rc = rtnl_addr_add(sock_, addr.get(), NLM_F_EXCL);
  return rc < 0 ? nl_error(rc, what) : success();
}

Outcome<std::vector<RouteInfo>> NativeRtnl::routes(int table) {
  using Result = Outcome<std::vector<RouteInfo>>;
  std::string what = "table " + std::to_string(table) + ": read routes";
  if (!open_.ok()) return Result::fail(open_);
  nl_cache* links_raw = nullptr;
  if (int rc = rtnl_link_alloc_cache(sock_, AF_UNSPEC, &links_raw); rc < 0) return Result::fail(nl_error(rc, what));
  CachePtr links(links_raw);
  nl_cache* raw = nullptr;
  if (int rc = rtnl_route_alloc_cache(sock_, AF_INET, 0, &raw); rc < 0) return Result::fail(nl_error(rc, what));
  CachePtr cache(raw);
  std::vector<RouteInfo> out;
  for (nl_object* o = nl_cache_get_first(raw); o; o = nl_cache_get_next(o)) {
    auto* r = reinterpret_cast<rtnl_route*>(o);
    if (rtnl_route_get_family(r) != AF_INET || rtnl_route_get_type(r) != RTN_UNICAST ||
        static_cast<int>(rtnl_route_get_table(r)) != table)
      continue;
    RouteInfo info;
    info.destination = prefix_text(rtnl_route_get_dst(r), "default");
    info.source = ipv4_text(rtnl_route_get_pref_src(r));
    info.table = table;
    // One entry per next hop, so that a multipath default route shows every device it uses.
    int n = rtnl_route_get_nnexthops(r);
    for (int i = 0; i < n; ++i) {
      char name[IFNAMSIZ] = "";
      rtnl_nexthop* nh = rtnl_route_nexthop_n(r, i);
      rtnl_link_i2name(links_raw, rtnl_route_nh_get_ifindex(nh), name, sizeof name);
      info.dev = name;
      info.via = address_text(rtnl_route_nh_get_gateway(nh));
      if (info.via.empty()) info.via = address_text(rtnl_route_nh_get_via(nh));
      out.push_back(info);
    }
    if (n == 0) out.push_back(info);
  }
  return Result(std::move(out));
}

Status NativeRtnl::add_route(const RouteInfo& route) {
  std::string what = route.dev + ": add route " + route.destination + " table " + std::to_string(route.table);
  if (!open_.ok()) return open_;
  auto l = get_link(sock_, 0, route.dev, what);
  if (!l.ok()) return l.status();
  AddrPtr dst, src;
  if (Status s = parse_ipv4(route.destination == "default" ? "0.0.0.0/0" : route.destination, dst, what); !s.ok())
    return s;
  if (!route.source.empty())
    if (Status s = parse_ipv4(route.source, src, what); !s.ok()) return s;
  std::unique_ptr<rtnl_route, RoutePut> r(rtnl_route_alloc());
  rtnl_route_set_family(r.get(), AF_INET);
  rtnl_route_set_table(r.get(), static_cast<std::uint32_t>(route.table));
  rtnl_route_set_type(r.get(), RTN_UNICAST);
  rtnl_route_set_protocol(r.get(), RTPROT_BOOT);  // what `ip route add` uses
  // Directly connected without a next hop; through one, reached from anywhere.
  rtnl_route_set_scope(r.get(), route.via.empty() ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE);
  int rc = rtnl_route_set_dst(r.get(), dst.get());
  if (rc >= 0 && src) rc = rtnl_route_set_pref_src(r.get(), src.get());
  if (rc < 0) return nl_error(rc, what);
  AddrPtr via;
  if (!route.via.empty()) {
    nl_addr* a = nullptr;
    if (nl_addr_parse(route.via.c_str(), AF_UNSPEC, &a) < 0 || !a)
      return Status::from_errno(EINVAL, what + ": \"" + route.via + "\" is not a next-hop address");
    via.reset(a);
  }
  rtnl_nexthop* nh = rtnl_route_nh_alloc();
  if (!nh) return Status::from_errno(ENOMEM, what);
  rtnl_route_nh_set_ifindex(nh, rtnl_link_get_ifindex(l->get()));
  // An IPv6 next hop of an IPv4 route goes as RTA_VIA (kernel 5.2 on), a gateway as RTA_GATEWAY.
  if (via && nl_addr_get_family(via.get()) == AF_INET6) rtnl_route_nh_set_via(nh, via.get());
  else if (via) rtnl_route_nh_set_gateway(nh, via.get());
  rtnl_route_add_nexthop(r.get(), nh);  // the route owns it now
  rc = rtnl_route_add(sock_, r.get(), NLM_F_EXCL);
  return rc < 0 ? nl_error(rc, what) : success();
}

Outcome<std::vector<RuleInfo>> NativeRtnl::rules() {
  using Result = Outcome<std::vector<RuleInfo>>;
  std::string what = "read rules";
  if (!open_.ok()) return Result::fail(open_);
  nl_cache* raw = nullptr;
  if (int rc = rtnl_rule_alloc_cache(sock_, AF_INET, &raw); rc < 0) return Result::fail(nl_error(rc, what));
  CachePtr cache(raw);
  std::vector<RuleInfo> out;
  for (nl_object* o = nl_cache_get_first(raw); o; o = nl_cache_get_next(o)) {
    auto* r = reinterpret_cast<rtnl_rule*>(o);
    if (rtnl_rule_get_family(r) != AF_INET) continue;
    RuleInfo info;
    info.priority = static_cast<int>(rtnl_rule_get_prio(r));
    info.from = prefix_text(rtnl_rule_get_src(r), "all");
    info.table = static_cast<int>(rtnl_rule_get_table(r));
    out.push_back(info);
  }
  return Result(std::move(out));
}

Status NativeRtnl::add_rule(const RuleInfo& rule) {
  std::string what = "add rule from " + rule.from + " lookup " + std::to_string(rule.table) + " priority " +
                     std::to_string(rule.priority);
  if (!open_.ok()) return open_;
  std::unique_ptr<rtnl_rule, RulePut> r(rtnl_rule_alloc());
  rtnl_rule_set_family(r.get(), AF_INET);
  rtnl_rule_set_prio(r.get(), static_cast<std::uint32_t>(rule.priority));
  rtnl_rule_set_table(r.get(), static_cast<std::uint32_t>(rule.table));
  rtnl_rule_set_action(r.get(), FR_ACT_TO_TBL);
  if (rule.from != "all" && !rule.from.empty()) {
    AddrPtr src;
    if (Status s = parse_ipv4(rule.from, src, what); !s.ok()) return s;
    if (int rc = rtnl_rule_set_src(r.get(), src.get()); rc < 0) return nl_error(rc, what);
  }
  int rc = rtnl_rule_add(sock_, r.get(), NLM_F_EXCL);
  return rc < 0 ? nl_error(rc, what) : success();
}

}  // namespace railyard

namespace railyard {

namespace {

struct MsgFree {
  void operator()(nl_msg* m) const { nlmsg_free(m); }
};
struct CbPut {
  void operator()(nl_cb* c) const { nl_cb_put(c); }
};

struct LookupReply {
  RouteLookup route;
  int oif = 0;
  bool seen = false;
};

int on_route_reply(nl_msg* msg, void* arg) {
  auto* reply = static_cast<LookupReply*>(arg);
  nlmsghdr* hdr = nlmsg_hdr(msg);
  if (hdr->nlmsg_type != RTM_NEWROUTE) return NL_SKIP;
  nlattr* tb[RTA_MAX + 1] = {};
  if (nlmsg_parse(hdr, sizeof(rtmsg), tb, RTA_MAX, nullptr) < 0) return NL_SKIP;
  const auto* rtm = static_cast<const rtmsg*>(nlmsg_data(hdr));
  reply->seen = true;
  reply->route.table = tb[RTA_TABLE] ? static_cast<int>(nla_get_u32(tb[RTA_TABLE])) : rtm->rtm_table;
  if (tb[RTA_OIF]) reply->oif = static_cast<int>(nla_get_u32(tb[RTA_OIF]));
  char buf[INET6_ADDRSTRLEN] = "";
  if (tb[RTA_GATEWAY] && nla_len(tb[RTA_GATEWAY]) == 4) {
    inet_ntop(AF_INET, nla_data(tb[RTA_GATEWAY]), buf, sizeof buf);
    reply->route.via = buf;
  } else if (tb[RTA_VIA] && nla_len(tb[RTA_VIA]) >= static_cast<int>(sizeof(rtvia))) {
    const auto* via = static_cast<const rtvia*>(nla_data(tb[RTA_VIA]));
    if (via->rtvia_family == AF_INET6 && nla_len(tb[RTA_VIA]) >= static_cast<int>(sizeof(rtvia) + 16)) {
      inet_ntop(AF_INET6, via->rtvia_addr, buf, sizeof buf);
      reply->route.via = buf;
    }
  }
  return NL_OK;
}

}  // namespace

Outcome<RouteLookup> NativeRtnl::route_get(const std::string& destination, const std::string& source) {
  using Result = Outcome<RouteLookup>;
  std::string what = "route " + destination + (source.empty() ? "" : " from " + source) + ": lookup";
  if (!open_.ok()) return Result::fail(open_);
  in_addr dst{}, src{};
  if (inet_pton(AF_INET, destination.c_str(), &dst) != 1)
    return Result::from_errno(EINVAL, what + ": not an IPv4 address");
  if (!source.empty() && inet_pton(AF_INET, source.c_str(), &src) != 1)
    return Result::from_errno(EINVAL, what + ": the source is not an IPv4 address");
  std::unique_ptr<nl_msg, MsgFree> msg(nlmsg_alloc_simple(RTM_GETROUTE, 0));
  if (!msg) return Result::from_errno(ENOMEM, what);
  rtmsg rtm{};
  rtm.rtm_family = AF_INET;
  rtm.rtm_dst_len = 32;
  rtm.rtm_src_len = source.empty() ? 0 : 32;
  rtm.rtm_flags = RTM_F_LOOKUP_TABLE;  // the reply names the table the rules led to
  if (nlmsg_append(msg.get(), &rtm, sizeof rtm, NLMSG_ALIGNTO) < 0 || nla_put(msg.get(), RTA_DST, 4, &dst) < 0 ||
      (!source.empty() && nla_put(msg.get(), RTA_SRC, 4, &src) < 0))
    return Result::from_errno(ENOMEM, what);
  if (int rc = nl_send_auto(sock_, msg.get()); rc < 0) return Result::fail(nl_error(rc, what));
  std::unique_ptr<nl_cb, CbPut> socket_cb(nl_socket_get_cb(sock_));  // a reference of ours
  std::unique_ptr<nl_cb, CbPut> cb(socket_cb ? nl_cb_clone(socket_cb.get()) : nullptr);
  if (!cb) return Result::from_errno(ENOMEM, what);
  LookupReply reply;
  nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_route_reply, &reply);
  if (int rc = nl_recvmsgs(sock_, cb.get()); rc < 0)
    return Result::fail(errno_from_nl(rc), what + ": " + nl_geterror(rc));
  // The request asked for an acknowledgement too (libnl's auto-ack): take it, or the next
  // request on this socket would read it as its answer.
  if (int rc = nl_wait_for_ack(sock_); rc < 0) return Result::fail(nl_error(rc, what));
  if (!reply.seen) return Result::from_errno(EIO, what + ": no answer");
  if (reply.oif > 0) {
    auto l = get_link(sock_, reply.oif, "", what);
    if (!l.ok()) return Result::fail(l);
    const char* name = rtnl_link_get_name(l->get());
    reply.route.dev = name ? name : "ifindex " + std::to_string(reply.oif);
  }
  return Result(std::move(reply.route));
}

}  // namespace railyard

namespace railyard {

namespace {

struct NeighPut {
  void operator()(rtnl_neigh* n) const { rtnl_neigh_put(n); }
};

struct FloodDump {
  int ifindex = 0;
  std::vector<std::string> vteps;
};

// One forwarding entry of the bridge family's dump: an all-zero MAC on the device, with the
// remote VTEP as its destination.
int on_fdb_entry(nl_msg* msg, void* arg) {
  auto* dump = static_cast<FloodDump*>(arg);
  nlmsghdr* hdr = nlmsg_hdr(msg);
  if (hdr->nlmsg_type != RTM_NEWNEIGH) return NL_SKIP;
  const auto* ndm = static_cast<const ndmsg*>(nlmsg_data(hdr));
  if (ndm->ndm_family != AF_BRIDGE || ndm->ndm_ifindex != dump->ifindex) return NL_SKIP;
  nlattr* tb[NDA_MAX + 1] = {};
  if (nlmsg_parse(hdr, sizeof(ndmsg), tb, NDA_MAX, nullptr) < 0) return NL_SKIP;
  if (!tb[NDA_LLADDR] || nla_len(tb[NDA_LLADDR]) != 6 || !tb[NDA_DST] || nla_len(tb[NDA_DST]) != 4) return NL_SKIP;
  const auto* mac = static_cast<const unsigned char*>(nla_data(tb[NDA_LLADDR]));
  for (int i = 0; i < 6; ++i)
    if (mac[i] != 0) return NL_SKIP;
  char buf[INET_ADDRSTRLEN] = "";
  if (inet_ntop(AF_INET, nla_data(tb[NDA_DST]), buf, sizeof buf)) dump->vteps.emplace_back(buf);
  return NL_OK;
}

}  // namespace

Status NativeRtnl::add_vxlan(const std::string& name, int vni, const std::string& local) {
  std::string what = name + ": add VXLAN " + std::to_string(vni) + " from " + local;
  if (!open_.ok()) return open_;
  AddrPtr src;
  if (Status s = parse_ipv4(local, src, what); !s.ok()) return s;
  // The request is built here rather than with libnl's vxlan link type: its
  // rtnl_link_vxlan_set_port (libnl 3.7) sends IFLA_VXLAN_PORT as 4 bytes where the kernel
  // wants a 16-bit big-endian port, and the kernel logs an invalid length for every device.
  std::unique_ptr<nl_msg, MsgFree> msg(nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL));
  if (!msg) return Status::from_errno(ENOMEM, what);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  nlattr* info = nullptr;
  nlattr* data = nullptr;
  bool built = nlmsg_append(msg.get(), &ifi, sizeof ifi, NLMSG_ALIGNTO) == 0 &&
               nla_put_string(msg.get(), IFLA_IFNAME, name.c_str()) == 0 &&
               (info = nla_nest_start(msg.get(), IFLA_LINKINFO)) != nullptr &&
               nla_put_string(msg.get(), IFLA_INFO_KIND, "vxlan") == 0 &&
               (data = nla_nest_start(msg.get(), IFLA_INFO_DATA)) != nullptr &&
               nla_put_u32(msg.get(), IFLA_VXLAN_ID, static_cast<std::uint32_t>(vni)) == 0 &&
               nla_put(msg.get(), IFLA_VXLAN_LOCAL, static_cast<int>(nl_addr_get_len(src.get())),
                       nl_addr_get_binary_addr(src.get())) == 0 &&
               nla_put_u16(msg.get(), IFLA_VXLAN_PORT, htons(4789)) == 0 &&  // IANA's, not the kernel's old 8472
               nla_put_u8(msg.get(), IFLA_VXLAN_LEARNING, 1) == 0;
  if (!built) return Status::from_errno(ENOMEM, what);
  nla_nest_end(msg.get(), data);
  nla_nest_end(msg.get(), info);
  // nl_send_sync sends, waits for the kernel's acknowledgement and frees the message.
  int rc = nl_send_sync(sock_, msg.release());
  return rc < 0 ? nl_error(rc, what) : success();
}

Outcome<std::vector<std::string>> NativeRtnl::flood_list(const std::string& name) {
  using Result = Outcome<std::vector<std::string>>;
  std::string what = name + ": read flood list";
  if (!open_.ok()) return Result::fail(open_);
  auto l = get_link(sock_, 0, name, what);
  if (!l.ok()) return Result::fail(l);
  FloodDump dump;
  dump.ifindex = rtnl_link_get_ifindex(l->get());
  // The bridge family's neighbour dump is the forwarding table (`bridge fdb show`); a dump of
  // every family would list only the ARP and neighbour tables.
  ndmsg req{};
  req.ndm_family = AF_BRIDGE;
  if (int rc = nl_send_simple(sock_, RTM_GETNEIGH, NLM_F_DUMP, &req, sizeof req); rc < 0)
    return Result::fail(nl_error(rc, what));
  std::unique_ptr<nl_cb, CbPut> socket_cb(nl_socket_get_cb(sock_));
  std::unique_ptr<nl_cb, CbPut> cb(socket_cb ? nl_cb_clone(socket_cb.get()) : nullptr);
  if (!cb) return Result::from_errno(ENOMEM, what);
  nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_fdb_entry, &dump);
  if (int rc = nl_recvmsgs(sock_, cb.get()); rc < 0)
    return Result::fail(errno_from_nl(rc), what + ": " + nl_geterror(rc));
  return Result(std::move(dump.vteps));
}

Status NativeRtnl::add_flood(const std::string& name, const std::string& vtep) {
  std::string what = name + ": flood to " + vtep;
  if (!open_.ok()) return open_;
  auto l = get_link(sock_, 0, name, what);
  if (!l.ok()) return l.status();
  AddrPtr dst;
  if (Status s = parse_ipv4(vtep, dst, what); !s.ok()) return s;
  nl_addr* zero_raw = nullptr;
  if (nl_addr_parse("00:00:00:00:00:00", AF_LLC, &zero_raw) < 0 || !zero_raw) return Status::from_errno(ENOMEM, what);
  AddrPtr zero(zero_raw);
  std::unique_ptr<rtnl_neigh, NeighPut> n(rtnl_neigh_alloc());
  if (!n) return Status::from_errno(ENOMEM, what);
  // libnl takes a neighbour's family from its destination and refuses another one: the
  // destination first, then the bridge family the forwarding entry belongs to.
  int rc = rtnl_neigh_set_dst(n.get(), dst.get());
  rtnl_neigh_set_family(n.get(), AF_BRIDGE);
  rtnl_neigh_set_ifindex(n.get(), rtnl_link_get_ifindex(l->get()));
  rtnl_neigh_set_lladdr(n.get(), zero.get());
  rtnl_neigh_set_state(n.get(), NUD_NOARP | NUD_PERMANENT);
  rtnl_neigh_set_flags(n.get(), NTF_SELF);
  // APPEND: one all-zero entry per remote VTEP, as `bridge fdb append` makes them.
  if (rc >= 0) rc = rtnl_neigh_add(sock_, n.get(), NLM_F_CREATE | NLM_F_APPEND);
  return rc < 0 ? nl_error(rc, what) : success();
}

}  // namespace railyard
