# shellcheck shell=bash
# stand_in_image DIR KERNEL RECIPE: an image directory as railyard build leaves one, for tests
# that need its shape and not its contents: KERNEL as vmlinuz, a rootfs.cpio.zst holding only
# RECIPE as /etc/railyard/recipe.toml, and a manifest.json naming both with their digests.
# Needs cpio, zstd and sha256sum.
stand_in_image() {
  local dir=$1 kernel=$2 recipe=$3 root arts="" p
  root=$(mktemp -d)
  mkdir -p "$dir" "$root/etc/railyard"
  cp "$recipe" "$root/etc/railyard/recipe.toml"
  cp "$kernel" "$dir/vmlinuz"
  (cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | zstd -q -o "$dir/rootfs.cpio.zst"
  rm -rf "$root"
  for p in vmlinuz rootfs.cpio.zst; do
    arts+="${arts:+,}{\"path\": \"$p\", \"sha256\": \"$(sha256sum "$dir/$p" | cut -d' ' -f1)\", \"size\": $(stat -c %s "$dir/$p")}"
  done
  cat >"$dir/manifest.json" <<JSON
{"schema": 1, "railyard_version": "0.1.0", "recipe": {"name": "qemu-virt", "sha256": "$(printf "%064d" 0)"},
 "source_date_epoch": 0, "image": {"distro": "debian", "suite": "bookworm", "arch": "amd64"},
 "kernel": {"version": "6.1.0-28-amd64", "package": "linux-image-6.1.0-28-amd64", "package_version": "6.1.119-1",
            "cmdline": ["console=ttyS0"]},
 "boot": {"format": "initramfs", "kernel": "vmlinuz", "initrds": ["rootfs.cpio.zst"]},
 "stages": [], "inputs": [], "drivers": [], "packages": [], "trim": {}, "artifacts": [$arts]}
JSON
}
