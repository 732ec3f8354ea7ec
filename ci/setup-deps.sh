#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages railyard's build, tests and demo need. Idempotent:
# when everything is present it changes nothing and needs no network.
set -euo pipefail

packages=(
  # toolchain
  cmake g++ ninja-build pkg-config
  # libraries (see CMakeLists.txt)
  libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libssl-dev doctest-dev
  libarchive-dev libcurl4-openssl-dev libibverbs-dev libnl-3-dev libnl-route-3-dev
  libkmod-dev libxxhash-dev libudev-dev libspdlog-dev
  libmicrohttpd-dev libcpp-httplib-dev libsimdjson-dev
  # fake hardware for discovery tests, network namespaces, and timing for benchmarks
  umockdev libumockdev-dev iproute2 time bc
  # report schema validation in tests
  python3-jsonschema
  # the parsers' fuzz tests (tests/fuzz): clang++ and libFuzzer, which Debian's clang-14 only
  # recommends (in libclang-rt-14-dev)
  clang libclang-rt-14-dev
  # the linters the tests run (tests/lint): the C++ layout and the shell scripts
  clang-format shellcheck
  # PXE trees and image CI: dnsmasq to check its snippet, iPXE to chainload, YAML checks
  dnsmasq-base ipxe python3-yaml yamllint
  # image builds: bootstrap, packing, the agent .deb; modinfo reads the modules DKMS built
  mmdebstrap dpkg-dev zstd squashfs-tools cpio kmod
  # vendor apt keys fetched by key_url are read and checked with gpg
  gpg
  # end to end: QEMU (TCG) with its iPXE ROMs, the fetch tests' HTTP server
  qemu-system-x86 ipxe-qemu python3
  # report pages rendered headless in tests
  chromium
  # a real Slurm for the join tests (tests/slurm), promtool for the shipped alert rules
  munge slurmctld slurmd slurm-client prometheus
  # routed rails against a real bgpd (tests/bgp): FRR, and ping across a leaf
  frr iputils-ping
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "setup-deps: missing ${missing[*]}; run as root (or install them with apt-get)" >&2
  exit 2
fi
echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-deps: done"
