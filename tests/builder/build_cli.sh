#!/usr/bin/env bash
# `railyard build --dry-run` and `railyard cache ls|prune` from the command line: exit codes,
# the plan table, and that neither a dry run nor a refused build writes anything.
set -euo pipefail
railyard=$1 src=$3
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "build_cli: $*"; exit 1; }
unset SOURCE_DATE_EPOCH

out=$("$railyard" build --dry-run --cache "$tmp/cache" recipes/qemu-virt.toml)
grep -q "^railyard build qemu-virt: dry run, nothing is built or written$" <<<"$out" || fail "no header"
grep -q "^  output             out/qemu-virt/$" <<<"$out" || fail "default output dir"
grep -q "^STAGE     KEY           CACHE  ACTION  DEFINED BY$" <<<"$out" || fail "no table"
for stage in base drivers pack; do
  grep -Eq "^$stage +[0-9a-f]{12}  miss   build   " <<<"$out" || fail "no row for $stage"
done
for stage in overlays agent hygiene trim; do  # not stored: redone from the stage before
  grep -Eq "^$stage +[0-9a-f]{12}  -      build   " <<<"$out" || fail "no row for $stage"
done
grep -Eq "^drivers .* debian12-inbox 44.0-2, railyard-lab-qos 1.0 \(source [0-9a-f]{8}\)$" <<<"$out" || fail "drivers row"
grep -q "^nothing cached: 7 of 7 stages to build$" <<<"$out" || fail "tally"
[[ ! -e "$tmp/cache" ]] || fail "a dry run created the cache"

# Keys are the same from one run to the next, and SOURCE_DATE_EPOCH is in every one of them.
again=$("$railyard" build --dry-run --cache "$tmp/cache" recipes/qemu-virt.toml)
[[ "$out" == "$again" ]] || fail "two dry runs differ"
epoch=$(SOURCE_DATE_EPOCH=1 "$railyard" build --dry-run --cache "$tmp/cache" recipes/qemu-virt.toml)
grep -q "^  SOURCE_DATE_EPOCH  1$" <<<"$epoch" || fail "epoch not shown"
[[ $(grep -Ec "  (miss|-   )   build" <<<"$out") -eq 7 ]] || fail "7 rows"
[[ $(comm -12 <(awk '$2 ~ /^[0-9a-f]{12}$/ {print $2}' <<<"$out" | sort) <(awk '$2 ~ /^[0-9a-f]{12}$/ {print $2}' <<<"$epoch" | sort) | wc -l) -eq 0 ]] ||
  fail "SOURCE_DATE_EPOCH left a key unchanged"

"$railyard" build --dry-run --no-cache recipes/qemu-virt.toml | grep >/dev/null "^cache off (--no-cache): 7 of 7 stages to build$" ||
  fail "--no-cache"
"$railyard" build --dry-run --explain --cache "$tmp/cache" recipes/qemu-virt.toml | grep -E >/dev/null "^# base [0-9a-f]{64}$" ||
  fail "--explain"

# A build that cannot start (its overlay is missing) exits 1 and writes no output.
mkdir -p "$tmp/r/overlays/rdma-limits" "$tmp/r/drivers"
cp recipes/qemu-virt.toml "$tmp/r/"
cp drivers/*.toml "$tmp/r/drivers/"
set +e
err=$("$railyard" build --cache "$tmp/cache" -o "$tmp/out" "$tmp/r/qemu-virt.toml" 2>&1)
rc=$?
set -e
[[ $rc -eq 1 || $rc -eq 2 ]] || fail "build with a missing overlay exited $rc"
[[ ! -e "$tmp/out" ]] || fail "a failed build left an output directory"

# Bad input: exit 2 with FILE:LINE:COL.
printf 'schema = 1\n[image]\nsuite = "bookworm"\n[fabric]\nvlan = 0\n' >"$tmp/bad.toml"
set +e
err=$("$railyard" build --dry-run --cache "$tmp/cache" "$tmp/bad.toml" 2>&1 >/dev/null)
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "bad recipe exited $rc, want 2"
grep -q "bad.toml:5:8: error: fabric.vlan" <<<"$err" || fail "bad recipe message: $err"
set +e
SOURCE_DATE_EPOCH=yesterday "$railyard" build --dry-run --cache "$tmp/cache" recipes/qemu-virt.toml >/dev/null 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "a bad SOURCE_DATE_EPOCH exited $rc, want 2"

# The cache commands on an empty and on a missing cache.
"$railyard" cache ls --cache "$tmp/cache" | grep >/dev/null "^no entries$" || fail "cache ls"
"$railyard" cache ls --json --cache "$tmp/cache" | grep >/dev/null '"entries": \[\]' || fail "cache ls --json"
"$railyard" cache prune --keep 2 --cache "$tmp/cache" | grep >/dev/null "^0 entries removed" || fail "cache prune"
mkdir -p "$tmp/cache/tmp/base.abc123"  # what a killed build leaves
"$railyard" cache ls --cache "$tmp/cache" | grep >/dev/null "^tmp/: 1 leftover" || fail "tmp leftovers not listed"
"$railyard" cache prune --cache "$tmp/cache" | grep >/dev/null "1 leftover(s) removed from tmp/" || fail "tmp leftovers not pruned"
[[ -z "$(ls -A "$tmp/cache/tmp")" ]] || fail "tmp/ not empty after prune"
mkdir -p "$tmp/cache/downloads/packages" && echo deb >"$tmp/cache/downloads/packages/x_1_all.deb"
"$railyard" cache ls --cache "$tmp/cache" | grep >/dev/null "^downloads/: 1 file(s), " || fail "downloads not listed"
"$railyard" cache ls --json --cache "$tmp/cache" | grep >/dev/null '"files": 1' || fail "downloads not in cache ls --json"
"$railyard" cache prune --cache "$tmp/cache" >/dev/null
[[ -e "$tmp/cache/downloads/packages/x_1_all.deb" ]] || fail "cache prune removed downloads without --downloads"
"$railyard" cache prune --downloads --cache "$tmp/cache" | grep >/dev/null "^downloads/: 1 file(s) removed" || fail "cache prune --downloads"
[[ ! -e "$tmp/cache/downloads" ]] || fail "downloads/ still there after prune --downloads"
echo "build_cli: ok"
