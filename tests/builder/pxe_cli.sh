#!/usr/bin/env bash
# `railyard pxe` from the command line: an image packed with cpio(1) and zstd(1) holding the
# resolved qemu-virt recipe, the lab inventory, and what comes out: a tree dnsmasq accepts,
# node identities the agent accepts, and FILE:LINE:COL errors with exit 2 for bad input.
set -euo pipefail
railyard=$1 firstboot=$2 src=$3
for tool in cpio zstd sha256sum dnsmasq; do
  command -v "$tool" >/dev/null || { echo "pxe_cli: $tool is missing (ci/setup-deps.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "pxe_cli: $*"; exit 1; }

recipe_text=$("$railyard" show "$src/recipes/qemu-virt.toml" | tail -n +2)
recipe_sha=$(printf '%s\n' "$recipe_text" | sha256sum | cut -d' ' -f1)

# image DIR [with-recipe]: vmlinuz, rootfs.cpio.zst and manifest.json.
image() {
  local root
  root="$tmp/root-$(basename "$1")"
  mkdir -p "$1" "$root/etc/railyard"
  : >"$root/etc/machine-id"
  [[ ${2:-} == with-recipe ]] && printf '%s\n' "$recipe_text" >"$root/etc/railyard/recipe.toml"
  echo "MZ not a kernel" >"$1/vmlinuz"
  (cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | zstd -q -o "$1/rootfs.cpio.zst"
  local arts="" p
  for p in vmlinuz rootfs.cpio.zst; do
    arts+="${arts:+,}{\"path\": \"$p\", \"sha256\": \"$(sha256sum "$1/$p" | cut -d' ' -f1)\", \"size\": $(stat -c %s "$1/$p")}"
  done
  cat >"$1/manifest.json" <<JSON
{"schema": 1, "railyard_version": "0.1.0", "recipe": {"name": "qemu-virt", "sha256": "$recipe_sha"}, "source_date_epoch": 0,
 "image": {"distro": "debian", "suite": "bookworm", "arch": "amd64"},
 "kernel": {"version": "6.1.0-28-amd64", "package": "linux-image-6.1.0-28-amd64", "package_version": "6.1.119-1",
            "cmdline": ["console=ttyS0", "panic=-1", "net.ifnames=1"]},
 "boot": {"format": "initramfs", "kernel": "vmlinuz", "initrds": ["rootfs.cpio.zst"]},
 "stages": [], "inputs": [], "drivers": [], "packages": [], "trim": {"dropped": [], "files": 0, "bytes": 0},
 "artifacts": [$arts]}
JSON
}
image "$tmp/img" with-recipe
image "$tmp/bare"
sed "s|^recipe = .*|recipe = \"$src/recipes/qemu-virt.toml\"|" "$src/recipes/inventories/qemu-lab.toml" >"$tmp/nodes.toml"

# The inventory names the image's recipe.
out=$("$railyard" pxe --image "$tmp/img" --nodes "$tmp/nodes.toml" -o "$tmp/tree" --ipxe-dir "" 2>"$tmp/err") ||
  fail "pxe: exit $?: $(cat "$tmp/err")"
grep -q "^$tmp/tree: image qemu-virt for 3 node(s), 2 image file(s) linked, 0 copied$" <<<"$out" || fail "summary: $out"
grep -q "^  52:54:00:00:00:01  lab-node01  pxe/52-54-00-00-00-01.ipxe$" <<<"$out" || fail "node list: $out"
for f in boot.ipxe pxe/52-54-00-00-00-01.ipxe pxe/52-54-00-00-00-02.ipxe nodes/node-lab-node01.cpio.zst \
  image/vmlinuz image/rootfs.cpio.zst image/manifest.json dnsmasq-railyard.conf railyard-pxe.json; do
  [[ -f "$tmp/tree/$f" ]] || fail "no $f in the tree"
done
grep -qx "kernel ../image/vmlinuz console=ttyS0 panic=-1 net.ifnames=1 systemd.hostname=lab-node01 initrd=rootfs.cpio.zst initrd=node-lab-node01.cpio.zst" \
  "$tmp/tree/pxe/52-54-00-00-00-01.ipxe" || fail "node script: $(cat "$tmp/tree/pxe/52-54-00-00-00-01.ipxe")"
grep -qx "dhcp-range=10.0.2.0,proxy" "$tmp/tree/dnsmasq-railyard.conf" || fail "proxy range from the management subnet"
grep -qx "tftp-root=$tmp/tree" "$tmp/tree/dnsmasq-railyard.conf" || fail "tftp-root"
dnsmasq --test --conf-file="$tmp/tree/dnsmasq-railyard.conf" >"$tmp/dnsmasq.out" 2>&1 ||
  fail "dnsmasq rejects the snippet: $(cat "$tmp/dnsmasq.out")"
grep -q "undionly.kpxe not found" "$tmp/err" || fail "no note on the missing iPXE binaries: $(cat "$tmp/err")"

# The node's overlay holds exactly what the agent accepts.
mkdir "$tmp/overlay"
zstd -dc "$tmp/tree/nodes/node-lab-node01.cpio.zst" | (cd "$tmp/overlay" && cpio -id --quiet)
[[ $(cat "$tmp/overlay/etc/hostname") == lab-node01 ]] || fail "/etc/hostname"
"$firstboot" --recipe "$src/recipes/qemu-virt.toml" --node "$tmp/overlay/etc/railyard/node.toml" check >"$tmp/check" 2>&1 ||
  fail "railyard-firstboot check rejects the node identity: $(cat "$tmp/check")"
grep -q "node.toml: ok (node identity)" "$tmp/check" || fail "firstboot check: $(cat "$tmp/check")"

# --node-secret: each node's own token in its own overlay (mode 0600, owner root), the one
# `railyard node-token` prints; none in the shared image or anywhere else in the tree.
mkdir "$tmp/tk"
sed -e 's|^report_url = .*|report_url = "https://10.0.2.100/api/v1/reports"\ntoken_file = "/etc/railyard/report-token"|' \
  "$src/recipes/qemu-virt.toml" >"$tmp/tk/token.toml"
recipe_text=$("$railyard" show --drivers "$src/drivers" --overlays "$src/overlays" "$tmp/tk/token.toml" | tail -n +2)
recipe_sha=$(printf '%s\n' "$recipe_text" | sha256sum | cut -d' ' -f1)
image "$tmp/tkimg" with-recipe
sed "s|^recipe = .*|recipe = \"$tmp/tk/token.toml\"|" "$src/recipes/inventories/qemu-lab.toml" >"$tmp/tknodes.toml"
head -c 32 /dev/urandom | base64 >"$tmp/secret"
chmod 600 "$tmp/secret"
"$railyard" pxe --image "$tmp/tkimg" --nodes "$tmp/tknodes.toml" -o "$tmp/tktree" --ipxe-dir "" --node-secret "$tmp/secret" \
  >"$tmp/out" 2>"$tmp/err" || fail "pxe --node-secret: $(cat "$tmp/err")"
grep -qx "  each node's own report token is in its overlay at /etc/railyard/report-token" "$tmp/out" || fail "tokens: $(cat "$tmp/out")"
grep -q "readable by" "$tmp/err" && fail "a 0600 secret was warned about: $(cat "$tmp/err")"
# On this host, the overlays holding a token are their owner's alone; the rest stays readable.
for f in nodes/node-lab-node01.cpio.zst nodes/node-lab-target01.cpio.zst; do
  [[ $(stat -c %a "$tmp/tktree/$f") == 600 ]] || fail "$f is $(stat -c %a "$tmp/tktree/$f"), not 600"
done
[[ $(stat -c %a "$tmp/tktree/railyard-pxe.json") == 644 ]] || fail "railyard-pxe.json is not 644"
for host in lab-node01 lab-target01; do
  mkdir "$tmp/ov-$host"
  zstd -dc "$tmp/tktree/nodes/node-$host.cpio.zst" | (cd "$tmp/ov-$host" && cpio -id --quiet --no-absolute-filenames)
  [[ $(cat "$tmp/ov-$host/etc/railyard/report-token") == $("$railyard" node-token --node-secret "$tmp/secret" "$host") ]] ||
    fail "$host: the overlay's token is not the one node-token prints"
  listing=$(zstd -dc "$tmp/tktree/nodes/node-$host.cpio.zst" | cpio -itv --quiet 2>/dev/null | grep 'report-token$')
  grep -Eq '^-rw------- +1 root +root ' <<<"$listing" || fail "$host: token not 0600 root: $listing"
done
token=$(cat "$tmp/ov-lab-node01/etc/railyard/report-token")
grep -rlF "$token" "$tmp/tktree" | grep -v "/nodes/node-lab-node01.cpio.zst$" && fail "the token is elsewhere in the tree"
zstd -dc "$tmp/tktree/image/rootfs.cpio.zst" | cpio -it --quiet | grep -q report-token && fail "the shared image holds a token"
grep -q '"token_file": "/etc/railyard/report-token"' "$tmp/tktree/railyard-pxe.json" || fail "index: token_file"
# Without the secret: the tree says the overlays hold no token.
"$railyard" pxe --image "$tmp/tkimg" --nodes "$tmp/tknodes.toml" -o "$tmp/tktree" --ipxe-dir "" >/dev/null 2>"$tmp/err" ||
  fail "pxe without --node-secret: $(cat "$tmp/err")"
grep -q "^railyard pxe: warning: the nodes read their report token from /etc/railyard/report-token, and no overlay holds one" \
  "$tmp/err" ||
  fail "no note on the missing tokens: $(cat "$tmp/err")"
# --json: what was written, warnings included, as one document on stdout.
json=$("$railyard" pxe --image "$tmp/tkimg" --nodes "$tmp/tknodes.toml" -o "$tmp/tktree" --ipxe-dir "" --json 2>/dev/null) ||
  fail "pxe --json: exit $?"
python3 - "$json" <<'PY' || fail "pxe --json: $json"
import json, sys
d = json.loads(sys.argv[1])
assert d["recipe"] and d["nodes"] and all(set(n) == {"hostname", "mac", "script"} for n in d["nodes"]), d
assert d["token_file"] == "/etc/railyard/report-token" and d["tokens"] is False, d
assert any("no overlay holds one" in w for w in d["warnings"]), d
PY
# A secret for a recipe that reads no token, and a short secret: exit 2, nothing written.
set +e
err=$("$railyard" pxe --image "$tmp/img" --nodes "$tmp/nodes.toml" -o "$tmp/tree3" --node-secret "$tmp/secret" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "secret without token_file: exit $rc"
grep -q "^--node-secret: error: recipe .*qemu-virt.toml sets no join.token_file, so the nodes would never read the tokens" <<<"$err" ||
  fail "secret without token_file: $err"
echo short >"$tmp/short"
err=$("$railyard" pxe --image "$tmp/tkimg" --nodes "$tmp/tknodes.toml" -o "$tmp/tree3" --node-secret "$tmp/short" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "short secret: exit $rc"
grep -q "^--node-secret: error: $tmp/short: the node secret is 5 bytes; at least 16 are needed" <<<"$err" || fail "short secret: $err"
[[ ! -e "$tmp/tree3" ]] || fail "bad input wrote a tree"
# --munge-key: only for a Slurm recipe (the lab recipe is one; its copy without
# [join.slurm] is not), and only a key munged takes (32 to 1024 bytes).
head -c 1024 /dev/urandom >"$tmp/munge.key"
sed -e '/^\[join.slurm\]/,$d' -e 's|, "slurmd.service"\]|]|' "$tmp/tk/token.toml" >"$tmp/tk/noslurm.toml"
saved_text=$recipe_text saved_sha=$recipe_sha
recipe_text=$("$railyard" show --drivers "$src/drivers" --overlays "$src/overlays" "$tmp/tk/noslurm.toml" | tail -n +2)
recipe_sha=$(printf '%s\n' "$recipe_text" | sha256sum | cut -d' ' -f1)
image "$tmp/nsimg" with-recipe
recipe_text=$saved_text recipe_sha=$saved_sha
sed "s|^recipe = .*|recipe = \"$tmp/tk/noslurm.toml\"|" "$src/recipes/inventories/qemu-lab.toml" >"$tmp/nsnodes.toml"
err=$("$railyard" pxe --image "$tmp/nsimg" --nodes "$tmp/nsnodes.toml" -o "$tmp/tree3" --munge-key "$tmp/munge.key" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "munge key for a recipe without join.slurm: exit $rc ($err)"
grep -q "^--munge-key: error: recipe .*noslurm.toml sets no join.slurm.controller" <<<"$err" || fail "munge key without slurm: $err"
# With the Slurm recipe: in every node's overlay, 0400 root, and nowhere else in the tree. A key
# file any user of this host can read is told, with its mode; on this host the overlays are
# the serving group's (--group) and no one else's.
chmod 644 "$tmp/munge.key"
group=$(id -gn)
"$railyard" pxe --image "$tmp/tkimg" --nodes "$tmp/tknodes.toml" -o "$tmp/mtree" --ipxe-dir "" \
  --munge-key "$tmp/munge.key" --group "$group" >"$tmp/out" 2>"$tmp/err"; rc=$?
[[ $rc -eq 0 ]] || fail "munge key for the Slurm recipe: exit $rc: $(cat "$tmp/err")"
grep -qx "railyard pxe: warning: --munge-key: $tmp/munge.key is readable by every user of this host (mode 0644): whoever reads it holds the secret; chmod 600 $tmp/munge.key" \
  "$tmp/err" || fail "no warning on a world-readable munge key: $(cat "$tmp/err")"
grep -qx "  the overlays holding them are readable by group $group (0640)" "$tmp/out" || fail "munge key summary: $(cat "$tmp/out")"
for host in lab-node01 lab-target01; do
  listing=$(zstd -dc "$tmp/mtree/nodes/node-$host.cpio.zst" | cpio -itv --quiet 2>/dev/null | grep 'etc/munge/munge.key$')
  grep -Eq '^-r-------- +1 root +root +1024 ' <<<"$listing" || fail "$host: munge key not 0400 root: $listing"
  [[ $(stat -c '%a %G' "$tmp/mtree/nodes/node-$host.cpio.zst") == "640 $group" ]] ||
    fail "$host: overlay is $(stat -c '%a %G' "$tmp/mtree/nodes/node-$host.cpio.zst"), not 640 $group"
done
chmod 600 "$tmp/munge.key"
err=$("$railyard" pxe --image "$tmp/tkimg" --nodes "$tmp/tknodes.toml" -o "$tmp/mtree" --ipxe-dir "" \
  --munge-key "$tmp/munge.key" 2>&1 >"$tmp/out"); rc=$?
[[ $rc -eq 0 ]] || fail "munge key 0600: exit $rc: $err"
grep -q "readable by" <<<"$err" && fail "a 0600 munge key was warned about: $err"
[[ $(stat -c %a "$tmp/mtree/nodes/node-lab-node01.cpio.zst") == 600 ]] || fail "overlay without --group is not 600"
grep -qx "  the overlays holding them are their owner's alone (0600): serve them as that user, or pass --group" "$tmp/out" ||
  fail "munge key summary without --group: $(cat "$tmp/out")"
err=$("$railyard" pxe --image "$tmp/tkimg" --nodes "$tmp/tknodes.toml" -o "$tmp/tree3" --munge-key "$tmp/munge.key" \
  --group railyard-no-such-group 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "unknown group: exit $rc ($err)"
grep -qx -e "--group: error: no group 'railyard-no-such-group' on this host (getent group lists them); name the group your TFTP or HTTP server runs as" <<<"$err" ||
  fail "unknown group: $err"
[[ ! -e "$tmp/tree3" ]] || fail "bad input wrote a tree"
zstd -dc "$tmp/mtree/image/rootfs.cpio.zst" | cpio -it --quiet | grep -q munge.key && fail "the shared image holds the munge key"
err=$("$railyard" pxe --image "$tmp/tkimg" --nodes "$tmp/tknodes.toml" -o "$tmp/tree3" --munge-key "$tmp/short" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "short munge key: exit $rc"
grep -q "^--munge-key: error: $tmp/short: a munge key is 32 to 1024 bytes" <<<"$err" || fail "short munge key: $err"
[[ ! -e "$tmp/tree3" ]] || fail "bad input wrote a tree"
set -e

# Without recipe = …, the copy inside the image is used; with --base-url, iPXE fetches over HTTP.
grep -v "^recipe = " "$tmp/nodes.toml" >"$tmp/norecipe.toml"
"$railyard" pxe --image "$tmp/img" --nodes "$tmp/norecipe.toml" -o "$tmp/tree" --ipxe-dir "" \
  --base-url http://10.0.2.2:8080/lab >/dev/null 2>"$tmp/err" || fail "image recipe: $(cat "$tmp/err")"
grep -qx "dhcp-boot=tag:ipxe,http://10.0.2.2:8080/lab/boot.ipxe" "$tmp/tree/dnsmasq-railyard.conf" || fail "base url"

set +e
# A rail address outside its subnet, with its line and column.
sed 's/198.18.1.11"/198.18.9.11"/' "$tmp/nodes.toml" >"$tmp/badrail.toml"
err=$("$railyard" pxe --image "$tmp/img" --nodes "$tmp/badrail.toml" -o "$tmp/tree2" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "bad rail: exit $rc"
grep -Eq "^$tmp/badrail.toml:9:[0-9]+: error: node\[0\].rails\[1\]: 198.18.9.11 is outside rail 1's subnet 198.18.1.0/24$" <<<"$err" ||
  fail "bad rail: $err"
[[ ! -e "$tmp/tree2" ]] || fail "bad input wrote a tree"
# An inventory for another SKU's recipe.
sed "s|^recipe = .*|recipe = \"$src/recipes/gpu4-cx6dx-100g.toml\"|" "$tmp/nodes.toml" >"$tmp/other.toml"
err=$("$railyard" pxe --image "$tmp/img" --nodes "$tmp/other.toml" -o "$tmp/tree2" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "other recipe: exit $rc"
grep -q "^$tmp/other.toml:4:[0-9]*: error: recipe '.*gpu4-cx6dx-100g.toml' (gpu4-cx6dx-100g, sha256 [0-9a-f]*) is not the recipe image $tmp/img was built from (qemu-virt" <<<"$err" ||
  fail "other recipe: $err"
# Neither the inventory nor the image names a recipe.
err=$("$railyard" pxe --image "$tmp/bare" --nodes "$tmp/norecipe.toml" -o "$tmp/tree2" 2>&1); rc=$?
[[ $rc -eq 2 ]] || fail "no recipe: exit $rc"
grep -q "^$tmp/norecipe.toml:1:1: error: no recipe to check the inventory against" <<<"$err" || fail "no recipe: $err"
# A directory that is not a tree is not replaced.
mkdir "$tmp/mine" && echo keep >"$tmp/mine/file"
err=$("$railyard" pxe --image "$tmp/img" --nodes "$tmp/nodes.toml" -o "$tmp/mine" --ipxe-dir "" 2>&1); rc=$?
[[ $rc -eq 1 ]] || fail "foreign directory: exit $rc"
grep -q "is not a railyard PXE tree" <<<"$err" || fail "foreign directory: $err"
[[ $(cat "$tmp/mine/file") == keep ]] || fail "foreign directory touched"
echo "pxe_cli: ok"
