# Vendor apt repositories made at test time, laid out like NVIDIA's flat ones (DOCA-OFED,
# CUDA): suite "./", Packages, Release, InRelease and Release.gpg signed with a throwaway key,
# served on 127.0.0.1. The packages are stand-ins made with dpkg-deb, named as such:
#   labofed           meta package, depends on labofed-dkms (as doca-ofed on mlnx-ofed-kernel-dkms)
#   labofed-dkms      DKMS source of the labofed module, which exports labofed_abi_<version>()
#                     and publishes its Module.symvers and header under /usr/src/labofed/KVER
#                     once built (as mlnx-ofed-kernel does under /usr/src/ofa_kernel)
#   labpeermem-dkms   DKMS source of labpeermem, which calls labofed_abi_<version>(): it builds
#                     only against a labofed built first for the same kernel (BUILD_DEPENDS, as
#                     nvidia-peermem against OFED) and records the labofed it was built against
# Sourced after lab.bash; vendor_init first.

# vendor_init: a GnuPG home with a throwaway signing key (VENDOR_FPR), a second key for the
# wrongly signed case (VENDOR_OTHER_FPR), and the served tree (VENDOR_ROOT).
vendor_init() {
  command -v gpg >/dev/null || lab_fail "gpg missing (ci/setup-deps.sh)"
  command -v dpkg-deb >/dev/null || lab_fail "dpkg-deb missing"
  command -v dpkg-scanpackages >/dev/null || lab_fail "dpkg-scanpackages missing (dpkg-dev)"
  VENDOR_ROOT=$LAB_WORK/vendor
  export GNUPGHOME=$LAB_WORK/gnupg
  mkdir -p "$VENDOR_ROOT" "$GNUPGHOME"
  chmod 700 "$GNUPGHOME"
  gpg --batch --quiet --passphrase '' --quick-generate-key "railyard test vendor (throwaway) <vendor@lab.invalid>" \
    ed25519 sign never 2>/dev/null
  gpg --batch --quiet --passphrase '' --quick-generate-key "railyard test impostor (throwaway) <impostor@lab.invalid>" \
    ed25519 sign never 2>/dev/null
  VENDOR_FPR=$(gpg --batch --with-colons --list-keys vendor@lab.invalid | awk -F: '$1 == "fpr" {print $10; exit}')
  VENDOR_OTHER_FPR=$(gpg --batch --with-colons --list-keys impostor@lab.invalid | awk -F: '$1 == "fpr" {print $10; exit}')
  [[ ${#VENDOR_FPR} -eq 40 && ${#VENDOR_OTHER_FPR} -eq 40 ]] || lab_fail "could not make the throwaway keys"
  gpg --batch --armor --export "$VENDOR_FPR" >"$VENDOR_ROOT/vendor-key.asc"
  gpg --batch --armor --export "$VENDOR_OTHER_FPR" >"$VENDOR_ROOT/impostor-key.asc"
}

# vendor_deb OUTDIR NAME VERSION DEPENDS [TREE]: a binary package (Architecture: all) of TREE's
# files, with the DKMS registration scripts when TREE holds a DKMS source.
vendor_deb() {
  local out=$1 name=$2 version=$3 depends=$4 tree=${5:-}
  local d
  d=$(mktemp -d "$LAB_WORK/deb.XXXXXX")
  mkdir -p "$d/DEBIAN"
  [[ -n $tree ]] && cp -a "$tree/." "$d/"
  {
    echo "Package: $name"
    echo "Version: $version"
    echo "Architecture: all"
    echo "Maintainer: railyard tests <vendor@lab.invalid>"
    [[ -n $depends ]] && echo "Depends: $depends"
    echo "Section: kernel"
    echo "Priority: optional"
    echo "Description: railyard test stand-in for a vendor package ($name $version)"
    echo " Made at test time; not a vendor's package."
  } >"$d/DEBIAN/control"
  if [[ $name == *-dkms ]]; then
    local mod=${name%-dkms}
    # As dh_dkms' scripts: register the source; building is the image builder's (for the
    # image's kernel, not the build host's).
    # shellcheck disable=SC2016  # $1 is the postinst's own argument
    printf '#!/bin/sh\nset -e\nif [ "$1" = configure ]; then dkms status -m %s -v %s | grep -q . || dkms add -m %s -v %s; fi\n' \
      "$mod" "$version" "$mod" "$version" >"$d/DEBIAN/postinst"
    printf '#!/bin/sh\nset -e\ndkms remove -m %s -v %s --all >/dev/null 2>&1 || true\n' "$mod" "$version" >"$d/DEBIAN/prerm"
    chmod 755 "$d/DEBIAN/postinst" "$d/DEBIAN/prerm"
  fi
  SOURCE_DATE_EPOCH=0 dpkg-deb --root-owner-group -Zxz --build "$d" "$out/${name}_${version}_all.deb" >/dev/null
  rm -rf "$d"
}

# vendor_dkms_conf SRC MODULE VERSION MAKE_ARGS [LINE...]: SRC/dkms.conf for one module built
# with kbuild for the kernel DKMS names, installed under updates/dkms, with extra LINEs.
vendor_dkms_conf() {
  local src=$1 module=$2 version=$3 make_args=$4
  shift 4
  {
    echo "PACKAGE_NAME=\"$module\""
    echo "PACKAGE_VERSION=\"$version\""
    echo "BUILT_MODULE_NAME[0]=\"$module\""
    echo 'DEST_MODULE_LOCATION[0]="/updates/dkms"'
    echo "MAKE[0]=\"make -C \${kernel_source_dir} M=\${dkms_tree}/$module/$version/build${make_args:+ $make_args} modules\""
    echo 'CLEAN="true"'
    echo 'AUTOINSTALL="yes"'
    local line
    for line in "$@"; do echo "$line"; done
  } >"$src/dkms.conf"
}

# vendor_labofed_src DIR VERSION [BROKEN]: the labofed DKMS source tree under DIR/usr/src.
# BROKEN: a source that does not compile (the DKMS failure case).
vendor_labofed_src() {
  local root=$1 version=$2 broken=${3:-}
  local abi=labofed_abi_${version//./_}
  local src=$root/usr/src/labofed-$version
  mkdir -p "$src"
  cat >"$src/labofed.h" <<EOF
/* labofed $version: the ABI its consumers are compiled against (a test stand-in). */
#define LABOFED_VERSION "$version"
int $abi(void);
#define labofed_abi $abi
EOF
  cat >"$src/labofed.c" <<EOF
#include <linux/module.h>
#include "labofed.h"
int $abi(void) { return 1; }
EXPORT_SYMBOL($abi);
${broken:+this does not compile;}
MODULE_LICENSE("GPL");
MODULE_VERSION(LABOFED_VERSION);
MODULE_DESCRIPTION("railyard test stand-in for an OFED kernel module");
EOF
  echo 'obj-m := labofed.o' >"$src/Kbuild"
  # Publishes what consumers build against, per kernel (as ofa_kernel's Module.symvers).
  cat >"$src/publish.sh" <<'EOF'
#!/bin/sh
# publish.sh KVER BUILD_DIR SOURCE_DIR
set -e
mkdir -p /usr/src/labofed/"$1"
cp "$2"/Module.symvers "$3"/labofed.h /usr/src/labofed/"$1"/
EOF
  chmod 755 "$src/publish.sh"
  vendor_dkms_conf "$src" labofed "$version" "" \
    "POST_BUILD=\"publish.sh \${kernelver} \${dkms_tree}/labofed/$version/build \${dkms_tree}/labofed/$version/build\""
}

# vendor_peermem_src DIR VERSION: the labpeermem DKMS source tree, built against the labofed
# published for the kernel it is built for.
vendor_peermem_src() {
  local root=$1 version=$2
  local src=$root/usr/src/labpeermem-$version
  mkdir -p "$src"
  cat >"$src/labpeermem.c" <<'EOF'
#include <linux/module.h>
#include "labofed.h"
static int __init labpeermem_init(void) { return labofed_abi() == 1 ? 0 : -EINVAL; }
static void __exit labpeermem_exit(void) {}
module_init(labpeermem_init);
module_exit(labpeermem_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(labofed, LABOFED_VERSION);
MODULE_DESCRIPTION("railyard test stand-in for a GPU peer-memory module built against OFED");
EOF
  cat >"$src/Kbuild" <<EOF
obj-m := labpeermem.o
ccflags-y := -I/usr/src/labofed/\$(KERNELRELEASE)
EOF
  vendor_dkms_conf "$src" labpeermem "$version" "KBUILD_EXTRA_SYMBOLS=/usr/src/labofed/\${kernelver}/Module.symvers" \
    'BUILD_DEPENDS[0]="labofed"'
  echo "MODULE_VERSION(\"$version\");" >>"$src/labpeermem.c"
}

# vendor_publish DIR [KEY_FPR]: Packages, Release and (unless KEY_FPR is "unsigned") InRelease
# and Release.gpg for the flat repository in DIR, signed with KEY_FPR (default VENDOR_FPR).
vendor_publish() {
  local dir=$1 key=${2:-$VENDOR_FPR}
  (cd "$dir" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null >Packages && gzip -9nkf Packages)
  python3 - "$dir" <<'PY'
import hashlib, os, sys
d = sys.argv[1]
lines = ["Origin: railyard-test-vendor", "Label: railyard test vendor (throwaway)", "Suite: ./",
         "Date: Thu, 01 Jan 2026 00:00:00 UTC", "Architectures: all amd64", "SHA256:"]
for name in ("Packages", "Packages.gz"):
    data = open(os.path.join(d, name), "rb").read()
    lines.append(" %s %d %s" % (hashlib.sha256(data).hexdigest(), len(data), name))
open(os.path.join(d, "Release"), "w").write("\n".join(lines) + "\n")
PY
  rm -f "$dir/InRelease" "$dir/Release.gpg"
  [[ $key == unsigned ]] && return 0
  gpg --batch --yes --quiet --local-user "$key" --clearsign -o "$dir/InRelease" "$dir/Release"
  gpg --batch --yes --quiet --local-user "$key" --armor --detach-sign -o "$dir/Release.gpg" "$dir/Release"
}

# vendor_serve: an HTTP server for VENDOR_ROOT on 127.0.0.1 (any free port); sets VENDOR_URL.
vendor_serve() {
  local portfile=$LAB_WORK/vendor.port
  python3 - "$VENDOR_ROOT" "$portfile" >"$LAB_WORK/vendor-http.log" 2>&1 <<'PY' &
import functools, http.server, os, sys
root, portfile = sys.argv[1], sys.argv[2]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
PY
  for _ in $(seq 50); do [[ -s $portfile ]] && break; sleep 0.1; done
  [[ -s $portfile ]] || lab_fail "the vendor repositories' HTTP server did not start"
  VENDOR_URL=http://127.0.0.1:$(cat "$portfile")
}

# vendor_bundle FILE NAME VERSION REPO_DIR PACKAGES DKMS MODULES [KEY_FPR] [KEY_FILE]: a
# kind = "apt" driver bundle for the flat repository VENDOR_ROOT/REPO_DIR, its key pinned.
vendor_bundle() {
  local file=$1 name=$2 version=$3 repo=$4 packages=$5 dkms=$6 modules=$7
  local fpr=${8:-$VENDOR_FPR} keyfile=${9:-vendor-key.asc}
  cat >"$file" <<EOF
# A test stand-in for a vendor's flat apt repository (made at test time, served on 127.0.0.1).
schema = 1
name = "$name"
version = "$version"
description = "test stand-in vendor bundle $name"
kind = "apt"
suites = ["debian:bookworm"]
packages = [$packages]
dkms = [$dkms]
modules = [$modules]

[apt]
uri = "$VENDOR_URL/$repo/"
suite = "./"
components = []
key_url = "$VENDOR_URL/$keyfile"
key_fingerprint = "$fpr"
pin_priority = 600
EOF
}
