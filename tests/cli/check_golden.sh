#!/usr/bin/env bash
# Each tests/check/NAME.toml is checked; what it writes (to standard error, with -q: the errors
# only) must equal NAME.expected byte for byte, and
# the exit code must be 1 when errors are expected, 0 when NAME.expected is empty.
set -uo pipefail
railyard=$1 dir=$2
cd "$dir" || exit 2
src=../..  # relative, so that the golden output names the same paths on every machine
failed=0 n=0
stdout=$(mktemp)
trap 'rm -f "$stdout"' EXIT
for input in *.toml; do
  name=${input%.toml}
  [[ -f $name.expected ]] || continue
  n=$((n + 1))
  # Diagnostics go to standard error, as compilers write them; nothing to standard output.
  actual=$("$railyard" check -q --drivers "$src/drivers" --overlays "$src/overlays" "$input" 2>&1 >"$stdout")
  rc=$?
  if [[ -s $stdout ]]; then
    echo "FAIL $name: check wrote to standard output: $(cat "$stdout")"
    failed=$((failed + 1))
    continue
  fi
  want_rc=1
  [[ -s $name.expected ]] || want_rc=0
  if [[ $actual != "$(cat "$name.expected")" || $rc -ne $want_rc ]]; then
    echo "FAIL $name (exit $rc, want $want_rc)"
    diff <(echo "$actual") "$name.expected" || true
    failed=$((failed + 1))
  fi
done
echo "golden check cases: $((n - failed)) passed, $failed failed"
[[ $failed -eq 0 && $n -gt 0 ]]
