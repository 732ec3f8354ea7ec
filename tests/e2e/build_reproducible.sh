#!/usr/bin/env bash
# The same inputs give the same bytes: the lab image built through the stage cache, built
# again from nothing (--no-cache, a fresh mmdebstrap), and rebuilt over the cached entry
# (layered by overlayfs, or copied) have identical artifacts, and the image passes audit.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"

"$RAILYARD" audit "$LAB_IMAGE" || lab_fail "railyard audit found problems in $LAB_IMAGE"

# count_entries DIR: how many names DIR holds, dot files aside (as ls lists them).
count_entries() { find "$1" -mindepth 1 -maxdepth 1 -not -name '.*' | wc -l; }

again=$LAB_WORK/again
SOURCE_DATE_EPOCH=0 timeout 2400 "$RAILYARD" build "$SRC/recipes/qemu-virt.toml" -o "$again" --no-cache \
  >"$LAB_WORK/again.log" 2>&1 || {
  tail -n 40 "$LAB_WORK/again.log" >&2
  lab_fail "the second build failed"
}
# same_image A B: every artifact of A is in B with the same bytes, and nothing else is.
same_image() {
  local a_dir=$1 b_dir=$2 f name a b
  for f in "$a_dir"/*; do
    name=$(basename "$f")
    [[ -f "$b_dir/$name" ]] || lab_fail "$name is missing from $b_dir"
    a=$(sha256sum <"$f" | cut -d' ' -f1)
    b=$(sha256sum <"$b_dir/$name" | cut -d' ' -f1)
    if [[ $a != "$b" ]]; then
      if [[ $name == *.cpio.zst ]]; then
        # Say which entries differ, so that a regression points at its cause.
        diff <(zstd -dc "$f" | cpio -itv --quiet 2>/dev/null) <(zstd -dc "$b_dir/$name" | cpio -itv --quiet 2>/dev/null) |
          head -n 20 >&2 || true
      fi
      [[ $name == manifest.json ]] && { diff "$f" "$b_dir/$name" | head -n 20 >&2 || true; }
      lab_fail "$name differs between $a_dir and $b_dir, built from the same inputs ($a vs $b)"
    fi
  done
  [[ $(count_entries "$a_dir") -eq $(count_entries "$b_dir") ]] || lab_fail "$a_dir and $b_dir have different files"
}
same_image "$LAB_IMAGE" "$again"

# Through the cache without the packed image: the stages after the cached entry work on an
# overlay over it. And once more into a path overlayfs options cannot carry (a comma), where
# the entry is copied instead. Neither may show in the bytes.
cache=$LAB_CACHE/stages
for how in layered copied; do
  out=$LAB_WORK/$how
  [[ $how == copied ]] && out=$LAB_WORK/copied,image
  rm -rf "$cache/pack"
  SOURCE_DATE_EPOCH=0 "$RAILYARD" build "$SRC/recipes/qemu-virt.toml" -o "$out" --cache "$cache" >"$LAB_WORK/$how.log" 2>&1 || {
    tail -n 40 "$LAB_WORK/$how.log" >&2
    lab_fail "the $how build failed"
  }
  want="an overlay over the cache entry"
  [[ $how == copied ]] && want="copying the entry instead"
  grep -qF "$want" "$LAB_WORK/$how.log" || { cat "$LAB_WORK/$how.log" >&2; lab_fail "the $how build did not say \"$want\""; }
  same_image "$again" "$out"
done
grep -F "$LAB_WORK" /proc/self/mountinfo && lab_fail "a build left a mount behind"
echo "build_reproducible: $(count_entries "$again") artifacts identical, from the cache (layered and copied) and from nothing"
