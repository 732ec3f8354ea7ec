#include "net.h"

#include "text.h"

#include <cctype>
#include <charconv>

namespace railyard {

namespace {

std::uint32_t mask_of(int prefix) { return prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix); }

std::optional<int> parse_small_int(std::string_view s, int max) {
  if (s.empty() || s.size() > 3) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  if (s.size() > 1 && s[0] == '0') return std::nullopt;  // "010" is ambiguous (octal in inet_aton)
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  if (v > max) return std::nullopt;
  return v;
}

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::string Ipv4::str() const {
  return std::to_string(value >> 24) + '.' + std::to_string((value >> 16) & 0xff) + '.' +
         std::to_string((value >> 8) & 0xff) + '.' + std::to_string(value & 0xff);
}

Ipv4 Cidr::last() const { return Ipv4{network.value | ~mask_of(prefix)}; }
bool Cidr::contains(Ipv4 a) const { return (a.value & mask_of(prefix)) == network.value; }
bool Cidr::overlaps(const Cidr& o) const { return contains(o.network) || o.contains(network); }
std::string Cidr::str() const { return network.str() + '/' + std::to_string(prefix); }

Cidr InterfaceAddress::subnet() const { return Cidr{Ipv4{address.value & mask_of(prefix)}, prefix}; }
std::string InterfaceAddress::str() const { return address.str() + '/' + std::to_string(prefix); }

std::optional<Ipv4> parse_ipv4(std::string_view s) {
  std::uint32_t v = 0;
  for (int part = 0; part < 4; ++part) {
    auto dot = s.find('.');
    std::string_view octet = part == 3 ? s : s.substr(0, dot);
    if (part < 3 && dot == std::string_view::npos) return std::nullopt;
    auto n = parse_small_int(octet, 255);
    if (!n) return std::nullopt;
    v = (v << 8) | static_cast<std::uint32_t>(*n);
    if (part < 3) s.remove_prefix(dot + 1);
  }
  return Ipv4{v};
}

static std::optional<InterfaceAddress> split_prefix(std::string_view s) {
  auto slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto addr = parse_ipv4(s.substr(0, slash));
  auto prefix = parse_small_int(s.substr(slash + 1), 32);
  if (!addr || !prefix) return std::nullopt;
  return InterfaceAddress{*addr, *prefix};
}

std::optional<Cidr> parse_cidr(std::string_view s) {
  auto a = split_prefix(s);
  if (!a || a->subnet().network != a->address) return std::nullopt;
  return a->subnet();
}

std::optional<InterfaceAddress> parse_interface_address(std::string_view s) {
  if (s.find('/') == std::string_view::npos) {
    auto a = parse_ipv4(s);
    if (!a) return std::nullopt;
    return InterfaceAddress{*a, 32};
  }
  return split_prefix(s);
}

std::optional<std::string> check_ipv4(std::string_view s) {
  if (parse_ipv4(s)) return std::nullopt;
  return "'" + std::string(s) + "' is not an IPv4 address; expected dotted quad like 198.18.0.10";
}

std::optional<std::string> check_cidr(std::string_view s) {
  if (parse_cidr(s)) return std::nullopt;
  if (auto a = split_prefix(s)) return "'" + std::string(s) + "' has host bits set; the subnet is " + a->subnet().str();
  return "'" + std::string(s) + "' is not a subnet in CIDR notation; expected like 198.18.0.0/24";
}

std::optional<std::string> check_interface_address(std::string_view s) {
  auto a = parse_interface_address(s);
  if (!a) return "'" + escape_control(s) + "' is not an IPv4 address; expected 198.18.0.11 or 198.18.0.11/24";
  std::uint32_t v = a->address.value;
  const char* why = v == 0                ? "the unspecified address"
                    : v == 0xffffffffu    ? "the limited broadcast address"
                    : (v >> 24) == 127    ? "a loopback address"
                    : (v >> 28) == 0xe    ? "a multicast address"
                    : (v >> 28) == 0xf    ? "a reserved (class E) address"
                    : (v >> 16) == 0xa9fe ? "a link-local address"
                    : a->prefix == 0      ? "a /0 prefix (allowed: /1 to /32)"
                                          : nullptr;
  if (why) return "'" + std::string(s) + "' cannot be an interface address: " + why;
  return std::nullopt;
}

std::optional<std::string> normalize_mac(std::string_view s) {
  if (s.size() != 17) return std::nullopt;
  std::string out;
  char sep = s[2];
  if (sep != ':' && sep != '-') return std::nullopt;
  for (std::size_t i = 0; i < 17; ++i) {
    if (i % 3 == 2) {
      if (s[i] != sep) return std::nullopt;
      out += ':';
    } else {
      if (!is_hex(s[i])) return std::nullopt;
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    }
  }
  return out;
}

std::optional<std::string> check_mac(std::string_view s) {
  auto m = normalize_mac(s);
  if (!m) return "'" + std::string(s) + "' is not a MAC address; expected six hex octets like 0c:42:a1:00:00:01";
  int first = std::stoi(m->substr(0, 2), nullptr, 16);
  if (first & 1)
    return "'" + std::string(s) +
           "' is a multicast MAC address; a NIC's address has the low bit of the first octet clear";
  if (*m == "00:00:00:00:00:00") return "'" + std::string(s) + "' is the all-zero MAC address";
  return std::nullopt;
}

std::optional<std::string> check_nqn(std::string_view s) {
  const std::string allowed =
      "; expected 'nqn.YYYY-MM.reverse.domain:name' or 'nqn.2014-08.org.nvmexpress:uuid:UUID', at most 223 bytes";
  std::string q = escape_control(s);
  if (std::string c = first_control(s); !c.empty())
    return "NQN '" + q + "' holds a control character (" + c + ")" + allowed;
  if (s.size() > 223) return "NQN '" + q + "' is " + std::to_string(s.size()) + " bytes long" + allowed;
  if (s.substr(0, 4) != "nqn." || s.size() < 13) return "'" + q + "' is not an NQN" + allowed;
  std::string_view date = s.substr(4, 7);
  bool date_ok = date.size() == 7 && date[4] == '-';
  for (std::size_t i = 0; date_ok && i < 7; ++i)
    if (i != 4 && !std::isdigit(static_cast<unsigned char>(date[i]))) date_ok = false;
  if (date_ok) {
    int month = (date[5] - '0') * 10 + (date[6] - '0');
    date_ok = month >= 1 && month <= 12;
  }
  if (!date_ok || s[11] != '.') return "NQN '" + q + "' lacks a valid 'YYYY-MM.' date after 'nqn.'" + allowed;
  auto colon = s.find(':', 12);
  std::string_view domain = s.substr(12, colon == std::string_view::npos ? std::string_view::npos : colon - 12);
  if (domain.empty() || domain.find('.') == std::string_view::npos)
    return "NQN '" + q + "' lacks a reverse domain name (like com.example)" + allowed;
  for (char c : domain)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-')
      return "NQN '" + q + "' has '" + std::string(1, c) + "' in its domain part" + allowed;
  if (colon == std::string_view::npos || colon + 1 == s.size())
    return "NQN '" + q + "' lacks a name after the domain (':name')" + allowed;
  for (char c : s)
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '=')
      return "NQN '" + q + "' contains whitespace, ',' or '=' (the fabrics option separators)" + allowed;
  return std::nullopt;
}

std::optional<std::string> normalize_pci(std::string_view s) {
  // dddd:bb:dd.f
  std::string out;
  if (s.size() == 7) out = "0000:";  // "bb:dd.f" short form
  else if (s.size() != 12) return std::nullopt;
  out += s;
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::size_t i = 0; i < 12; ++i) {
    char c = out[i];
    bool ok = (i == 4 || i == 7) ? c == ':' : i == 10 ? c == '.' : i == 11 ? (c >= '0' && c <= '7') : is_hex(c);
    if (!ok) return std::nullopt;
  }
  // device number is 5 bits: 00..1f
  if (std::stoi(out.substr(8, 2), nullptr, 16) > 0x1f) return std::nullopt;
  return out;
}

std::optional<std::string> check_pci(std::string_view s) {
  if (normalize_pci(s)) return std::nullopt;
  return "'" + std::string(s) + "' is not a PCI address; expected domain:bus:device.function like 0000:1b:00.0";
}

namespace {

// The character that starts `s`, as a message quotes it: a UTF-8 character as it is, and a
// control character or a byte that starts none (half of one, 0xff) as "\xNN", so that an
// error never carries a raw line break or broken UTF-8 to the terminal.
std::string quoted_char(std::string_view s) {
  auto b = static_cast<unsigned char>(s.front());
  std::size_t n = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 1;
  std::string_view whole = s.substr(0, n);
  if (n > 1 && escape_control(whole) == whole) return std::string(whole);
  return escape_control(s.substr(0, 1));
}

}  // namespace

std::optional<std::string> hostname_rule(std::string_view s) {
  std::size_t start = 0;
  while (start <= s.size()) {
    auto dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || label.size() > 63) return "has an empty or over-long label; labels are 1 to 63 characters";
    if (label.front() == '-' || label.back() == '-') return "has a label starting or ending with '-'";
    for (std::size_t i = 0; i < label.size(); ++i)
      if (!std::isalnum(static_cast<unsigned char>(label[i])) && label[i] != '-')
        return "contains '" + quoted_char(label.substr(i)) + "'; allowed are letters, digits, '-' and '.'";
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return std::nullopt;
}

std::optional<std::string> check_hostname(std::string_view s) {
  std::string q = escape_control(s);
  // The kernel's limit (HOST_NAME_MAX): sethostname(2) refuses a longer name, and a node
  // name is a file name in the PXE tree and the receiver's store.
  if (s.empty() || s.size() > 64)
    return "host name '" + q + "' must be 1 to 64 characters (the kernel's HOST_NAME_MAX); it has " +
           std::to_string(s.size());
  if (auto why = hostname_rule(s)) return "host name '" + q + "' " + *why;
  return std::nullopt;
}

std::optional<std::string> check_http_url(std::string_view s) {
  std::string q(s);
  std::size_t scheme = s.substr(0, 8) == "https://" ? 8 : s.substr(0, 7) == "http://" ? 7 : 0;
  if (!scheme) return "'" + q + "' is not an http:// or https:// URL";
  std::string_view rest = s.substr(scheme);
  auto end = rest.find_first_of("/?#");
  std::string_view host = rest.substr(0, end);
  if (host.empty() || host.front() == ':') return "URL '" + q + "' has no host";
  for (char c : s)
    if (std::isspace(static_cast<unsigned char>(c))) return "URL '" + q + "' contains whitespace";
  return std::nullopt;
}

std::optional<std::string> check_hex(std::string_view s, std::size_t length) {
  bool ok = s.size() == length;
  for (char c : s) ok = ok && is_hex(c);
  if (ok) return std::nullopt;
  return "'" + std::string(s) + "' is not " + std::to_string(length) + " hexadecimal digits";
}

}  // namespace railyard
