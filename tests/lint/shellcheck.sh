#!/usr/bin/env bash
# Every shell script of the project is clean under shellcheck (.shellcheckrc holds the
# project's settings): *.sh, *.bash, .ci/run and the files whose first line names a shell.
# Usage: tests/lint/shellcheck.sh SOURCE_ROOT
set -euo pipefail
root=${1:?usage: shellcheck.sh SOURCE_ROOT}
cd "$root"
if ! command -v shellcheck >/dev/null; then
  echo "shellcheck is not installed (Debian package shellcheck): skipped" >&2
  exit 77
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -path './build*' -prune -o -type f -print | sed 's|^\./||' | sort)
fi
scripts=()
for f in "${files[@]}"; do
  [[ -f $f ]] || continue
  case $f in
    *.sh | *.bash | .ci/run) scripts+=("$f") ;;
    *.*) ;;
    *) if head -c 64 "$f" | head -n 1 | grep -qE '^#!.*\b(ba)?sh\b' || grep -q '^# shellcheck shell=' "$f"; then
      scripts+=("$f")
    fi ;;
  esac
done
shellcheck -x "${scripts[@]}"
echo "shellcheck: ${#scripts[@]} scripts clean ($(shellcheck --version | sed -n 's/^version: //p'))"
