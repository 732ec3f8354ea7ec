#!/usr/bin/env bash
# The same inputs give the same bytes: the lab image built through the stage cache and built
# again from nothing (--no-cache, a fresh mmdebstrap) have identical artifacts, and the image
# passes railyard audit.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"

"$RAILYARD" audit "$LAB_IMAGE" || lab_fail "railyard audit found problems in $LAB_IMAGE"

again=$LAB_WORK/again
SOURCE_DATE_EPOCH=0 timeout 2400 "$RAILYARD" build "$SRC/recipes/qemu-virt.toml" -o "$again" --no-cache \
  >"$LAB_WORK/again.log" 2>&1 || {
  tail -n 40 "$LAB_WORK/again.log" >&2
  lab_fail "the second build failed"
}
for f in "$LAB_IMAGE"/*; do
  name=$(basename "$f")
  [[ -f "$again/$name" ]] || lab_fail "$name is missing from the second build"
  a=$(sha256sum <"$f" | cut -d' ' -f1)
  b=$(sha256sum <"$again/$name" | cut -d' ' -f1)
  if [[ $a != "$b" ]]; then
    if [[ $name == *.cpio.zst ]]; then
      # Say which entries differ, so that a regression points at its cause.
      diff <(zstd -dc "$f" | cpio -itv --quiet 2>/dev/null) <(zstd -dc "$again/$name" | cpio -itv --quiet 2>/dev/null) |
        head -n 20 >&2 || true
    fi
    [[ $name == manifest.json ]] && { diff "$f" "$again/$name" | head -n 20 >&2 || true; }
    lab_fail "$name differs between two builds of the same inputs ($a vs $b)"
  fi
done
[[ $(ls "$LAB_IMAGE" | wc -l) -eq $(ls "$again" | wc -l) ]] || lab_fail "the builds have different files"
echo "build_reproducible: $(ls "$again" | wc -l) artifacts identical"
