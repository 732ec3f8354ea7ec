#!/usr/bin/env bash
# A build killed at any point leaves no output and nothing in the cache a later build would
# trust; the next build succeeds and gives the same image.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
cache=$LAB_CACHE/stages
out=$LAB_WORK/out/qemu-virt

# Kill the build as each of these stages starts; the base comes from the cache.
for stage in overlays trim pack; do
  rm -rf "$cache/pack"  # so that pack runs (and can be interrupted) every time
  log=$LAB_WORK/killed-$stage.log
  SOURCE_DATE_EPOCH=0 "$RAILYARD" build "$SRC/recipes/qemu-virt.toml" -o "$out" --cache "$cache" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1200); do
    grep -q "^\[[0-9]/7\] $stage: building" "$log" && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  grep -q "^\[[0-9]/7\] $stage: building" "$log" || { cat "$log" >&2; lab_fail "the build never reached $stage"; }
  # Pack is the last stage and takes about 2 s on two cores: a kill a second into it can come
  # after the image was moved into place, so it comes sooner there.
  if [[ $stage == pack ]]; then sleep 0.3; else sleep 1; fi
  kill -9 $pid
  wait $pid 2>/dev/null || true
  [[ ! -e $out ]] || lab_fail "a build killed in $stage left $out"
  # The root was an overlay in the build's own mount namespace: it died with the build.
  grep -qF "an overlay over the cache entry" "$log" || lab_fail "the build killed in $stage did not layer over the cache"
  grep -F "$LAB_WORK/out" /proc/self/mountinfo && lab_fail "a build killed in $stage left a mount behind"
  compgen -G "$LAB_WORK/out/.qemu-virt.build.*" >/dev/null || lab_fail "no work directory left to clean up (was the kill too late?)"
  "$RAILYARD" cache ls --cache "$cache" | grep -E "incomplete" && lab_fail "an incomplete entry is listed after killing $stage"
done

SOURCE_DATE_EPOCH=0 "$RAILYARD" build "$SRC/recipes/qemu-virt.toml" -o "$out" --cache "$cache" >"$LAB_WORK/final.log" 2>&1 || {
  tail -n 40 "$LAB_WORK/final.log" >&2
  lab_fail "the build after the kills failed"
}
compgen -G "$LAB_WORK/out/.qemu-virt.build.*" >/dev/null && lab_fail "the killed builds' work directories are still there"
cmp "$out/manifest.json" "$LAB_IMAGE/manifest.json" || lab_fail "the image after the kills differs from the lab image"
echo "build_interrupted: killed in overlays, trim and pack; the next build succeeded with the same image"
