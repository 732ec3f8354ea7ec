#include <doctest/doctest.h>

#include <string>

#include "net.h"

using namespace railyard;

namespace {

// The message of a failed check, or "" when the value passed.
std::string why(const std::optional<std::string>& e) { return e.value_or(""); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Cidr cidr(const char* s) { return parse_cidr(s).value(); }

}  // namespace

// --- IPv4 addresses ---

TEST_CASE("parse_ipv4 reads a dotted quad") {
  auto a = parse_ipv4("198.18.0.10");
  REQUIRE(a);
  CHECK(a->value == 0xC612000Au);
  CHECK(a->str() == "198.18.0.10");
  CHECK(parse_ipv4("0.0.0.0")->value == 0u);
  CHECK(parse_ipv4("255.255.255.255")->value == 0xFFFFFFFFu);
}

TEST_CASE("parse_ipv4 rejects leading zeros (octal in inet_aton)") {
  CHECK_FALSE(parse_ipv4("010.0.0.1"));
  CHECK_FALSE(parse_ipv4("10.0.0.01"));
  CHECK(parse_ipv4("10.0.0.0"));  // a lone zero is fine
}

TEST_CASE("parse_ipv4 rejects octets above 255") {
  CHECK_FALSE(parse_ipv4("256.0.0.1"));
  CHECK_FALSE(parse_ipv4("10.0.0.1000"));
}

TEST_CASE("parse_ipv4 rejects too few or too many parts and junk") {
  CHECK_FALSE(parse_ipv4("10.0.0"));
  CHECK_FALSE(parse_ipv4("10.0.0.1.2"));
  CHECK_FALSE(parse_ipv4("10..0.1"));
  CHECK_FALSE(parse_ipv4(""));
  CHECK_FALSE(parse_ipv4(" 10.0.0.1"));
  CHECK_FALSE(parse_ipv4("10.0.0.-1"));
  CHECK_FALSE(parse_ipv4("10.0.0.1/24"));
}

TEST_CASE("check_ipv4 explains what is expected") {
  CHECK(why(check_ipv4("198.18.0.10")) == "");
  CHECK(contains(why(check_ipv4("198.18.0")), "'198.18.0' is not an IPv4 address"));
}

// --- subnets ---

TEST_CASE("parse_cidr reads a subnet with host bits clear") {
  auto c = parse_cidr("198.18.0.0/24");
  REQUIRE(c);
  CHECK(c->network.str() == "198.18.0.0");
  CHECK(c->prefix == 24);
  CHECK(c->str() == "198.18.0.0/24");
  CHECK(parse_cidr("0.0.0.0/0"));
  CHECK(parse_cidr("10.0.0.1/32"));
}

TEST_CASE("parse_cidr rejects host bits set; the message names the right subnet") {
  CHECK_FALSE(parse_cidr("198.18.0.1/24"));
  CHECK(contains(why(check_cidr("198.18.0.1/24")), "has host bits set; the subnet is 198.18.0.0/24"));
  CHECK(contains(why(check_cidr("10.1.2.3/8")), "the subnet is 10.0.0.0/8"));
  CHECK(contains(why(check_cidr("198.18.7.200/21")), "the subnet is 198.18.0.0/21"));
}

TEST_CASE("parse_cidr rejects a missing or bad prefix") {
  CHECK_FALSE(parse_cidr("198.18.0.0"));
  CHECK_FALSE(parse_cidr("198.18.0.0/33"));
  CHECK_FALSE(parse_cidr("198.18.0.0/024"));
  CHECK_FALSE(parse_cidr("198.18.0.0/"));
  CHECK(contains(why(check_cidr("198.18.0.0")), "is not a subnet in CIDR notation"));
  CHECK(why(check_cidr("198.18.0.0/24")) == "");
}

TEST_CASE("Cidr first, last and contains") {
  auto c = cidr("198.18.0.0/24");
  CHECK(c.first().str() == "198.18.0.0");
  CHECK(c.last().str() == "198.18.0.255");
  CHECK(c.contains(*parse_ipv4("198.18.0.77")));
  CHECK_FALSE(c.contains(*parse_ipv4("198.18.1.0")));
  CHECK(cidr("0.0.0.0/0").contains(*parse_ipv4("203.0.113.9")));
  CHECK(cidr("10.0.0.5/32").last().str() == "10.0.0.5");
}

TEST_CASE("Cidr overlaps is symmetric and catches nesting") {
  CHECK(cidr("10.0.0.0/8").overlaps(cidr("10.1.0.0/16")));
  CHECK(cidr("10.1.0.0/16").overlaps(cidr("10.0.0.0/8")));
  CHECK(cidr("10.0.0.0/24").overlaps(cidr("10.0.0.0/24")));
  CHECK_FALSE(cidr("10.0.0.0/24").overlaps(cidr("10.0.1.0/24")));
  CHECK_FALSE(cidr("10.0.1.0/24").overlaps(cidr("10.0.0.0/24")));
}

// --- interface addresses ---

TEST_CASE("interface address without a prefix is a /32") {
  auto a = parse_interface_address("198.18.0.11");
  REQUIRE(a);
  CHECK(a->prefix == 32);
  CHECK(a->str() == "198.18.0.11/32");
}

TEST_CASE("interface address with a prefix may have host bits set") {
  auto a = parse_interface_address("198.18.0.11/24");
  REQUIRE(a);
  CHECK(a->address.str() == "198.18.0.11");
  CHECK(a->prefix == 24);
  CHECK(a->subnet().str() == "198.18.0.0/24");
}

TEST_CASE("interface address rejects a bad address or prefix") {
  CHECK_FALSE(parse_interface_address("198.18.0.11/"));
  CHECK_FALSE(parse_interface_address("198.18.0.11/40"));
  CHECK_FALSE(parse_interface_address("198.18.0/24"));
  CHECK(contains(why(check_interface_address("x")), "expected 198.18.0.11 or 198.18.0.11/24"));
  CHECK(why(check_interface_address("198.18.0.11/24")) == "");
}

// --- MAC addresses ---

TEST_CASE("normalize_mac gives lower-case colon form") {
  CHECK(normalize_mac("0c:42:a1:00:00:01") == "0c:42:a1:00:00:01");
  CHECK(normalize_mac("0C:42:A1:0A:0B:FF") == "0c:42:a1:0a:0b:ff");
  CHECK(normalize_mac("0c-42-a1-00-00-01") == "0c:42:a1:00:00:01");
  CHECK(normalize_mac("0C-42-A1-00-00-01") == "0c:42:a1:00:00:01");
}

TEST_CASE("normalize_mac rejects mixed separators, bad length and non-hex digits") {
  CHECK_FALSE(normalize_mac("0c:42-a1:00:00:01"));
  CHECK_FALSE(normalize_mac("0c:42:a1:00:00"));
  CHECK_FALSE(normalize_mac("0c:42:a1:00:00:01:02"));
  CHECK_FALSE(normalize_mac("0c:42:a1:00:00:0g"));
  CHECK_FALSE(normalize_mac("0c.42.a1.00.00.01"));
  CHECK_FALSE(normalize_mac("0c42a1000001"));
}

TEST_CASE("check_mac accepts a unicast NIC address") {
  CHECK(why(check_mac("0c:42:a1:00:00:01")) == "");
  CHECK(why(check_mac("52-54-00-00-00-01")) == "");
}

TEST_CASE("check_mac rejects a multicast address") {
  CHECK(contains(why(check_mac("01:00:5e:00:00:01")), "is a multicast MAC address"));
  CHECK(contains(why(check_mac("FF:FF:FF:FF:FF:FF")), "is a multicast MAC address"));
}

TEST_CASE("check_mac rejects the all-zero address") {
  CHECK(contains(why(check_mac("00:00:00:00:00:00")), "is the all-zero MAC address"));
}

TEST_CASE("check_mac rejects what is not a MAC address") {
  CHECK(contains(why(check_mac("eth0")), "'eth0' is not a MAC address"));
}

// --- NVMe qualified names ---

TEST_CASE("check_nqn accepts the normal and the UUID forms") {
  CHECK(why(check_nqn("nqn.2024-01.example.storage:datasets")) == "");
  CHECK(why(check_nqn("nqn.2026-11.org.railyard.lab:target0")) == "");
  CHECK(why(check_nqn("nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")) == "");
}

TEST_CASE("check_nqn rejects what does not start with nqn.") {
  CHECK(contains(why(check_nqn("iqn.2024-01.com.example:x")), "is not an NQN"));
  CHECK(contains(why(check_nqn("nqn.2024")), "is not an NQN"));
}

TEST_CASE("check_nqn rejects a bad date") {
  CHECK(contains(why(check_nqn("nqn.2024-13.com.example:x")), "lacks a valid 'YYYY-MM.' date"));
  CHECK(contains(why(check_nqn("nqn.2024-00.com.example:x")), "lacks a valid 'YYYY-MM.' date"));
  CHECK(contains(why(check_nqn("nqn.24-01.com.example:x")), "lacks a valid 'YYYY-MM.' date"));
  CHECK(contains(why(check_nqn("nqn.2024-01com.example:x")), "lacks a valid 'YYYY-MM.' date"));
  CHECK(why(check_nqn("nqn.2024-12.com.example:x")) == "");
}

TEST_CASE("check_nqn rejects a domain without a dot") {
  CHECK(contains(why(check_nqn("nqn.2024-01.example:datasets")), "lacks a reverse domain name"));
  CHECK(contains(why(check_nqn("nqn.2024-01.:datasets")), "lacks a reverse domain name"));
}

TEST_CASE("check_nqn rejects a bad character in the domain") {
  CHECK(contains(why(check_nqn("nqn.2024-01.com.exa_mple:x")), "has '_' in its domain part"));
}

TEST_CASE("check_nqn rejects a missing ':name'") {
  CHECK(contains(why(check_nqn("nqn.2024-01.com.example")), "lacks a name after the domain (':name')"));
  CHECK(contains(why(check_nqn("nqn.2024-01.com.example:")), "lacks a name after the domain (':name')"));
}

TEST_CASE("check_nqn allows 223 bytes and rejects 224") {
  std::string head = "nqn.2024-01.com.example:";
  std::string ok = head + std::string(223 - head.size(), 'a');
  CHECK(why(check_nqn(ok)) == "");
  CHECK(contains(why(check_nqn(ok + "a")), "is 224 bytes long"));
}

TEST_CASE("check_nqn rejects the fabrics option separators") {
  CHECK(contains(why(check_nqn("nqn.2024-01.com.example:a,b")), "contains whitespace, ',' or '='"));
  CHECK(contains(why(check_nqn("nqn.2024-01.com.example:a=b")), "contains whitespace, ',' or '='"));
  CHECK(contains(why(check_nqn("nqn.2024-01.com.example:a b")), "contains whitespace, ',' or '='"));
}

// --- PCI addresses ---

TEST_CASE("normalize_pci completes the short form and lower-cases") {
  CHECK(normalize_pci("0000:1b:00.0") == "0000:1b:00.0");
  CHECK(normalize_pci("1b:00.0") == "0000:1b:00.0");
  CHECK(normalize_pci("0000:1B:00.1") == "0000:1b:00.1");
  CHECK(normalize_pci("AF:1F.7") == "0000:af:1f.7");
}

TEST_CASE("normalize_pci rejects a device above 0x1f") {
  CHECK_FALSE(normalize_pci("0000:1b:20.0"));
  CHECK_FALSE(normalize_pci("1b:ff.0"));
}

TEST_CASE("normalize_pci rejects a function above 7") {
  CHECK_FALSE(normalize_pci("0000:1b:00.8"));
  CHECK_FALSE(normalize_pci("1b:00.f"));
}

TEST_CASE("normalize_pci rejects wrong separators and lengths") {
  CHECK_FALSE(normalize_pci("0000-1b-00.0"));
  CHECK_FALSE(normalize_pci("0000:1b:00:0"));
  CHECK_FALSE(normalize_pci("1b:0.0"));
  CHECK_FALSE(normalize_pci("0000:1g:00.0"));
  CHECK_FALSE(normalize_pci("eth0"));
}

TEST_CASE("check_pci explains the expected form") {
  CHECK(why(check_pci("1b:00.0")) == "");
  CHECK(contains(why(check_pci("1b:20.0")), "is not a PCI address; expected domain:bus:device.function"));
}

// --- host names, URLs, digests ---

TEST_CASE("check_hostname accepts RFC 1123 names") {
  CHECK(why(check_hostname("gpu-r1-n01")) == "");
  CHECK(why(check_hostname("node7.mgmt.example")) == "");
  CHECK(why(check_hostname("1node")) == "");
  CHECK(why(check_hostname(std::string(63, 'a'))) == "");
}

TEST_CASE("check_hostname rejects bad names") {
  CHECK(contains(why(check_hostname("")), "must be 1 to 64 characters"));
  // The kernel refuses a host name over 64 characters; 253 would pass DNS, not sethostname(2).
  CHECK(why(check_hostname(std::string(64, 'a').replace(10, 1, "."))) == "");
  CHECK(why(check_hostname(std::string(71, 'a').replace(30, 1, "."))) ==
        "host name '" + std::string(71, 'a').replace(30, 1, ".") +
            "' must be 1 to 64 characters (the kernel's HOST_NAME_MAX); it has 71");
  CHECK(contains(why(check_hostname(std::string(253, 'a'))), "must be 1 to 64 characters"));
  CHECK(contains(why(check_nqn(std::string("nqn.2024-01.com.example:a\0b", 27))), "holds a control character (\\x00)"));
  CHECK(contains(why(check_nqn("nqn.2024-01.com.example:a\x1b[2Jb")), "holds a control character (\\x1b)"));
  CHECK(contains(why(check_hostname(std::string(254, 'a'))), "must be 1 to 64 characters"));
  CHECK(contains(why(check_hostname(std::string(64, 'a'))), "empty or over-long label"));
  CHECK(contains(why(check_hostname("a..b")), "empty or over-long label"));
  CHECK(contains(why(check_hostname("-node")), "starting or ending with '-'"));
  CHECK(contains(why(check_hostname("node-.x")), "starting or ending with '-'"));
  CHECK(contains(why(check_hostname("gpu_01")), "contains '_'"));
}

// A line break or half a UTF-8 character printed raw would break the line the error is on,
// or the terminal's text after it.
TEST_CASE("check_hostname quotes the offending character escaped") {
  CHECK(why(check_hostname("gpu\n01")) ==
        "host name 'gpu\\x0a01' contains '\\x0a'; allowed are letters, digits, '-' and '.'");
  CHECK(why(check_hostname("gpu\xff"
                           "01")) ==
        "host name 'gpu\\xff01' contains '\\xff'; allowed are letters, digits, '-' and '.'");
  CHECK(why(check_hostname("gpu\xc3")) ==
        "host name 'gpu\\xc3' contains '\\xc3'; allowed are letters, digits, '-' and '.'");
  // A whole UTF-8 character is text: quoted as it is, never a byte of it alone.
  CHECK(why(check_hostname("g\xc3\xbcpu")) ==
        "host name 'g\xc3\xbcpu' contains '\xc3\xbc'; allowed are letters, digits, '-' and '.'");
}

TEST_CASE("hostname_rule: the rule without the kernel's length, for names that land where host names do") {
  CHECK_FALSE(hostname_rule("leaf-r0.pod1"));
  CHECK_FALSE(hostname_rule(std::string(100, 'a').replace(50, 1, ".")));
  CHECK(*hostname_rule("!leaf") == "contains '!'; allowed are letters, digits, '-' and '.'");
  CHECK(*hostname_rule("-swp1") == "has a label starting or ending with '-'");
  CHECK(*hostname_rule(".leaf") == "has an empty or over-long label; labels are 1 to 63 characters");
}

TEST_CASE("check_http_url accepts http and https URLs with a host") {
  CHECK(why(check_http_url("https://railyard.mgmt.example/api/v1/reports")) == "");
  CHECK(why(check_http_url("http://10.0.0.1:8080")) == "");
}

TEST_CASE("check_http_url rejects other schemes, a missing host and whitespace") {
  CHECK(contains(why(check_http_url("ftp://example.com/")), "is not an http:// or https:// URL"));
  CHECK(contains(why(check_http_url("example.com")), "is not an http:// or https:// URL"));
  CHECK(contains(why(check_http_url("https://")), "has no host"));
  CHECK(contains(why(check_http_url("http:///path")), "has no host"));
  CHECK(contains(why(check_http_url("http://:8080/")), "has no host"));
  CHECK(contains(why(check_http_url("https://example.com/a b")), "contains whitespace"));
}

TEST_CASE("check_hex wants exactly N hexadecimal digits") {
  CHECK(why(check_hex("09afAF", 6)) == "");
  CHECK(contains(why(check_hex("09afA", 6)), "is not 6 hexadecimal digits"));
  CHECK(contains(why(check_hex("09afAF0", 6)), "is not 6 hexadecimal digits"));
  CHECK(contains(why(check_hex("09afAg", 6)), "is not 6 hexadecimal digits"));
  CHECK(why(check_hex(std::string(64, 'e'), 64)) == "");
}
