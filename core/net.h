// Values that name things on a network or a PCI bus: parsed, normalised, checked.
// Each check returns nothing when valid, else a message saying what is allowed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace railyard {

struct Ipv4 {
  std::uint32_t value = 0;  // host byte order
  std::string str() const;
  friend bool operator==(Ipv4, Ipv4) = default;
};

struct Cidr {
  Ipv4 network;  // host bits cleared
  int prefix = 0;
  Ipv4 first() const { return network; }
  Ipv4 last() const;
  bool contains(Ipv4 a) const;
  bool overlaps(const Cidr& other) const;
  std::string str() const;
};

// An address with its prefix as written on an interface ("198.18.0.11/24").
struct InterfaceAddress {
  Ipv4 address;
  int prefix = 32;
  Cidr subnet() const;
  std::string str() const;
};

std::optional<Ipv4> parse_ipv4(std::string_view s);
// Strict: host bits must be zero ("198.18.0.0/24", not "198.18.0.1/24").
std::optional<Cidr> parse_cidr(std::string_view s);
std::optional<InterfaceAddress> parse_interface_address(std::string_view s);

std::optional<std::string> check_ipv4(std::string_view s);
std::optional<std::string> check_cidr(std::string_view s);
std::optional<std::string> check_interface_address(std::string_view s);

// MAC addresses are normalised to lower-case colon form.
std::optional<std::string> normalize_mac(std::string_view s);
std::optional<std::string> check_mac(std::string_view s);

// NVMe Qualified Names: "nqn.yyyy-mm.reverse.domain:anything" or the UUID form, ≤ 223 bytes.
std::optional<std::string> check_nqn(std::string_view s);

// Full PCI address, lower case: "0000:1b:00.0".
std::optional<std::string> normalize_pci(std::string_view s);
std::optional<std::string> check_pci(std::string_view s);

// RFC 1123 host name (labels of letters, digits and '-').
std::optional<std::string> check_hostname(std::string_view s);
// The host-name rule without its length limit, for a name that is not a host name but lands
// where one does (a file name, a word of a configuration file): why `s` breaks it, worded to
// follow the name ("contains '!'; allowed are …"), or nullopt. An offending character is
// quoted as escape_control writes it, whole when it is a UTF-8 character.
std::optional<std::string> hostname_rule(std::string_view s);

// http:// or https:// URL with a host.
std::optional<std::string> check_http_url(std::string_view s);

// Hex digest of the given length (64 for sha256).
std::optional<std::string> check_hex(std::string_view s, std::size_t length);

}  // namespace railyard
