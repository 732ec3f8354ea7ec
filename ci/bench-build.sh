#!/usr/bin/env bash
# Build figures for the lab recipe, against the plain way of doing the same:
#  1. baseline: mmdebstrap (same suite, packages and driver packages) to a tarball, then zstd
#  2. railyard build, cold (empty cache)
#  3. railyard build, warm, after a driver-manifest change (base reused from the cache), the
#     median of three, each after a new edit
#  4. pack throughput: railyard's cpio writer vs `tar --sort=name | zstd -T0 -3` on the
#     same root filesystem, with both output sizes
# Usage (as root): ci/bench-build.sh [BUILD_DIR]   (default build/; needs railyard,
# railyard_cpio_bench and the agent package built there)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
railyard=$build/railyard
cpio_bench=$build/tests/railyard_cpio_bench
[[ $(id -u) -eq 0 ]] || { echo "bench-build: run as root (image builds bootstrap as root)" >&2; exit 2; }
[[ -x $railyard && -x $cpio_bench ]] || { echo "bench-build: build railyard and railyard_cpio_bench in $build first" >&2; exit 2; }
work=$(mktemp -d /var/tmp/railyard-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=0
now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }

# The recipe and its inputs, copied so that the driver manifest can be edited.
mkdir -p "$work/src"
cp -r "$src/recipes" "$src/drivers" "$src/overlays" "$work/src/"
recipe=$work/src/recipes/qemu-virt.toml
pkgs=$(sed -n 's/^packages = \[\(.*\)\]/\1/p' "$recipe" | tr -d ' "')
drv=$(sed -n '/^packages = \[/,/\]/p' "$work/src/drivers/debian12-inbox.toml" | grep -o '"[^"]*"' | tr -d '"' | paste -sd,)
sources=()  # the host's apt sources, as railyard uses them for mirror = "host"
shopt -s nullglob
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [[ -s $f ]] && sources+=("$f")
done
shopt -u nullglob

echo "== 1. baseline: mmdebstrap + zstd"
t=$(now)
mmdebstrap --mode=root --variant=minbase --include="linux-image-amd64,$pkgs,$drv" bookworm "$work/base.tar" "${sources[@]}" \
  >"$work/baseline.log" 2>&1
zstd -q -T0 -3 "$work/base.tar" -o "$work/base.tar.zst"
baseline=$(elapsed "$t")
echo "baseline: ${baseline} s, $(stat -c %s "$work/base.tar.zst") bytes"

echo "== 2. railyard build, cold"
t=$(now)
"$railyard" build "$recipe" -o "$work/out/cold" --cache "$work/cache" >"$work/cold.log" 2>&1 || { tail -20 "$work/cold.log"; exit 1; }
cold=$(elapsed "$t")
grep -A12 "^STAGE " "$work/cold.log"

echo "== 3. railyard build, warm after a driver-manifest change (3 times, each after a new edit; the median counts)"
warms=()
for i in 1 2 3; do
  sed -i "s/^version = \"\(.*\)\"/version = \"\1+bench$i\"/" "$work/src/drivers/debian12-inbox.toml"
  sync
  t=$(now)
  "$railyard" build "$recipe" -o "$work/out/warm$i" --cache "$work/cache" >"$work/warm$i.log" 2>&1 || { tail -20 "$work/warm$i.log"; exit 1; }
  warms+=("$(elapsed "$t")")
  grep -A12 "^STAGE " "$work/warm$i.log"
done
warm=$(printf '%s\n' "${warms[@]}" | sort -n | sed -n 2p)

echo "== 4. pack throughput on the image's root filesystem"
mkdir "$work/tree"
zstd -dc "$work/out/cold/rootfs.cpio.zst" | (cd "$work/tree" && cpio -idm --quiet --no-absolute-filenames 2>/dev/null)
rm -f "$work/tree/init"
bytes=$(du -sb "$work/tree" | cut -f1)
best_ry=999999 best_tar=999999
for _ in 1 2 3; do
  sync; t=$(now)
  "$cpio_bench" "$work/tree" "$work/ry.cpio.zst" >/dev/null
  s=$(elapsed "$t"); best_ry=$(echo "if ($s < $best_ry) $s else $best_ry" | bc)
  sync; t=$(now)
  tar --sort=name -C "$work/tree" -cf - . | zstd -q -T0 -3 -o "$work/tar.zst" -f
  s=$(elapsed "$t"); best_tar=$(echo "if ($s < $best_tar) $s else $best_tar" | bc)
done

printf '\n%-44s %10s\n' "figure" "value"
printf '%-44s %9.1fs\n' "baseline mmdebstrap + zstd" "$baseline"
printf '%-44s %9.1fs\n' "railyard build, cold" "$cold"
printf '%-44s %9.1fs (runs:%s)\n' "railyard build, warm (driver manifest edited)" "$warm" "$(printf ' %.1f' "${warms[@]}")"
printf '%-44s %9.0f%%\n' "warm / cold" "$(echo "100 * $warm / $cold" | bc -l)"
printf '%-44s %9.2fs %6.0f MB/s\n' "pack: railyard cpio writer (best of 3)" "$best_ry" "$(echo "$bytes / $best_ry / 1000000" | bc -l)"
printf '%-44s %9.2fs %6.0f MB/s\n' "pack: tar --sort=name | zstd -T0 -3 (best of 3)" "$best_tar" "$(echo "$bytes / $best_tar / 1000000" | bc -l)"
printf '%-44s %9.2fx\n' "pack throughput ratio (railyard / tar)" "$(echo "$best_tar / $best_ry" | bc -l)"
printf '%-44s %10s\n' "output size: railyard cpio.zst" "$(stat -c %s "$work/ry.cpio.zst")"
printf '%-44s %10s\n' "output size: tar.zst" "$(stat -c %s "$work/tar.zst")"
